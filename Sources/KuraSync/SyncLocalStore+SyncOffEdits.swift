import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// Edits made with sync off to rows that were synced before: a container opened without sync
/// settings saves (its store history records the save, no sync bookkeeping), and later the
/// store is opened with sync again. A sync engine starting on the store finds those edits and
/// sends them once:
///
/// - it reads the store's history after the token it checked last (`syncOffChecked` in
///   `kura_sync_state`), and compares each saved row with its sync registers: a row with a
///   property whose value differs from its register is enqueued as a save would enqueue it
///   (what differs, stamped at that moment), a row gone from its table whose record is live is
///   enqueued as a delete. A column no register holds (one a migration added) is not an edit. A save made with sync on, or a pulled one, left
///   its registers equal to its row, so it adds nothing and is never sent twice;
/// - when the history after that token was trimmed meanwhile (or the store has never been
///   checked), it compares every row of every model instead;
/// - the comparison, the outbox entries and the new token commit in one transaction.
extension SyncLocalStore {
  /// Enqueues the edits made with sync off since the last check (see above), as one save.
  ///
  /// - Returns: Whether a save was added to the outbox (`false` when nothing had changed).
  @discardableResult
  package static func enqueueEditsMadeWithSyncOff(container: ModelContainer, db: StoreConnection)
    throws
    -> Bool
  {
    let latest = try ChangeHistory.latestToken(db)
    let checked = try state("syncOffChecked", db).flatMap { Int64($0) }
    var touched: [String: ChangeSet.ModelChanges] = [:]
    if let checked, try ChangeHistory.isKept(after: HistoryToken(rawValue: checked), in: db) {
      let saves = try ChangeHistory.changeSets(
        since: HistoryToken(rawValue: checked), below: try ChangeHistory.horizon(db), in: db)
      for save in saves where save.token.rawValue <= latest.rawValue {
        for (model, changes) in save.changes {
          touched[model, default: .init()].updated += changes.inserted + changes.updated
          touched[model, default: .init()].updated += changes.deleted
        }
      }
    } else {
      touched = try everyRowAndRecord(container: container, db: db)
    }
    let parked = Set(try parked(db))
    var found: [String: ChangeSet.ModelChanges] = [:]
    for schema in container.schemas.values {
      let model = schema.storedName
      guard let listed = touched[model] else { continue }
      var changes = ChangeSet.ModelChanges()
      for id in Set(listed.updated).sorted() {
        let key = SyncMergeState.Key(model: model, id: id)
        // A model with no record is a row saved before sync: SyncLocalStore+Adoption.swift
        // uploads it. A parked one waits out of its table for the model it refers to.
        guard !parked.contains(key), let stored = keyValue(id, kind: schema.primaryKey.kind)
        else { continue }
        let record = try record(key, db)
        guard record.isLive else { continue }
        guard let values = try rowValues(schema, id: stored, db) else {
          changes.deleted.append(id)
          continue
        }
        // Only a property the registers hold can have been edited: one they lack is a
        // column a migration added (its default is not an edit, and another device's value
        // of it may come).
        if values.contains(where: { column, value in
          column != schema.primaryKey.name
            && record.properties[column].map { $0.value != value } ?? false
        }) {
          changes.updated.append(id)
        }
      }
      if !changes.isEmpty { found[model] = changes }
    }
    let before = try pendingCount(db)
    try recordSave(
      ChangeSet(token: HistoryToken(rawValue: 0), date: Date(), changes: found),
      container: container, db: db)
    try setState("syncOffChecked", String(latest.rawValue), db)
    return try pendingCount(db) > before
  }

  /// Every row of every model, and every live record, as updated ids: the full comparison.
  private static func everyRowAndRecord(container: ModelContainer, db: StoreConnection) throws
    -> [String: ChangeSet.ModelChanges]
  {
    var all: [String: ChangeSet.ModelChanges] = [:]
    for schema in container.schemas.values {
      let model = schema.storedName
      let rows = try db.query(
        "SELECT \(quoteIdentifier(schema.primaryKey.name)) FROM \(schema.quotedTable)"
      ) { idText($0.value(at: 0)) }
      let records = try db.query(
        "SELECT id FROM kura_sync_records WHERE model = ? AND deleted IS NULL", [.text(model)]
      ) { $0.string(at: 0) }
      all[model, default: .init()].updated = rows + records
    }
    return all
  }
}
