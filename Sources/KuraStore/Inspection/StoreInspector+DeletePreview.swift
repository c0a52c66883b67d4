import Foundation
import KuraBase
import KuraSQLite

// What deleting a row would do under the store's delete rules, read without writing: the rows
// a cascade deletes, the references a nullify clears, and the rows a deny rule refuses for.

extension StoreInspector {
  /// What deleting one row would do, by the models' delete rules.
  package struct DeletePreview: Sendable, Equatable {
    /// Rows of one model, with the property and rule that reach them.
    package struct Rows: Sendable, Equatable {
      /// The model.
      package var model: String
      /// Its property that refers to a deleted row.
      package var property: String
      /// The delete rule of that reference.
      package var deleteRule: String
      /// Their primary keys, in key order.
      package var keys: [DatabaseValue]
    }
    /// The rows a cascade would delete as well (not the row itself).
    package var deleted: [Rows]
    /// The rows whose reference would be set to `nil`.
    package var nullified: [Rows]
    /// The rows that a `deny` rule keeps from being deleted: with any, the delete is refused.
    package var refusals: [Rows]
    /// Whether the walk stopped at ``StoreInspector/deletePreviewLimit`` rows.
    package var isTruncated: Bool
  }

  /// The most rows a delete preview walks.
  package static let deletePreviewLimit = 10_000

  /// What deleting `model`'s row `key` would do (the store's `DeleteRuleApplier` applies the
  /// same rules when a context saves): cascades followed through any number of levels, a
  /// `deny` reference from a row that the delete removes anyway not counted.
  ///
  /// - Throws: ``StoreError`` when the store can't be read.
  package func deletePreview(
    of model: BrowsedModel, key: DatabaseValue, among models: [BrowsedModel]
  ) throws -> DeletePreview {
    try run {
      let dialect = connection.dialect
      var deleted: Set<String> = ["\(model.name)\u{0}\(key)"]
      var queue: [(BrowsedModel, DatabaseValue)] = [(model, key)]
      var cascaded: [String: DeletePreview.Rows] = [:]
      var nullified: [String: DeletePreview.Rows] = [:]
      var denied: [String: DeletePreview.Rows] = [:]
      var visited = 0
      var truncated = false
      while !queue.isEmpty {
        let (current, currentKey) = queue.removeFirst()
        for referrer in current.referrers {
          guard let other = models.first(where: { $0.name == referrer.model }) else { continue }
          let otherKey = dialect.quoteIdentifier(other.primaryKey.name)
          let keys = try connection.query(
            "SELECT \(otherKey) FROM \(dialect.quoteIdentifier(other.table)) WHERE "
              + "\(dialect.quoteIdentifier(referrer.property)) = \(dialect.placeholder(1)) "
              + "ORDER BY \(otherKey) LIMIT \(Self.deletePreviewLimit)", [currentKey]
          ) { $0.value(at: 0) }
          visited += keys.count
          if visited > Self.deletePreviewLimit {
            truncated = true
            break
          }
          let group = "\(other.name)\u{0}\(referrer.property)"
          for found in keys {
            switch referrer.deleteRule {
            case DeleteRule.cascade.rawValue:
              guard deleted.insert("\(other.name)\u{0}\(found)").inserted else { continue }
              cascaded[
                group,
                default: .init(
                  model: other.name, property: referrer.property, deleteRule: referrer.deleteRule,
                  keys: [])
              ].keys.append(found)
              queue.append((other, found))
            case DeleteRule.nullify.rawValue:
              nullified[
                group,
                default: .init(
                  model: other.name, property: referrer.property, deleteRule: referrer.deleteRule,
                  keys: [])
              ].keys.append(found)
            default:
              denied[
                group,
                default: .init(
                  model: other.name, property: referrer.property, deleteRule: referrer.deleteRule,
                  keys: [])
              ].keys.append(found)
            }
          }
        }
        if truncated { break }
      }
      // A row the delete removes anyway neither blocks it nor keeps a cleared reference.
      func remaining(_ groups: [String: DeletePreview.Rows]) -> [DeletePreview.Rows] {
        groups.keys.sorted().compactMap { name in
          guard var rows = groups[name] else { return nil }
          rows.keys.removeAll { deleted.contains("\(rows.model)\u{0}\($0)") }
          return rows.keys.isEmpty ? nil : rows
        }
      }
      return DeletePreview(
        deleted: cascaded.keys.sorted().compactMap { cascaded[$0] },
        nullified: remaining(nullified), refusals: remaining(denied), isTruncated: truncated)
    }
  }
}
