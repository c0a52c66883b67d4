import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// Replicas on different versions of an app's models, syncing one space.
///
/// Changes travel per property, so a replica sends only the properties its models have, and
/// keeps every pulled value in its registers, also of properties and models it doesn't have:
///
/// - an older replica editing a model sends the properties it changed, never the ones it
///   doesn't know, so a newer replica's values of those survive everywhere;
/// - a newer replica storing a model an older one wrote gives the properties the older one
///   doesn't have their declared default (`.defaultValue` in the model's schema), or `nil`
///   when they are optional;
/// - once the app is upgraded (a migration added the properties, or the models), the values
///   kept in the registers are written into the tables when the ``SyncEngine`` starts — no
///   download again, and no default sent out over a value another replica wrote.
package enum SyncVersions {
  /// The values to store for the columns a pulled new row has no value of: each defaulted
  /// column's default; and the columns it lacks that are neither optional nor defaulted (the
  /// row can't be stored yet: it waits in the quarantine, ``SyncQuarantine``).
  package static func defaults(
    _ schema: ModelSchema, missingFrom record: SyncRecordState, container: ModelContainer
  ) -> (values: [String: DatabaseValue], missing: [String]) {
    let declared = container.graph.attributesByTable[schema.tableName]?.defaults ?? [:]
    var defaults: [String: DatabaseValue] = [:]
    var missing: [String] = []
    for column in schema.columns
    where column.name != schema.primaryKey.name && record.properties[column.name] == nil {
      if let value = declared[column.name] {
        defaults[column.name] = value
      } else if !column.isOptional {
        missing.append(column.name)
      }
    }
    return (defaults, missing)
  }

  /// Why a pulled new model lacking `column` waits.
  package static func missingReason(_ schema: ModelSchema, id: String, _ column: String) -> String {
    "Can't store the pulled `\(schema.modelName)` `\(id)` yet: it has no `\(column)` (saved "
      + "by an app version without that property, or by a faulty one), which is not optional "
      + "and has no default. It waits in the quarantine and appears when a change sets "
      + "`\(column)`; to take such models as they are, declare "
      + "`.defaultValue(\\.\(column), …)` in the model's schema or make the property optional."
  }

  /// Why a pulled model its table refused waits.
  package static func refusedReason(_ schema: ModelSchema, id: String, _ error: any Error) -> String
  {
    "Can't store the pulled `\(schema.modelName)` `\(id)`: its table refused it (\(error)). "
      + "It waits in the quarantine and is tried again when a later change of it arrives."
  }

  /// Writes the kept values of properties and models this app version has and the last
  /// version that started a sync engine on the store did not (recorded per store), through
  /// the pulled-changes path (with a history entry, so live queries see them).
  package static func materializeNewProperties(container: ModelContainer) throws {
    let current = container.schemas.values.reduce(into: [String: [String]]()) {
      $0[$1.storedName] = $1.columns.map(\.name).sorted()
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let text = String(decoding: try encoder.encode(current), as: UTF8.self)
    let changes = try container.pool.write { db -> ChangeSet.ModelChangesByModel in
      let known = try SyncLocalStore.state("models", db)
      try SyncLocalStore.setState("models", text, db)
      guard let known, known != text,
        let before = try? JSONDecoder().decode([String: [String]].self, from: Data(known.utf8))
      else { return [:] }
      var grown: [String: Set<String>] = [:]
      for (model, columns) in current {
        let added = Set(columns).subtracting(before[model] ?? [])
        if !added.isEmpty { grown[model] = added }
      }
      guard !grown.isEmpty else { return [:] }
      var kept: [SyncChange] = []
      for model in grown.keys.sorted() {
        let records = try db.query(
          "SELECT id, incarnation FROM kura_sync_records WHERE model = ? AND deleted IS NULL",
          [.text(model)]
        ) { ($0.string(at: 0), $0.int64(at: 1)) }
        for (id, incarnation) in records {
          let record = try SyncLocalStore.record(.init(model: model, id: id), db)
          guard record.properties.keys.contains(where: { grown[model]?.contains($0) ?? false })
          else { continue }
          for (property, register) in record.properties.sorted(by: { $0.key < $1.key }) {
            kept.append(
              .set(
                model, id: id, incarnation: incarnation, property: property,
                to: register.value, stamp: register.stamp))
          }
        }
      }
      guard !kept.isEmpty else { return [:] }
      let cursor = try SyncLocalStore.cursor(db)
      let save = SyncLoggedSave(position: cursor, replica: "", sequence: 0, changes: kept)
      return try SyncLocalStore.applyPulled([save], container: container, db: db)
    }
    if !changes.isEmpty { container.hub.didSave() }
  }
}
