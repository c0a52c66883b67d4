import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// The quarantine of a replica's store: the pulled changes it could not store, kept (and
/// listed by ``SyncEngine/quarantine()``) instead of stopping the pull.
///
/// Two kinds of entry:
/// - a change that does not fit this app's schema (``SyncAdmission``): not merged; it leaves
///   the quarantine when a later change of the same property (or the model's delete) arrives;
/// - a new model that lacks a property that is neither optional nor defaulted (or that its
///   table refused): its admitted values are merged but its row is not written; the entry is
///   tried again with each later change of the model, and leaves when the row is written.
package enum SyncQuarantine {
  package static let schemaSQL = """
    CREATE TABLE IF NOT EXISTS kura_sync_quarantine (
      number INTEGER PRIMARY KEY, model TEXT NOT NULL, id TEXT NOT NULL, property TEXT,
      replica TEXT NOT NULL, stamp TEXT NOT NULL, waiting INTEGER NOT NULL, reason TEXT NOT NULL,
      value TEXT, change TEXT, date REAL NOT NULL);
    CREATE UNIQUE INDEX IF NOT EXISTS kura_sync_quarantine_entry
      ON kura_sync_quarantine (model, id, waiting, coalesce(property, ''), stamp);
    """

  /// The ids with entries, by kind (`waiting`: models held back), read once per pull.
  package struct Held {
    package var refused: Set<SyncMergeState.Key> = []
    package var waiting: Set<SyncMergeState.Key> = []

    package init(_ db: StoreConnection) throws {
      // One query over an empty table in the usual case.
      for (key, waiting) in try db.query(
        "SELECT DISTINCT model, id, waiting FROM kura_sync_quarantine",
        row: {
          (SyncMergeState.Key(model: $0.string(at: 0), id: $0.string(at: 1)), $0.int64(at: 2))
        })
      {
        if waiting == 0 { refused.insert(key) } else { self.waiting.insert(key) }
      }
    }
  }

  /// Puts a refused change in the quarantine (once: pulled again, it is the same entry).
  package static func refuse(
    _ change: SyncChange, sender: String, reason: String, _ db: StoreConnection
  ) throws {
    try db.run(
      "INSERT OR IGNORE INTO kura_sync_quarantine (model, id, property, replica, stamp, waiting, "
        + "reason, value, change, date) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)",
      [
        .text(change.model), .text(change.id), change.property.map { .text($0) } ?? .null,
        .text(sender), .text(change.stamp.text), .text(reason),
        change.deleted ? .null : .text(json(change.value ?? .null)),
        .text(String(decoding: try encoder.encode(change), as: UTF8.self)),
        .real(Date().timeIntervalSince1970),
      ])
  }

  /// Drops the refused changes of `property` (all of the id's when `nil`: it was deleted): an
  /// admitted change of it came after them in the log, so every replica pulling the log drops
  /// them at the same point (whatever their stamps: they never entered the merge).
  package static func supersede(_ key: SyncMergeState.Key, property: String?, _ db: StoreConnection)
    throws
  {
    if let property {
      try db.run(
        "DELETE FROM kura_sync_quarantine WHERE model = ? AND id = ? AND waiting = 0 "
          + "AND property = ?",
        [.text(key.model), .text(key.id), .text(property)])
    } else {
      try db.run(
        "DELETE FROM kura_sync_quarantine WHERE model = ? AND id = ?",
        [.text(key.model), .text(key.id)])
    }
  }

  /// Holds a model back: one entry per reason (a missing property each), replacing the ones
  /// an earlier pull left.
  package static func hold(
    _ key: SyncMergeState.Key, record: SyncRecordState, reasons: [(String?, String)],
    _ db: StoreConnection
  ) throws {
    try release(key, db)
    let latest = record.latestStamp ?? SyncStamp(wall: 0, counter: 0, replica: UUID())
    let sender = SyncStamp.hex(latest.replica)
    for (property, reason) in reasons {
      try db.run(
        "INSERT OR IGNORE INTO kura_sync_quarantine (model, id, property, replica, stamp, "
          + "waiting, reason, value, change, date) VALUES (?, ?, ?, ?, ?, 1, ?, ?, NULL, ?)",
        [
          .text(key.model), .text(key.id), property.map { .text($0) } ?? .null, .text(sender),
          .text(latest.text), .text(reason),
          .text(json(record.properties.mapValues(\.value))),
          .real(Date().timeIntervalSince1970),
        ])
    }
  }

  /// Ends a model's hold (its row was written, or it was deleted).
  package static func release(_ key: SyncMergeState.Key, _ db: StoreConnection) throws {
    try db.run(
      "DELETE FROM kura_sync_quarantine WHERE model = ? AND id = ? AND waiting = 1",
      [.text(key.model), .text(key.id)])
  }

  /// How many entries the quarantine holds.
  package static func count(_ db: StoreConnection) throws -> Int {
    Int(try db.queryFirst("SELECT count(*) FROM kura_sync_quarantine") { $0.int64(at: 0) } ?? 0)
  }

  /// Every entry, oldest first.
  package static func entries(_ db: StoreConnection) throws -> [SyncQuarantinedChange] {
    try db.query(
      "SELECT model, id, property, replica, waiting, reason, value, date "
        + "FROM kura_sync_quarantine ORDER BY number"
    ) { row in
      SyncQuarantinedChange(
        kind: row.int64(at: 4) == 0 ? .refused : .waiting, model: row.string(at: 0),
        id: row.string(at: 1), property: row.isNull(at: 2) ? nil : row.string(at: 2),
        replica: row.string(at: 3), reason: row.string(at: 5),
        value: row.isNull(at: 6) ? nil : row.string(at: 6),
        date: Date(timeIntervalSince1970: row.double(at: 7)))
    }
  }

  private static var encoder: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return encoder
  }

  /// A value (or values) as the wire's JSON.
  private static func json(_ value: some Encodable) -> String {
    (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
  }
}
