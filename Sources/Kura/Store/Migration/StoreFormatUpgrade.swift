import Foundation

/// The one-time upgrade of a store written in format 1 to format 2, run inside the transaction
/// that opens the store.
///
/// Format 2 changes how values are stored and ordered:
/// - `Date` columns hold `timeIntervalSinceReferenceDate` (Date's own value, so every date reads
///   back bit for bit) instead of seconds since 1970; stored dates are converted, giving exactly the
///   dates format 1 read back.
/// - The `kura_unicode` collation is a total order (the NFC forms' Unicode scalars); the indexes
///   built with the old one, which was not, are rebuilt with `REINDEX`.
/// - `Double` columns hold NaN and `-0.0` exactly (format 1 stored NaN as NULL and `-0.0` as 0,
///   which can't be recovered; their rows are left as they are).
enum StoreFormatUpgrade {
  /// Upgrades the store behind `db` when its recorded format is 1; otherwise does nothing.
  ///
  /// - Throws: ``StoreError`` (a damaged model record) or ``SQLiteError``.
  static func upgradeIfNeeded(_ db: Connection, url: URL?) throws {
    let format = try db.queryFirst(
      "SELECT value FROM kura_metadata WHERE key = 'storeFormat'"
    ) { $0.string(at: 0) }
    guard format == "1" else { return }
    let file = url.map { "`\($0.lastPathComponent)`" } ?? "in memory"
    let models = try db.query("SELECT model, table_name, columns FROM kura_models") {
      ($0.string(at: 0), $0.string(at: 1), $0.string(at: 2))
    }
    for (model, table, columnsText) in models {
      let columns = try StoreSetup.recordedColumns(
        columnsText, model: model, url: url, file: file)
      let tableExists =
        try db.queryFirst(
          "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)]
        ) { _ in true } ?? false
      guard tableExists else { continue }
      for column in columns where column.kind == ColumnKind.date.rawValue {
        let name = quoteIdentifier(column.name)
        // Format 1 read a date as `Date(timeIntervalSince1970: v)`, which is
        // `Date(timeIntervalSinceReferenceDate: v - 978307200)`.
        try db.execute(
          "UPDATE \(quoteIdentifier(table)) SET \(name) = \(name) - 978307200.0 "
            + "WHERE typeof(\(name)) IN ('real', 'integer')")
      }
    }
    try db.execute("REINDEX \(SwiftStringSQL.collation)")
    try db.run(
      "UPDATE kura_metadata SET value = ? WHERE key = 'storeFormat'",
      [.text(String(StoreSetup.storeFormat))])
  }
}
