import Foundation
import KuraBase
import KuraSQLite

/// The one-time upgrade of a store written in format 1 to format 2, run inside the transaction
/// that opens the store. Format 1 only ever existed on SQLite: this is part of the SQLite engine
/// (``StoreConnection/upgradeStoreFormat(from:url:)``).
///
/// Format 2 changes how values are stored and ordered:
/// - `Date` columns hold `timeIntervalSinceReferenceDate` (Date's own value, so every date reads
///   back bit for bit) instead of seconds since 1970; stored dates are converted, giving exactly the
///   dates format 1 read back.
/// - The `kura_unicode` collation is a total order (the NFC forms' Unicode scalars); the indexes
///   built with the old one, which was not, are rebuilt with `REINDEX`.
/// - `Double` columns hold NaN and `-0.0` exactly (format 1 stored NaN as NULL and `-0.0` as 0,
///   which can't be recovered; their rows are left as they are).
/// - Text primary keys compare like Swift's `==` (`COLLATE kura_unicode`), as format 1 compared
///   them by bytes. A table with two ids that Swift calls equal refuses the upgrade here (for
///   every model the store records); the tables are rebuilt with the collation by the automatic
///   migration that follows in the same transaction (the store's migration sees the missing
///   collation).
package enum SQLiteFormatUpgrade {
  /// Upgrades the store behind `db` when its recorded format is 1; otherwise does nothing.
  ///
  /// - Throws: ``StoreError`` (a damaged model record) or ``SQLiteError``.
  package static func upgradeIfNeeded(_ db: Connection, url: URL?) throws {
    let format = try db.queryFirst(
      "SELECT value FROM kura_metadata WHERE key = 'storeFormat'"
    ) { $0.string(at: 0) }
    guard format == "1" else { return }
    let file = url.map { "`\($0.lastPathComponent)`" } ?? "in memory"
    let models = try db.query("SELECT model, table_name, columns FROM kura_models") {
      ($0.string(at: 0), $0.string(at: 1), $0.string(at: 2))
    }
    for (model, table, columnsText) in models {
      let columns = try StoreRecords.columns(columnsText, model: model, url: url, file: file)
      guard try SQLiteStoreEngine.tableExists(table, db) else { continue }
      for column in columns where column.kind == ColumnKind.date.rawValue {
        let name = quoteIdentifier(column.name)
        // Format 1 read a date as `Date(timeIntervalSince1970: v)`, which is
        // `Date(timeIntervalSinceReferenceDate: v - 978307200)`.
        try db.execute(
          "UPDATE \(quoteIdentifier(table)) SET \(name) = \(name) - 978307200.0 "
            + "WHERE typeof(\(name)) IN ('real', 'integer')")
      }
    }
    try checkTextKeys(db, url: url, file: file)
    try reindexText(db, url: url, file: file)
    try db.run(
      "UPDATE kura_metadata SET value = ? WHERE key = 'storeFormat'",
      [.text(String(StoreRecords.format))])
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
            "Can't upgrade store \(file) to format \(StoreRecords.format): `\(model)` has rows "
            + "whose unique `\(names)` are equal by Swift's `==` (such as `\(StoreRecords.escaped(equal))`), "
            + "which format 1 let in. Nothing was changed; open it with the previous version and "
            + "rename or delete one of them.")
      }
    }
  }

  /// Refuses the upgrade when a table's text primary key, compared by bytes until now, holds two
  /// ids that Swift's `==` calls equal.
  private static func checkTextKeys(_ db: Connection, url: URL?, file: String) throws {
    let tables = try db.query("SELECT model, table_name FROM kura_models") {
      ($0.string(at: 0), $0.string(at: 1))
    }
    for (model, table) in tables {
      let key = try db.queryFirst(
        "SELECT name FROM pragma_table_info(?) WHERE pk = 1 AND upper(type) = 'TEXT'",
        [.text(table)]
      ) { $0.string(at: 0) }
      guard let key, try primaryKeyCollation(table, db) != SwiftStringSQL.collation else {
        continue
      }
      try checkEquivalentKeys(db, model: model, table: table, key: key, url: url, file: file)
    }
  }

  /// The collation of a table's primary-key index (`BINARY` unless declared, lowercased for
  /// `kura_unicode`), or `nil` when the key is the rowid or there is none.
  package static func primaryKeyCollation(_ table: String, _ db: Connection) throws -> String? {
    let collation = try db.queryFirst(
      "SELECT x.coll FROM pragma_index_list(?) AS l, pragma_index_xinfo(l.name) AS x "
        + "WHERE l.origin = 'pk' AND x.key = 1 ORDER BY x.seqno LIMIT 1", [.text(table)]
    ) { $0.string(at: 0) }
    guard let collation else { return nil }
    return collation.lowercased() == SwiftStringSQL.collation ? SwiftStringSQL.collation : collation
  }

  /// Refuses when the table's text primary key `key` holds two ids that Swift's `==` calls equal
  /// (stored while the key compared bytes): they can't become one row without losing one.
  package static func checkEquivalentKeys(
    _ db: Connection, model: String, table: String, key: String, url: URL?, file: String
  ) throws {
    let equal = try equivalentKeys(table: table, key: key, db)
    guard !equal.isEmpty else { return }
    throw StoreRecords.equivalentKeysRefusal(
      model: model, key: key, equal: equal, url: url, file: file)
  }

  /// Up to 10 values of the text column `key` that `kura_unicode` calls equal to another value
  /// of it (the first such group).
  package static func equivalentKeys(table: String, key: String, _ db: Connection) throws
    -> [String]
  {
    let column = quoteIdentifier(key)
    let equal = try db.queryFirst(
      "SELECT json_group_array(\(column)) FROM (SELECT \(column) FROM \(quoteIdentifier(table)) "
        + "WHERE \(column) COLLATE \(SwiftStringSQL.collation) IN (SELECT \(column) FROM "
        + "\(quoteIdentifier(table)) GROUP BY \(column) COLLATE \(SwiftStringSQL.collation) "
        + "HAVING count(*) > 1 LIMIT 1) ORDER BY \(column) LIMIT 10)"
    ) { row -> [String] in
      (try? JSONDecoder().decode([String].self, from: Data(row.string(at: 0).utf8))) ?? []
    }
    return equal ?? []
  }
}
