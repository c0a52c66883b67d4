import Foundation
import KuraBase
import KuraSQLite

/// Applies the declared delete rules of a save, inside its write transaction and before its
/// changes are written: finds the rows that refer to the deleted ones, level by level, deletes
/// (``DeleteRule/cascade``) or clears (``DeleteRule/nullify``) them, and refuses the save when a
/// ``DeleteRule/deny`` reference remains.
package struct DeleteRuleApplier {
  package let graph: RelationshipGraph
  package let db: StoreConnection

  /// What the rules did: extra deleted and updated keys, by table; and the `.deny` references
  /// to check once the save's own changes are written (``checkDenials(_:)``).
  package struct Outcome {
    package var deleted: [String: [DatabaseValue]] = [:]
    package var updated: [String: [DatabaseValue]] = [:]
    package var denials: [(reference: ModelAttributes.Reference, targets: [DatabaseValue])] = []
  }

  /// Applies the rules for the keys a save deletes (by table).
  package func apply(deleting initial: [String: [DatabaseValue]]) throws -> Outcome {
    var outcome = Outcome()
    guard !graph.isEmpty else { return outcome }
    var deleting: [String: Set<DatabaseValue>] = initial.mapValues { Set($0) }
    var queue: [(table: String, keys: [DatabaseValue])] = initial.map { ($0.key, $0.value) }
    var nullify: [(reference: ModelAttributes.Reference, keys: [DatabaseValue])] = []
    var denied: [(reference: ModelAttributes.Reference, rows: [(DatabaseValue, DatabaseValue)])] =
      []
    var keyColumns: [String: String] = [:]
    while let (table, keys) = queue.popLast() {
      guard !keys.isEmpty, let references = graph.referencesByTarget[table] else { continue }
      for reference in references where reference.deleteRule != .noAction {
        let rows = try referringRows(reference, to: keys)
        guard !rows.isEmpty else { continue }
        switch reference.deleteRule {
        case .cascade:
          keyColumns[reference.table] = reference.primaryKey
          var added: [DatabaseValue] = []
          for (key, _) in rows where deleting[reference.table, default: []].insert(key).inserted {
            added.append(key)
          }
          outcome.deleted[reference.table, default: []] += added
          queue.append((reference.table, added))
        case .nullify:
          nullify.append((reference, rows.map(\.0)))
        case .deny:
          denied.append((reference, rows))
        case .noAction:
          break
        }
      }
    }
    for (reference, rows) in denied {
      let blocking = rows.filter { !(deleting[reference.table]?.contains($0.0) ?? false) }
      guard !blocking.isEmpty else { continue }
      // Checked against the state the save produces: the save may move these rows elsewhere.
      outcome.denials.append((reference, Array(Set(blocking.map(\.1)))))
    }
    for (reference, keys) in nullify {
      let remaining = keys.filter { !(deleting[reference.table]?.contains($0) ?? false) }
      guard !remaining.isEmpty else { continue }
      let (condition, arguments) = try keyList(
        quoteIdentifier(reference.primaryKey), remaining, text: false)
      try db.run(
        "UPDATE \(quoteIdentifier(reference.table)) SET \(quoteIdentifier(reference.column)) = "
          + "NULL WHERE \(condition)", arguments)
      outcome.updated[reference.table, default: []] += remaining
    }
    for (table, keys) in outcome.deleted where !keys.isEmpty {
      guard let key = keyColumns[table] else { continue }
      let (condition, arguments) = try keyList(quoteIdentifier(key), keys, text: false)
      try db.run("DELETE FROM \(quoteIdentifier(table)) WHERE \(condition)", arguments)
    }
    return outcome
  }

  /// Refuses the save when, with its changes written, a row still refers through a `.deny`
  /// reference to a model it deletes.
  package func checkDenials(_ outcome: Outcome) throws {
    for (reference, targets) in outcome.denials {
      let rows = try referringRows(reference, to: targets)
      if !rows.isEmpty { throw denial(reference, rows) }
    }
  }

  /// The (key, reference value) of the rows whose reference points at one of `keys`.
  private func referringRows(_ reference: ModelAttributes.Reference, to keys: [DatabaseValue])
    throws -> [(DatabaseValue, DatabaseValue)]
  {
    let (condition, arguments) = try keyList(
      quoteIdentifier(reference.column), keys, text: reference.comparesLikeSwift)
    return try db.query(
      "SELECT \(quoteIdentifier(reference.primaryKey)), \(quoteIdentifier(reference.column)) "
        + "FROM \(quoteIdentifier(reference.table)) WHERE \(condition)", arguments
    ) { row in (row.value(at: 0), row.value(at: 1)) }
  }

  /// `column IN (…)` over `keys`, bound as one list (comparing text like Swift's `==` when
  /// `text` is set).
  private func keyList(_ column: String, _ keys: [DatabaseValue], text: Bool) throws -> (
    String, [DatabaseValue]
  ) {
    try storeKeyList(column, keys, text: text, dialect: db.dialect)
  }

  private func denial(
    _ reference: ModelAttributes.Reference, _ rows: [(DatabaseValue, DatabaseValue)]
  ) -> StoreError {
    let targets = Array(Set(rows.map { idText($0.1) })).sorted()
    let shown = rows.prefix(10).map { "`\(idText($0.0))`" }.joined(separator: ", ")
    let more = rows.count > 10 ? " and \(rows.count - 10) more" : ""
    let what =
      targets.count == 1
      ? "`\(reference.targetModel)` `\(targets[0])`"
      : "\(targets.count) `\(reference.targetModel)` models"
    return StoreError(
      .deleteDenied, model: reference.model, property: reference.column,
      message:
        "Can't delete \(what): \(rows.count) `\(reference.model)` "
        + "\(rows.count == 1 ? "row refers" : "rows refer") to it through "
        + "`\(reference.column)`, whose delete rule is `.deny` (\(shown)\(more)). Delete or "
        + "reassign \(rows.count == 1 ? "it" : "them") first; nothing was saved.")
  }

  /// Creates the value from each of its stored properties.
  package init(graph: RelationshipGraph, db: StoreConnection) {
    self.graph = graph
    self.db = db
  }
}

/// `column IN (…)` over stored `keys`, bound as one list when the dialect can (so the statement
/// is the same however many keys), comparing text like Swift's `==` when `text` is set.
package func storeKeyList(
  _ column: String, _ keys: [DatabaseValue], text: Bool, dialect: any SQLDialect
)
  throws -> (String, [DatabaseValue])
{
  guard let list = dialect.membership(column, in: keys, text: text, listAbove: 0) else {
    throw StoreError(
      .unsupportedQuery,
      message:
        "Can't compare stored keys like Swift's `==` in this engine's SQL. This is a bug in "
        + "Kura's engine for this store; please report it.")
  }
  return list
}
