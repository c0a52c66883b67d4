import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// A local save the sync server refused for a reason that sending it again can't change (a
/// save too large to send, a malformed one): set aside out of the outbox, with the reason, so
/// the saves after it still reach the server.
///
/// The save's changes stay in this store (its models keep the values it saved); they are not
/// on the server or on other devices. A save whose deletes the server denied (a model on
/// another device refers to a deleted one through a `.deny` reference; status 409) is listed
/// too: its other changes went through, and the deleted models are back in this store. Read the list with ``SyncEngine/rejections()``, resolve
/// each (save the models again in a form the server takes — smaller values, say — or accept
/// that they stay local), then forget it with ``SyncEngine/clearRejections()``.
///
/// For example:
///
/// ```swift
/// for rejection in try sync.rejections() {
///   print("save \(rejection.sequence) of \(rejection.models):", rejection.reason)
/// }
/// ```
public struct SyncRejection: Sendable, Hashable {
  /// The save's number in this replica's outbox.
  public var sequence: Int64
  /// The stored names of the models the save changed, such as `["Trip"]`.
  public var models: [String]
  /// The ids the save changed, as text.
  public var ids: [String]
  /// The server's HTTP status (400 for a malformed save, 413 for one too large, 409 for
  /// deletes the server denied).
  public var status: Int
  /// Why the server refused it and what to do, as the engine reported it.
  public var reason: String
  /// When it was set aside.
  public var date: Date
}

extension SyncEngine {
  /// The local saves the server refused for good, oldest first (kept in the store until
  /// ``clearRejections()``); see ``SyncRejection``.
  ///
  /// For example: `let refused = try sync.rejections()`.
  ///
  /// - Returns: The rejections.
  /// - Throws: ``StoreError`` when the store can't be read.
  public func rejections() throws -> [SyncRejection] {
    let rows = try container.pool.read { db in
      try db.query(
        "SELECT sequence, changes, status, reason, date FROM kura_sync_rejections "
          + "ORDER BY sequence"
      ) { row in
        (
          row.int64(at: 0), row.string(at: 1), Int(row.int64(at: 2)), row.string(at: 3),
          row.double(at: 4)
        )
      }
    }
    return rows.map { row in
      let changes = (try? SyncJSONReader.decodeChanges(row.1)) ?? []
      return SyncRejection(
        sequence: row.0, models: Array(Set(changes.map(\.model))).sorted(),
        ids: Array(Set(changes.map(\.id))).sorted(), status: row.2, reason: row.3,
        date: Date(timeIntervalSince1970: row.4))
    }
  }

  /// Forgets the rejections ``rejections()`` lists (their changes stay in the store's models).
  ///
  /// For example: `try sync.clearRejections()`.
  ///
  /// - Throws: ``StoreError`` when the store can't be written.
  public func clearRejections() throws {
    try container.pool.write { db in
      try db.run("DELETE FROM kura_sync_rejections")
    }
  }
}

extension SyncLocalStore {
  /// Moves a refused save out of the outbox into the rejections, leaving an empty save of its
  /// number in its place (sent as a withdrawn save, so the server's sequence has no gap).
  package static func reject(_ save: SyncSave, _ error: SyncError, _ db: StoreConnection) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    try db.run(
      "INSERT OR REPLACE INTO kura_sync_rejections (sequence, changes, code, status, reason, "
        + "date) VALUES (?, ?, ?, ?, ?, ?)",
      [
        .integer(save.sequence),
        .text(String(decoding: try encoder.encode(save.changes), as: UTF8.self)),
        .text(error.code.rawValue), .integer(Int64(error.status ?? 0)), .text(error.message),
        .real(Date().timeIntervalSince1970),
      ])
    try db.run(
      "UPDATE kura_sync_outbox SET changes = '[]' WHERE sequence = ?", [.integer(save.sequence)])
  }
}
