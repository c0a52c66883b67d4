import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

extension SyncQuarantine {
  /// Tries the refused changes again when this app's schema is not the one that refused them
  /// (an upgrade made a property optional, changed its type, added a model): those that fit
  /// now leave the quarantine and are applied through the pulled-changes path (with a history
  /// entry, so live queries see them). Run when a ``SyncEngine`` starts; the schema's
  /// description is kept in the store, so an unchanged app reads one row and nothing else.
  package static func readmit(container: ModelContainer) throws {
    let description = schemaDescription(container)
    let changes = try container.pool.write { db -> ChangeSet.ModelChangesByModel in
      let known = try SyncLocalStore.state("admittedSchema", db)
      guard known != description else { return [:] }
      try SyncLocalStore.setState("admittedSchema", description, db)
      guard known != nil else { return [:] }  // the first start: nothing was refused yet
      var admission = SyncAdmission(container: container)
      let rows = try db.query(
        "SELECT number, replica, change FROM kura_sync_quarantine "
          + "WHERE waiting = 0 AND change IS NOT NULL ORDER BY number"
      ) { ($0.int64(at: 0), $0.string(at: 1), $0.string(at: 2)) }
      var saves: [SyncLoggedSave] = []
      for (number, replica, text) in rows {
        guard let change = try? SyncJSONReader.decodeChanges("[" + text + "]").first,
          admission.refusal(of: change) == nil
        else { continue }
        try db.run("DELETE FROM kura_sync_quarantine WHERE number = ?", [.integer(number)])
        saves.append(
          SyncLoggedSave(position: 0, replica: replica, sequence: 0, changes: [change]))
      }
      guard !saves.isEmpty else { return [:] }
      // The cursor stays where it is: these saves were pulled already.
      let cursor = try SyncLocalStore.cursor(db)
      saves[saves.count - 1].position = cursor
      return try SyncLocalStore.applyPulled(saves, container: container, db: db)
    }
    if !changes.isEmpty { container.hub.didSave() }
  }

  /// What admission depends on in the app's schema: each model's columns with their kind,
  /// optionality and type, and its references' targets.
  private static func schemaDescription(_ container: ModelContainer) -> String {
    container.schemas.values.map { schema in
      let columns = schema.columns.map {
        "\($0.name):\($0.kind.rawValue):\($0.isOptional):\(String(reflecting: $0.valueType))"
      }
      let references =
        container.graph.attributesByTable[schema.tableName]?.references.map {
          "\($0.column)>\($0.targetTable)"
        } ?? []
      return "\(schema.storedName)(\((columns + references).joined(separator: ",")))"
    }.sorted().joined(separator: ";")
  }
}
