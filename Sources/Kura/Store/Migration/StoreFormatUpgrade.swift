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
    try reindexText(db, url: url, file: file)
    try db.run(
      "UPDATE kura_metadata SET value = ? WHERE key = 'storeFormat'",
      [.text(String(StoreSetup.storeFormat))])
  }

  /// Rebuilds every index that uses `kura_unicode`. A unique index whose rows format 1 let in
  /// although Swift's `==` calls them equal (canonically equivalent text) can't be rebuilt: the
  /// upgrade is refused, naming the values, and the transaction leaves the store as it was.
  private static func reindexText(_ db: Connection, url: URL?, file: String) throws {
    let indexes = try db.query(
      "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql LIKE ?",
      [.text("%" + SwiftStringSQL.collation + "%")]
    ) { ($0.string(at: 0), $0.string(at: 1)) }
    for (index, table) in indexes {
      do {
        try db.execute("REINDEX \(quoteIdentifier(index))")
      } catch let error as SQLiteError where error.code == .constraint {
        let columns = try db.query("SELECT name FROM pragma_index_info(?)", [.text(index)]) {
          $0.string(at: 0)
        }
        let grouped = columns.map { quoteIdentifier($0) + " COLLATE " + SwiftStringSQL.collation }
        let equal =
          try db.queryFirst(
            "SELECT \(columns.map(quoteIdentifier).joined(separator: " || ', ' || ")) FROM "
              + "\(quoteIdentifier(table)) GROUP BY \(grouped.joined(separator: ", ")) "
              + "HAVING count(*) > 1 LIMIT 1"
          ) { $0.string(at: 0) } ?? ""
        let model =
          try db.queryFirst(
            "SELECT model FROM kura_models WHERE table_name = ?", [.text(table)]
          ) { $0.string(at: 0) } ?? table
        let names = columns.joined(separator: "`, `")
        throw StoreError(
          .migrationRefused, model: model, url: url, underlying: error,
          message:
            "Can't upgrade store \(file) to format \(StoreSetup.storeFormat): `\(model)` has rows "
            + "whose unique `\(names)` are equal by Swift's `==` (such as `\(escaped(equal))`), "
            + "which format 1 let in. Nothing was changed; open it with the previous version and "
            + "rename or delete one of them.")
      }
    }
  }

  /// `text` with every scalar outside ASCII written as `\u{…}`, so equivalent forms differ.
  private static func escaped(_ text: String) -> String {
    text.unicodeScalars.map { scalar in
      scalar.isASCII
        ? String(scalar) : "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }.joined()
  }
}
