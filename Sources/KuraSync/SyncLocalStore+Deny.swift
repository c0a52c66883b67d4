import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// A replica's side of the server's `.deny` enforcement (SyncService+Deny.swift): naming its
/// models' `.deny` references in a push, and taking back the deletes the server denied — each
/// deleted model is restored from the server's values, and the save is listed in
/// ``SyncEngine/rejections()`` with a reason naming the referring model.
extension SyncLocalStore {
  /// The `.deny` references of the models `changes` touch, as the server takes them.
  package static func denyReferences(for changes: [SyncChange], container: ModelContainer)
    -> [SyncDenyReference]
  {
    var references: [SyncDenyReference] = []
    for model in Set(changes.map(\.model)).sorted() {
      guard let schema = container.schemas.values.first(where: { $0.storedName == model }),
        let attributes = container.graph.attributesByTable[schema.tableName]
      else { continue }
      for reference in attributes.references where reference.deleteRule == .deny {
        guard
          let target = container.schemas.values.first(where: {
            $0.tableName == reference.targetTable
          })
        else { continue }
        references.append(
          SyncDenyReference(
            model: model, property: reference.column, target: target.storedName))
      }
    }
    return references
  }

  /// Restores the models whose deletes the server denied, and lists each denied save in the
  /// rejections, in the write that takes in the push's answer.
  ///
  /// - Returns: The visible changes (the rows written again).
  package static func restoreDenied(
    _ conflicts: [SyncUniqueConflict], container: ModelContainer, db: StoreConnection
  ) throws -> ChangeSet.ModelChangesByModel {
    var changes: ChangeSet.ModelChangesByModel = [:]
    var bySave: [Int64: [SyncUniqueConflict]] = [:]
    for conflict in conflicts where conflict.kind == "denied" {
      bySave[conflict.sequence, default: []].append(conflict)
    }
    for (sequence, denied) in bySave.sorted(by: { $0.key < $1.key }) {
      var deletes: [SyncChange] = []
      for conflict in denied {
        let key = SyncMergeState.Key(model: conflict.model, id: conflict.id)
        let record = try record(key, db)
        // Restored already (a resent answer), or the id lives again since.
        guard !record.isLive, record.incarnation == conflict.incarnation,
          let deleted = record.deleted
        else { continue }
        deletes.append(
          .delete(
            conflict.model, id: conflict.id, incarnation: conflict.incarnation, stamp: deleted))
        // The server has no values of an id it never received (nothing to restore from).
        guard let values = conflict.restored, !values.isEmpty else { continue }
        var restored = SyncRecordState(incarnation: conflict.incarnation)
        for change in values { _ = restored.apply(change) }
        try storeRecord(restored, key, db)
        // A model this app doesn't have, or whose row can't be filled: kept in the registers.
        guard let schema = container.schemas.values.first(where: { $0.storedName == key.model }),
          let id = keyValue(key.id, kind: schema.primaryKey.kind),
          case let (defaults, missing) = SyncVersions.defaults(
            schema, missingFrom: restored, container: container),
          missing.isEmpty
        else { continue }
        let columns = schema.columns.map(\.name).filter {
          $0 != schema.primaryKey.name && (restored.properties[$0] != nil || defaults[$0] != nil)
        }
        try db.run(
          "INSERT OR REPLACE INTO \(schema.quotedTable) "
            + "(\(([schema.primaryKey.name] + columns).map(quoteIdentifier).joined(separator: ", ")))"
            + " VALUES (?" + String(repeating: ", ?", count: columns.count) + ")",
          [id]
            + columns.compactMap { restored.properties[$0]?.value ?? defaults[$0] })
        changes[key.model, default: .init()].inserted.append(key.id)
      }
      guard !deletes.isEmpty else { continue }
      let named = denied.filter { $0.referrer != nil }.map { conflict in
        "\(conflict.model) `\(conflict.id)` (\(conflict.referrer ?? "") `\(conflict.existingID)` "
          + "refers to it with a .deny rule)"
      }
      let encoder = JSONEncoder()
      encoder.outputFormatting = .sortedKeys
      try db.run(
        "INSERT OR REPLACE INTO kura_sync_rejections (sequence, changes, code, status, reason, "
          + "date) VALUES (?, ?, ?, ?, ?, ?)",
        [
          .integer(sequence), .text(String(decoding: try encoder.encode(deletes), as: UTF8.self)),
          .text(SyncError.Code.rejected.rawValue), .integer(409),
          .text(
            "The server kept what save \(sequence) deleted: a model on another device refers to "
              + named.joined(separator: ", ")
              + ". The deleted models are back in this store; delete or change the referring "
              + "model first (or sync and delete it here), then delete them again."),
          .real(Date().timeIntervalSince1970),
        ])
    }
    return changes
  }
}
