import Foundation
import KuraBase
import KuraSQLite

/// The SQLite engine of the model store: the SQL and the steps only SQLite has, behind
/// ``StoreEngine``, ``StoreConnection`` and ``StorePool`` (see ``StoreEngine`` for the contract).
///
/// SQLite specifics the store relies on: `sqlite_master` and the `pragma_*` table functions for
/// introspection; `INTEGER PRIMARY KEY` as the rowid (so an integer id is the row the update hook
/// reports, and `kura_history`'s token grows by itself); the `kura_unicode` collation and the
/// `kura_*` functions every ``Connection`` registers (``SwiftStringSQL``); `json_each` to bind many
/// values as one parameter; `PRAGMA foreign_keys` off while tables are rebuilt.
///
/// Its static methods take the driver's ``Connection``; the instance is the engine's
/// ``StoreEngine`` conformance (``SQLiteStorePool/engine``).
package struct SQLiteStoreEngine: SearchingEngine, StaticEngineSQL, EngineIntrospection {
  /// The dialect (it holds no state).
  package init() {}

  package typealias SearchSQL = SQLiteSearchIndex
  package typealias Driver = Connection
  // MARK: DDL

  /// The declared type of a column holding `kind`.
  package static func columnType(_ kind: ColumnKind) -> String {
    switch kind {
    case .integer, .bool: return "INTEGER"
    case .real, .date: return "REAL"
    case .text, .uuid, .url, .json: return "TEXT"
    case .blob: return "BLOB"
    }
  }

  /// The kind of values a column of a table Kura did not record holds, from its declared type.
  package static func columnKind(ofDeclaredType type: String) -> ColumnKind? {
    switch type.uppercased() {
    case "INTEGER": return .integer
    case "REAL": return .real
    case "TEXT": return .text
    case "BLOB": return .blob
    default: return nil
    }
  }

  /// `"id" TEXT NOT NULL COLLATE kura_unicode PRIMARY KEY` for a text key (ids Swift calls equal
  /// are one row), `"id" INTEGER NOT NULL PRIMARY KEY` (the rowid) for an integer key.
  package static func primaryKeyDefinition(_ schema: ModelSchema) -> String {
    SQLiteStoreEngine().columnDefinition(schema.primaryKey)
      + (schema.keyComparesLikeSwift ? " COLLATE " + SwiftStringSQL.collation : "")
      + " PRIMARY KEY"
  }

  /// `INSERT … ON CONFLICT (id) DO UPDATE …`, plus one upsert clause per unique attribute (SQLite
  /// takes several), so an insert whose unique values match a stored row updates that row (which
  /// keeps its id).
  package static func upsertSQL(
    table: String, columns: [ColumnSchema], primaryKeyIndex: Int, uniqueConstraints: [[Int]]
  ) -> String {
    let names = columns.map { quoteIdentifier($0.name) }
    let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
    var sql =
      "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(placeholders))"
    let others = names.enumerated().filter { $0.offset != primaryKeyIndex }.map(\.element)
    let update =
      others.isEmpty
      ? "DO NOTHING"
      : "DO UPDATE SET " + others.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    sql += " ON CONFLICT (\(names[primaryKeyIndex])) \(update)"
    for constraint in uniqueConstraints {
      sql +=
        " ON CONFLICT (\(StoreSQL.indexedColumns(columns, constraint, dialect: SQLiteDialect()))) "
        + update
    }
    return sql
  }

  /// `kura_history`: the token is the rowid, so it grows by itself (the newest row is never
  /// deleted, so a token is never handed out twice).
  package static let historyTableSQL = """
    CREATE TABLE IF NOT EXISTS kura_history (token INTEGER PRIMARY KEY, \
    time REAL NOT NULL, models TEXT NOT NULL, changes TEXT NOT NULL)
    """

  /// A value written into SQL, valid for every value but NaN (which SQLite stores as NULL):
  /// infinities as overflowing literals, text with NUL characters as bytes.
  package static func literal(_ value: DatabaseValue) -> String? {
    switch value {
    case .real(let number) where number.isNaN: return nil
    case .real(let number) where number.isInfinite: return number > 0 ? "9e999" : "-9e999"
    case .real(let number): return "\(number)"
    case .text(let text) where text.utf8.contains(0):
      return "CAST(x'" + text.utf8.map { String(format: "%02x", $0) }.joined() + "' AS TEXT)"
    default: return value.description
    }
  }

  // MARK: Introspection

  package static func tableExists(_ name: String, _ db: Connection) throws -> Bool {
    try db.queryFirst(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]
    ) { _ in true } ?? false
  }

  package static func schemaObjects(_ db: Connection) throws -> [(kind: String, name: String)] {
    try db.query(
      "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
    ) { (kind: $0.string(at: 0), name: $0.string(at: 1)) }
  }

  package static func tableColumns(_ table: String, _ db: Connection) throws -> [StoreColumnInfo] {
    try db.query(
      "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?)", [.text(table)]
    ) { row in
      StoreColumnInfo(
        name: row.string(at: 0), type: row.string(at: 1), notNull: row.int64(at: 2) != 0,
        primaryKey: row.int64(at: 3) != 0)
    }
  }

  package static func foreignKeys(_ table: String, _ db: Connection) throws -> [StoreForeignKey] {
    try db.query(
      "SELECT \"from\", \"table\", \"to\", on_delete FROM pragma_foreign_key_list(?)",
      [.text(table)]
    ) { row in
      StoreForeignKey(
        column: row.string(at: 0), targetTable: row.string(at: 1),
        targetColumn: row.isNull(at: 2) ? nil : row.string(at: 2),
        onDelete: row.string(at: 3).uppercased())
    }
  }

  package static func indexes(_ table: String, _ db: Connection) throws -> [StoreIndexInfo] {
    let list = try db.query(
      "SELECT name, \"unique\", origin FROM pragma_index_list(?) ORDER BY name", [.text(table)]
    ) { row in (row.string(at: 0), row.int64(at: 1) != 0, row.string(at: 2)) }
    return try list.filter { $0.2 != "pk" }.map { index in
      StoreIndexInfo(
        name: index.0, unique: index.1,
        columns: try db.query(
          "SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(index.0)]
        ) { $0.string(at: 0) })
    }
  }

  /// The indexes created by `CREATE INDEX` statements, with that statement (what `sqlite_master`
  /// keeps, exactly as written).
  package static func indexDefinitions(_ table: String, _ db: Connection) throws
    -> [(name: String, sql: String)]
  {
    try db.query(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT "
        + "NULL",
      [.text(table)]
    ) { (name: $0.string(at: 0), sql: $0.string(at: 1)) }
  }

  package static func foreignKeyViolations(_ db: Connection) throws -> [StoreForeignKeyViolation] {
    try db.query("PRAGMA foreign_key_check") { row in
      StoreForeignKeyViolation(table: row.string(at: 0), target: row.string(at: 2))
    }
  }

  package static func firstDanglingReference(in table: String, primaryKey: String, _ db: Connection)
    throws -> StoreDanglingReference?
  {
    let problem = try db.queryFirst(
      "SELECT rowid, fkid FROM pragma_foreign_key_check(?) LIMIT 1", [.text(table)]
    ) { ($0.int64(at: 0), $0.int64(at: 1)) }
    guard let (rowID, foreignKey) = problem else { return nil }
    let link = try db.queryFirst(
      "SELECT \"from\", \"table\" FROM pragma_foreign_key_list(?) WHERE id = ?",
      [.text(table), .integer(foreignKey)]
    ) { ($0.string(at: 0), $0.string(at: 1)) }
    guard let (column, target) = link else { return nil }
    let values = try db.queryFirst(
      "SELECT \(quoteIdentifier(primaryKey)), \(quoteIdentifier(column)) FROM "
        + "\(quoteIdentifier(table)) WHERE rowid = ?", [.integer(rowID)]
    ) { ($0.value(at: 0), $0.value(at: 1)) }
    let (key, missing) = values ?? (.null, .null)
    return StoreDanglingReference(key: key, column: column, target: target, missing: missing)
  }

  package static func integrityProblems(_ db: Connection) throws -> [String] {
    let lines = try db.query("PRAGMA integrity_check") { $0.string(at: 0) }
    return lines == ["ok"] ? [] : lines
  }

  /// The record of `model`, else the newest (largest rowid) record of the table.
  package static func recordedColumnsText(table: String, model: String, _ db: Connection) throws
    -> String?
  {
    try db.queryFirst(
      "SELECT columns FROM kura_models WHERE table_name = ? ORDER BY model = ? DESC, rowid DESC",
      [.text(table), .text(model)]
    ) { $0.string(at: 0) }
  }

  // MARK: History

  /// Inserts the row; its token is the rowid SQLite gave it.
  package static func appendHistory(
    time: Double, models: String, changes: [UInt8], _ db: Connection
  )
    throws -> Int64
  {
    // Every parameter is bound below: the statement keeps its bindings' memory.
    let statement = try db.cachedStatementToRebind(
      "INSERT INTO kura_history (time, models, changes) VALUES (?, ?, ?)")
    try statement.bind(time, at: 1)
    // The models' text and the change set are read where they are, not copied by SQLite (about
    // 1,200 instructions a save: two allocations, two copies, two frees).
    try statement.execute(bindingInPlace: models, at: 2, bytes: changes, at: 3)
    return db.lastInsertedRowID
  }

  /// Reads the names with `json_each`, without decoding any row in Swift.
  package static func changedModelNames(after: Int64, through: Int64, _ db: Connection) throws
    -> [String]
  {
    // `models` is a JSON array of names (any name, commas included); rows written before it
    // was (`,A,B,`) are read from the keys of their `changes` object instead.
    try db.query(
      "SELECT DISTINCT name.value FROM kura_history, json_each(CASE WHEN json_valid(models) THEN "
        + "models ELSE json_array() END) AS name WHERE token > ?1 AND token <= ?2 "
        + "UNION SELECT DISTINCT name.key FROM kura_history, json_each(CASE WHEN "
        + "json_valid(models) THEN '{}' ELSE changes END) AS name "
        + "WHERE token > ?1 AND token <= ?2 AND NOT json_valid(models)",
      [.integer(after), .integer(through)]
    ) { $0.string(at: 0) }
  }

  // MARK: Migrations

  /// Copies in batches paged by rowid, keeping each row's rowid (so rows keep their order, and
  /// sparse or huge ids cost no more than dense ones).
  package static func copyRows(
    from table: String, into temporary: String, columns: String, expressions: [String],
    progress: (Int) -> Void, _ db: Connection
  ) throws {
    let quotedTemporary = quoteIdentifier(temporary)
    let copy =
      "INSERT INTO \(quotedTemporary) (rowid, \(columns)) SELECT rowid, "
      + "\(expressions.joined(separator: ", ")) FROM \(quoteIdentifier(table))"
    let first = try db.prepare(copy + " ORDER BY rowid LIMIT ?")
    let next = try db.prepare(copy + " WHERE rowid > ? ORDER BY rowid LIMIT ?")
    let batch = Int64(BatchedCopy.batchSize)
    try BatchedCopy.run(progress: progress) { last in
      let insert = last == nil ? first : next
      insert.reset()
      try insert.bind(last.map { [.integer($0), .integer(batch)] } ?? [.integer(batch)])
      try insert.execute()
      let copied = db.changes
      if copied == 0 { return (0, nil) }
      let newest = try db.queryFirst("SELECT max(rowid) FROM \(quotedTemporary)") {
        $0.int64(at: 0)
      }
      return (copied, newest)
    }
  }
}
