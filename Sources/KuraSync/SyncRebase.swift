import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// A replica's rebase from the server's snapshot, when the server no longer keeps the log it
/// would pull (it was away longer than the space's retention window, or it is new to a space
/// whose log was compacted): the server answered 410 `rebaseRequired`.
///
/// The snapshot (the space's folded state, in pages) and then the log after its position are
/// staged like an initial sync (``SyncInitialSync``) and applied in one transaction, with the
/// replica's outbox kept and pushed afterwards on top:
///
/// - outbox saves the server says it applied already are dropped (their answer was lost);
/// - a model the replica had from the server that is in neither the snapshot nor the log was
///   deleted elsewhere and its tombstone compacted: it is deleted here too, and the replica's
///   unsent edits of it are listed in ``SyncEngine/conflicts()`` and dropped from the outbox
///   (a delete wins over edits of the same incarnation) — so it never comes back;
/// - a model the replica created and has not sent yet (recorded in `kura_sync_created` by the
///   save that opened its incarnation) is kept and sent;
/// - every other local value merges with the snapshot's by stamp, as any pulled change does.
package enum SyncRebase {
  package static let schemaSQL = """
    CREATE TABLE IF NOT EXISTS kura_sync_created (
      model TEXT NOT NULL, id TEXT NOT NULL, incarnation INTEGER NOT NULL, stamp TEXT NOT NULL,
      PRIMARY KEY (model, id, incarnation)) WITHOUT ROWID;
    """

  /// Whether the replica must rebase before it pushes or pulls again.
  package static func isRequired(_ db: StoreConnection) throws -> Bool {
    try SyncLocalStore.state("rebase", db) != nil
  }

  /// Starts a rebase (after a 410): forgets any staging under way and stages the snapshot next.
  package static func begin(_ db: StoreConnection) throws {
    try db.execute(SyncInitialSync.schemaSQL)
    try SyncInitialSync.forgetStaging(db)
    try SyncLocalStore.setState("rebase", "1", db)
  }

  /// Records that a local save opened `incarnation` of an id (the server doesn't know it until
  /// the save is acknowledged).
  package static func noteCreated(
    _ model: String, id: String, incarnation: Int64, stamp: SyncStamp, _ db: StoreConnection
  ) throws {
    // Bound in place (each save inserting a model runs it).
    let statement = try db.cachedStatementToRebind(noteCreatedSQL)
    try statement.bind(model, at: 1)
    try statement.bind(id, at: 2)
    try statement.bind(incarnation, at: 3)
    try statement.bind(stamp.text, at: 4)
    try statement.execute()
  }

  private static let noteCreatedSQL =
    "INSERT OR REPLACE INTO kura_sync_created (model, id, incarnation, stamp) VALUES (?, ?, ?, ?)"

  /// Forgets the creations of acknowledged saves (the server knows them).
  package static func forgetCreated(through stamp: SyncStamp, _ db: StoreConnection) throws {
    try db.run("DELETE FROM kura_sync_created WHERE stamp <= ?", [.text(stamp.text)])
  }

  // MARK: Staging the snapshot

  /// Where the snapshot's staging stands: the key to read after, or `nil` once it is read.
  package static func snapshotNext(_ db: StoreConnection) throws -> (model: String, id: String)? {
    guard try SyncLocalStore.state("snapshotDone", db) == nil else { return nil }
    return (
      try SyncLocalStore.state("snapshotModel", db) ?? "",
      try SyncLocalStore.state("snapshotID", db) ?? ""
    )
  }

  /// Keeps one snapshot page; after the last one, the log is pulled after its position.
  package static func stage(_ page: SyncSnapshotResponse, body: Data, _ db: StoreConnection) throws
  {
    if try SyncLocalStore.state("snapshotPosition", db) == nil {
      try SyncLocalStore.setState("snapshotPosition", String(page.position), db)
      try SyncLocalStore.setState("snapshotAcknowledged", String(page.acknowledged), db)
    }
    if !page.rows.isEmpty {
      try db.run(
        "INSERT INTO kura_sync_staging (page) VALUES (?)", [.blob(Data("S".utf8) + body)])
    }
    if let last = page.rows.last {
      try SyncLocalStore.setState("snapshotModel", last.model, db)
      try SyncLocalStore.setState("snapshotID", last.id, db)
    }
    if !page.more {
      try SyncLocalStore.setState("snapshotDone", "1", db)
      let position = try SyncLocalStore.state("snapshotPosition", db) ?? "0"
      try SyncLocalStore.setState("stagedThrough", position, db)
    }
  }

  // MARK: Applying

  /// The snapshot's rows as one save at its position, placed before the staged log saves.
  package static func snapshotSave(_ rows: [SyncSnapshotRow], _ db: StoreConnection) throws
    -> SyncLoggedSave
  {
    let position = Int64(try SyncLocalStore.state("snapshotPosition", db) ?? "0") ?? 0
    var changes: [SyncChange] = []
    for row in rows {
      guard let rowChanges = row.changes else {
        throw SyncError(
          .serverError,
          message:
            "The sync server's snapshot has a row (`\(row.model)` `\(row.id)`) with a stamp "
            + "that is not one; nothing was applied. Report it.")
      }
      changes += rowChanges
    }
    return SyncLoggedSave(position: position, replica: "", sequence: 0, changes: changes)
  }

  /// Settles the outbox against the snapshot before it is applied: drops the saves the server
  /// applied, deletes the models deleted elsewhere (returned as delete changes to apply) and
  /// takes their edits out of the outbox, listing them as conflicts.
  package static func reconcile(known: Set<SyncMergeState.Key>, _ db: StoreConnection) throws
    -> [SyncChange]
  {
    let acknowledged = Int64(try SyncLocalStore.state("snapshotAcknowledged", db) ?? "0") ?? 0
    let applied = try SyncLocalStore.outbox(limit: Int.max, db).filter {
      $0.sequence <= acknowledged
    }
    let latest = applied.flatMap(\.changes).map(\.stamp).max()
    try SyncLocalStore.acknowledge(through: acknowledged, latest: latest, db)
    let created = Set(
      try db.query("SELECT model, id, incarnation FROM kura_sync_created") {
        "\($0.string(at: 0))\u{0}\($0.string(at: 1))\u{0}\($0.int64(at: 2))"
      })
    let live = try db.query(
      "SELECT model, id, incarnation FROM kura_sync_records WHERE deleted IS NULL"
    ) { (SyncMergeState.Key(model: $0.string(at: 0), id: $0.string(at: 1)), $0.int64(at: 2)) }
    var gone: [SyncMergeState.Key: Int64] = [:]
    for (key, incarnation) in live
    where !known.contains(key) && !created.contains("\(key.model)\u{0}\(key.id)\u{0}\(incarnation)")
    {
      gone[key] = incarnation
    }
    let deletes = gone.sorted { $0.key < $1.key }.map { key, incarnation in
      SyncChange.delete(
        key.model, id: key.id, incarnation: incarnation,
        stamp: SyncStamp(
          wall: 0, counter: 0, replica: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        ))
    }
    try rewriteOutbox(after: acknowledged, dropping: gone, db)
    return deletes
  }

  /// Takes the changes of the ids in `gone` out of the outbox (listing each as a conflict lost
  /// to a delete) and numbers the saves left from `acknowledged + 1`, without gaps.
  private static func rewriteOutbox(
    after acknowledged: Int64, dropping gone: [SyncMergeState.Key: Int64], _ db: StoreConnection
  ) throws {
    let saves = try SyncLocalStore.outbox(limit: Int.max, db)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let now = Date().timeIntervalSince1970
    try db.run("DELETE FROM kura_sync_outbox")
    var next = acknowledged + 1
    for save in saves {
      var kept: [SyncChange] = []
      for change in save.changes {
        let key = SyncMergeState.Key(model: change.model, id: change.id)
        guard let incarnation = gone[key], change.incarnation <= incarnation else {
          kept.append(change)
          continue
        }
        try db.run(
          "INSERT INTO kura_sync_conflicts (model, id, property, lost, winner, date) "
            + "VALUES (?, ?, ?, ?, ?, ?)",
          [
            .text(change.model), .text(change.id), change.property.map { .text($0) } ?? .null,
            .text(String(decoding: try encoder.encode(change.value ?? .null), as: UTF8.self)),
            .text("deleted"), .real(now),
          ])
      }
      guard !kept.isEmpty else { continue }
      try db.run(
        "INSERT INTO kura_sync_outbox (sequence, changes) VALUES (?, ?)",
        [.integer(next), .text(String(decoding: try encoder.encode(kept), as: UTF8.self))])
      next += 1
    }
    try SyncLocalStore.setState("nextSequence", String(next), db)
  }
}
