import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// Local saves, recorded for sync from the store's history rather than in the save: a save with
/// sync on writes what a save with it off writes (its rows and its history row) and nothing
/// else, and the saves the history holds after the token recorded last (`syncOffChecked` in
/// `kura_sync_state`, the name earlier versions gave it) are stamped and added to the outbox
/// later, in one transaction, by ``recordLocalSaves(container:db:)``. It runs before anything
/// sync reads or changes the outbox or the registers with: before a push, at the start of each
/// pull's transaction and of a push answer's, and when an engine starts. Sync's own history rows
/// (pulled and settled saves) move the token past themselves (``recordHistory(_:container:db:)``),
/// so they are never sent back.
///
/// - Each history save is recorded as a save was recorded before (``recordSave(_:container:db:at:)``,
///   one outbox entry, stamped at the history row's time): each id at the last of those saves
///   that touched it, with the values its row holds now (intermediate values of an id saved
///   several times between two pushes are not sent: its last ones are, at its last save's stamp),
///   and every delete where it was saved (an id deleted and made again opens a new
///   incarnation).
/// - Edits made with sync off (a container opened without sync settings) are in the history as
///   any save is, and are recorded the same way. A row saved before sync was turned on has no
///   record; SyncLocalStore+Adoption.swift uploads it.
/// - A synced container's saves keep the history after the token, whatever the retention says
///   (``SyncSettings/keptHistory(_:)``). When the history after it was trimmed all the same (by a
///   container opened without sync, or the token was never set on a store that has records),
///   every row is compared with its registers instead: a property whose value differs from its
///   register is stamped now, a row gone from its table whose record is live is deleted, and a
///   row with no record is uploaded as new.
/// - A store with history off (``HistoryRetention/off``) records each save in the save, as
///   before.
///
/// A store an earlier version wrote upgrades in place: its saves were recorded in the save (the
/// registers equal the rows, the outbox holds them in the same form), so recording the history
/// after its token adds nothing, and its outbox is pushed as it is.
extension SyncLocalStore {
  /// The `kura_sync_state` key of the last history token recorded for sync.
  package static let recordedTokenKey = "syncOffChecked"

  /// Records the local saves the history holds after the token recorded last (see above), and
  /// moves the token to the latest save.
  ///
  /// - Returns: Whether a save was added to the outbox.
  @discardableResult
  package static func recordLocalSaves(container: ModelContainer, db: StoreConnection) throws
    -> Bool
  {
    let latest = try ChangeHistory.latestToken(db)
    let checked = try state(recordedTokenKey, db).flatMap { Int64($0) }
    if let checked, checked >= latest.rawValue { return false }
    let before = try outboxCount(db)
    if let checked, try ChangeHistory.isKept(after: HistoryToken(rawValue: checked), in: db) {
      let saves = try ChangeHistory.changeSets(
        since: HistoryToken(rawValue: checked), below: try ChangeHistory.horizon(db), in: db
      ).filter { $0.token.rawValue <= latest.rawValue }
      try record(saves, container: container, db: db)
    } else {
      try recordEveryDifference(container: container, db: db)
    }
    try setState(recordedTokenKey, String(latest.rawValue), db)
    return try outboxCount(db) > before
  }

  /// Whether the history holds saves not recorded for sync yet (a read, for a caller that would
  /// otherwise open a write transaction for nothing).
  package static func hasUnrecordedSaves(_ db: StoreConnection) throws -> Bool {
    guard let checked = try state(recordedTokenKey, db).flatMap({ Int64($0) }) else {
      return try db.queryFirst("SELECT 1 FROM kura_history LIMIT 1") { _ in true } ?? false
    }
    return try ChangeHistory.latestToken(db).rawValue > checked
  }

  /// How many history saves are not recorded for sync yet (each becomes at most one outbox
  /// entry).
  package static func unrecordedSaveCount(_ db: StoreConnection) throws -> Int {
    guard let checked = try state(recordedTokenKey, db).flatMap({ Int64($0) }) else { return 0 }
    return Int(
      try db.queryFirst(
        "SELECT count(*) FROM kura_history WHERE token > ?", [.integer(checked)]
      ) { $0.int64(at: 0) } ?? 0)
  }

  /// Moves the recorded token to the latest history save: sync wrote it itself (a pulled or
  /// settled save), after recording every local save before it in the same transaction.
  package static func skipOwnHistory(_ token: HistoryToken, _ db: StoreConnection) throws {
    try setState(recordedTokenKey, String(token.rawValue), db)
  }

  /// Sets the recorded token of a store that never had one and holds no sync records: the
  /// history before now is of saves made before sync (their rows are adopted), not edits of
  /// synced rows.
  package static func startRecordingHistory(_ db: StoreConnection) throws {
    guard try state(recordedTokenKey, db) == nil,
      try db.queryFirst("SELECT 1 FROM kura_sync_records LIMIT 1", row: { _ in true }) == nil
    else { return }
    try setState(recordedTokenKey, String(try ChangeHistory.latestToken(db).rawValue), db)
  }

  /// Records history saves in order, each id at the last save that touched it, every delete
  /// where it was made.
  private static func record(
    _ saves: [ChangeSet], container: ModelContainer, db: StoreConnection
  ) throws {
    var lastTouch: [SyncMergeState.Key: Int] = [:]
    for (index, save) in saves.enumerated() {
      for (model, changes) in save.changes {
        for id in changes.inserted { lastTouch[.init(model: model, id: id)] = index }
        for id in changes.updated { lastTouch[.init(model: model, id: id)] = index }
        for id in changes.deleted { lastTouch[.init(model: model, id: id)] = index }
      }
    }
    for (index, save) in saves.enumerated() {
      var kept: [String: ChangeSet.ModelChanges] = [:]
      for (model, changes) in save.changes {
        let last = { (id: String) in lastTouch[.init(model: model, id: id)] == index }
        let recorded = ChangeSet.ModelChanges(
          inserted: changes.inserted.filter(last), updated: changes.updated.filter(last),
          deleted: changes.deleted)
        if !recorded.isEmpty { kept[model] = recorded }
      }
      guard !kept.isEmpty else { continue }
      try recordSave(
        ChangeSet(token: save.token, date: save.date, changes: kept), container: container,
        db: db, at: save.date)
    }
  }

  /// Compares every row of every model with its registers and records what differs as one save
  /// (the history that would say what changed is gone).
  private static func recordEveryDifference(container: ModelContainer, db: StoreConnection)
    throws
  {
    let touched = try everyRowAndRecord(container: container, db: db)
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
    try recordSave(
      ChangeSet(token: HistoryToken(rawValue: 0), date: Date(), changes: found),
      container: container, db: db)
    // Rows made in the saves whose history is gone have no record: uploaded as new.
    try uploadRowsSavedBeforeSync(container: container, db: db)
  }

  /// Enqueues the edits made with sync off since the last check: the local saves of the
  /// history, recorded (``recordLocalSaves(container:db:)``).
  ///
  /// - Returns: Whether a save was added to the outbox (`false` when nothing had changed).
  @discardableResult
  package static func enqueueEditsMadeWithSyncOff(container: ModelContainer, db: StoreConnection)
    throws
    -> Bool
  {
    try recordLocalSaves(container: container, db: db)
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
