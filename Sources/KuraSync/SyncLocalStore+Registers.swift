import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// The registers' layout of stores made by earlier versions: a row per property in
/// `kura_sync_registers` (each save wrote, and each save with a live id read, a row per
/// property), folded into the `registers` BLOB of each id's `kura_sync_records` row
/// (``SyncRecordState/compactRegisters(_:)``) when such a store opens with sync on.
extension SyncLocalStore {
  /// Gives `kura_sync_records` its `registers` column and moves every register of
  /// `kura_sync_registers` into it, then drops that table; in the transaction of the open's
  /// preparation (``SyncSettings/prepare(_:)``), so a store is upgraded whole or not at all. A
  /// store made now has neither to do: one query per open finds that out.
  ///
  /// An earlier version of Kura that opens the store afterwards makes an empty
  /// `kura_sync_registers` again and does not see the folded registers: upgrading is one way.
  package static func foldRegisters(_ db: StoreConnection) throws {
    let columns = try db.query("SELECT name FROM pragma_table_info('kura_sync_records')") {
      $0.string(at: 0)
    }
    if !columns.contains("registers") {
      try db.execute("ALTER TABLE kura_sync_records ADD COLUMN registers BLOB")
    }
    guard
      try db.queryFirst(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kura_sync_registers'",
        row: { _ in true }) ?? false
    else { return }
    let rows = try db.query(
      "SELECT model, id, property, value, stamp FROM kura_sync_registers "
        + "ORDER BY model, id, property"
    ) { ($0.string(at: 0), $0.string(at: 1), $0.string(at: 2), $0.value(at: 3), $0.string(at: 4)) }
    var start = 0
    while start < rows.count {
      var end = start
      var registers: [(property: String, register: SyncRecordState.Register)] = []
      while end < rows.count, rows[end].0 == rows[start].0, rows[end].1 == rows[start].1 {
        // A register whose stamp is not one (never written so) is dropped, as reading it was.
        if let stamp = SyncStamp(text: rows[end].4) {
          registers.append((rows[end].2, .init(value: rows[end].3, stamp: stamp)))
        }
        end += 1
      }
      // The registers of an id with no record (never written so) stay unread, as they were
      // when nothing had its incarnation.
      try db.run(
        "UPDATE kura_sync_records SET registers = ? WHERE model = ? AND id = ?",
        [
          .blob(Data(SyncRecordState.compactRegisters(registers))), .text(rows[start].0),
          .text(rows[start].1),
        ])
      start = end
    }
    try db.execute("DROP TABLE kura_sync_registers")
  }
}
