import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSync
import KuraSyncCore

/// The last step of an initial sync without a server, for `kura-bench sync --profile pull`
/// (scripts/check-speed counts its instructions): pages of pulled saves staged as the engine
/// stages a server's answers, then applied in one transaction as the engine applies them.
///
/// For example:
///
/// ```swift
/// try SyncPullBenchmark.stage(model: "Trip", rows: rows, rowsPerSave: 10, in: container)
/// try SyncPullBenchmark.applyStaged(in: container)
/// ```
enum SyncPullBenchmark {
  /// Stages the saves of another replica inserting `rows` models of `model` (`rowsPerSave` to
  /// a save), cut into pages as a server cuts them and written by its page writer
  /// (`SyncPageWriter`), in a synced store that has not pulled anything yet.
  ///
  /// - Parameters:
  ///   - model: The model's stored name.
  ///   - rows: Each model's id text and its properties' values (the id column left out).
  ///   - rowsPerSave: How many models each save inserts.
  ///   - container: A container of a synced SQLite store (no engine running).
  /// - Throws: ``StoreError`` when the store can't be written.
  static func stage(
    model: String, rows: [(id: String, values: [(String, DatabaseValue)])], rowsPerSave: Int,
    in container: ModelContainer
  ) throws {
    let replica = UUID()
    let replicaText = SyncStamp.hex(replica)
    var saves: [SyncLoggedSave] = []
    for start in stride(from: 0, to: rows.count, by: max(1, rowsPerSave)) {
      let stamp = SyncStamp(
        wall: 1_700_000_000_000 + UInt64(saves.count), counter: 0, replica: replica)
      var changes: [SyncChange] = []
      for row in rows[start..<min(start + max(1, rowsPerSave), rows.count)] {
        for (property, value) in row.values {
          changes.append(
            .set(
              model, id: row.id, incarnation: 1, property: property, to: value,
              stamp: stamp))
        }
      }
      let number = Int64(saves.count + 1)
      saves.append(
        SyncLoggedSave(position: number, replica: replicaText, sequence: number, changes: changes))
    }
    let head = Int64(saves.count)
    // The log keeps each save's changes as the server encoded them, keys sorted.
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    var pages: [Data] = []
    var index = 0
    while index < saves.count {
      // As the server cuts a page: at most `maximumSaves` saves, ending at the save that
      // reaches `maximumChanges` changes.
      var page = SyncPageWriter()
      var changes = 0
      while index < saves.count, page.saves < SyncPullResponse.maximumSaves,
        changes < SyncPullResponse.maximumChanges
      {
        let save = saves[index]
        page.append(
          changes: String(decoding: try encoder.encode(save.changes), as: UTF8.self),
          position: save.position, replica: save.replica, sequence: save.sequence)
        changes += save.changes.count
        index += 1
      }
      pages.append(page.page(head: head))
    }
    try container.pool.write { db in
      try db.execute(SyncInitialSync.schemaSQL)
      for body in pages {
        guard let summary = SyncInitialSync.PageSummary(body: body) else {
          throw SyncError.notAnAnswer(to: "pull", from: nil)
        }
        _ = try SyncInitialSync.stage(summary, body: body, db)
      }
    }
  }

  /// Applies the staged pages in one transaction, as an initial sync's last step does (its
  /// readers see none of it, then all of it).
  ///
  /// - Parameter container: The container ``stage(model:rows:rowsPerSave:in:)`` staged in.
  /// - Throws: ``StoreError``, or ``SyncError`` for a staged page that doesn't decode.
  static func applyStaged(in container: ModelContainer) throws {
    let changes = try container.pool.write { db in
      try SyncInitialSync.applyStaged(container: container, db: db)
    }
    if !changes.isEmpty { container.hub.didSave() }
  }
}
