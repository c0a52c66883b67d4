import Foundation
import KuraBase
import KuraSQLite

/// One connection of a store's engine (see ``StoreEngine``): statements, transactions, schema
/// introspection and the engine-specific steps of saves, migrations, history and search.
///
/// The methods keep ``Connection``'s names, so the store's code reads as it did over SQLite.
/// A connection is used by one thread at a time, inside a ``StorePool`` operation. Conformers
/// are classes: the store passes `any StoreConnection` around on every read and save, and a
/// class reference is copied with a retain.
package protocol StoreConnection: AnyObject, Sendable {
  /// The engine of this connection.
  var engine: any StoreEngine { get }

  // MARK: Running SQL

  /// Runs one or more SQL statements with no parameters (schema changes).
  func execute(_ sql: String) throws

  /// Prepares a statement that the caller owns (not cached).
  func prepare(_ sql: String) throws -> any StoreStatement

  /// This connection's cached statement for `sql`, reset and with its bindings cleared (a new
  /// one when the cached one is still stepping through its rows).
  func cachedStatement(_ sql: String) throws -> any StoreStatement

  /// ``cachedStatement(_:)`` for a caller that binds every parameter again: an engine may keep
  /// the bindings instead of clearing them (on SQLite, clearing frees the memory of each text
  /// and blob bound before, which binding anew allocates again). By default the same as
  /// ``cachedStatement(_:)``.
  func cachedStatementToRebind(_ sql: String) throws -> any StoreStatement

  // MARK: Bulk saves

  /// The fewest rows of one model a save writes with ``bulkUpsert(_:rowCount:bindRow:)``, or
  /// `nil` when the engine has no faster way than one upsert per row (SQLite: a prepared
  /// statement per row runs in the process, with no round trip to save).
  var bulkUpsertMinimumRows: Int? { get }

  /// Writes `rowCount` upserts of `schema`'s table (distinct ids, no deletion) in one batch
  /// (PostgreSQL: `COPY`), where `bindRow(i, statement)` binds row `i`'s columns to
  /// `statement` (parameter `n + 1` is column `n`); returns which rows were inserted, or `nil`,
  /// having written nothing, when the row-by-row path must run instead.
  func bulkUpsert(
    _ schema: ModelSchema, rowCount: Int, bindRow: (Int, any StoreStatement) throws -> Void
  ) throws -> StoreBulkOutcome?

  /// Runs one statement with bound values, ignoring any rows.
  func run(_ sql: String, _ arguments: [DatabaseValue]) throws

  /// Runs a query and maps each row.
  func query<Row>(
    _ sql: String, _ arguments: [DatabaseValue], row: (any StoreStatement) throws -> Row
  ) throws -> [Row]

  /// Runs a query and maps its first row, if any.
  func queryFirst<Row>(
    _ sql: String, _ arguments: [DatabaseValue], row: (any StoreStatement) throws -> Row
  ) throws -> Row?

  // MARK: State

  /// The number of rows changed by the last INSERT, UPDATE or DELETE.
  var changes: Int { get }

  /// Rows changed (inserted, updated, deleted) by this connection since it opened.
  var totalChanges: Int64 { get }

  /// Whether a transaction is open.
  var isInTransaction: Bool { get }

  // MARK: Transactions

  /// Runs `body` in a transaction of `kind`: committed when it returns, rolled back when it
  /// throws. Inside another transaction it becomes a savepoint.
  func transaction<Result>(_ kind: StoreTransactionKind, _ body: () throws -> Result) throws
    -> Result

  /// Runs `body` in a savepoint: rolled back to its start when `body` throws, without undoing
  /// the enclosing transaction's earlier work.
  func savepoint<Result>(_ body: () throws -> Result) throws -> Result

  // MARK: Introspection

  /// Whether a table named `name` exists.
  func tableExists(_ name: String) throws -> Bool

  /// Every named object of the database (tables, indexes, views, triggers), but the engine's own,
  /// by name: its kind (`table`, `index`, …) and name.
  func schemaObjects() throws -> [(kind: String, name: String)]

  /// The columns of `table`, in order (none when there is no such table).
  func tableColumns(_ table: String) throws -> [StoreColumnInfo]

  /// The foreign keys of `table`.
  func foreignKeys(of table: String) throws -> [StoreForeignKey]

  /// The indexes of `table` but its primary key's, by name.
  func indexes(of table: String) throws -> [StoreIndexInfo]

  /// The indexes created on `table` by statements (not by constraints), each with its
  /// definition: what compares equal to the `CREATE INDEX` statement the store ran.
  func kuraIndexDefinitions(of table: String) throws -> [(name: String, sql: String)]

  /// The rows whose reference points at nothing (checked after a migration rebuilt tables).
  func foreignKeyViolations() throws -> [StoreForeignKeyViolation]

  /// The first row of `table` whose reference points at nothing, or `nil`.
  func firstDanglingReference(in table: String, primaryKey: String) throws
    -> StoreDanglingReference?

  /// Whether references written in the open transaction point at nothing right now (they are
  /// checked at commit), so a save can explain the failure before committing. Throws when the
  /// engine can't tell (its connection failed).
  var hasForeignKeyViolations: Bool { get throws }

  /// What the engine's integrity check finds wrong with the database; empty when it is intact.
  func integrityProblems() throws -> [String]

  /// The text of the columns `kura_models` records for `table`: the record of `model`, else the
  /// newest record of the table.
  func recordedColumnsText(table: String, model: String) throws -> String?

  /// Whether the text primary key of `table` compares like Swift's `==` (stores of SQLite
  /// format 1 compared bytes).
  func textKeyComparesLikeSwift(table: String) throws -> Bool

  /// Up to 10 values of the text column `key` of `table` that Swift's `==` calls equal to another
  /// value of it (the first such group).
  func equivalentTextKeys(table: String, key: String) throws -> [String]

  // MARK: Saves

  /// Runs `body` with a tracker of the rows that statements on this connection insert, update
  /// or delete in `table` (how an upsert resolved: inserted or updated). Trackings do not nest.
  func trackingRowChanges<Result>(
    in table: String, _ body: (any StoreRowTracker) throws -> Result
  ) throws -> Result

  /// The primary key of the row the last change tracked by `tracker` touched (an upsert that
  /// matched a stored row by a unique attribute updated that row, which keeps its own id).
  func storedKey(ofLastChangeIn schema: ModelSchema, tracker: any StoreRowTracker) throws
    -> DatabaseValue?

  // MARK: History

  /// Appends a row to `kura_history` and returns its token, larger than every token before it,
  /// and, when `readingOldest` asks for it and the engine read it in the same statement, the
  /// oldest history row after the append.
  func appendHistory(
    time: Double, models: String, changes: [UInt8], readingOldest: Bool
  ) throws -> (token: Int64, oldest: (token: Int64, time: Double)?)

  /// The names of the models changed by the history rows after token `after` up to `through`
  /// (the `models` JSON array of each row, or the keys of its `changes` object for rows written
  /// before the array was).
  func changedModelNames(after: Int64, through: Int64) throws -> [String]

  // MARK: Migrations

  /// Copies every row of `table` into `temporary` (a table made like the migrated model's):
  /// `expressions` (one per column of `columns`, over the old table's columns) give the values.
  /// `progress` is told how many rows were copied so far, after each batch.
  func copyRows(
    from table: String, into temporary: String, columns: String, expressions: [String],
    progress: (Int) -> Void
  ) throws

  /// Drops `table` and its rows (a migration that moved them to another table), with what the
  /// engine made on it that would keep it (PostgreSQL: the readable views, made again when the
  /// schema change ends).
  func dropTable(_ table: String) throws

  /// Replaces `table` (when it exists) with `temporary`, renamed to `table`; references from
  /// other tables to `table` stay valid.
  func replaceTable(_ table: String, with temporary: String) throws

  /// Brings a store written in an older format of Kura's metadata (`format`) up to the current
  /// one, inside the setup transaction. Formats older than an engine's first store never exist
  /// on it.
  func upgradeStoreFormat(from format: Int, url: URL?) throws

  // MARK: Search

  /// Whether the model's search index exists exactly as this version makes it (none when no
  /// column is searchable).
  func searchIndexIsCurrent(_ index: SearchIndex) throws -> Bool

  /// Creates the model's search index (filled from the table, kept in step with it by every
  /// writer) when missing or made differently; drops it when no column is searchable.
  func prepareSearchIndex(_ index: SearchIndex) throws
}

extension StoreConnection {
  /// The SQL dialect of this connection's engine.
  package var dialect: any SQLDialect { engine.dialect }

  /// Runs one statement without bound values, ignoring any rows.
  package func run(_ sql: String) throws { try run(sql, []) }

  /// Runs a query without bound values and maps each row.
  package func query<Row>(_ sql: String, row: (any StoreStatement) throws -> Row) throws -> [Row] {
    try query(sql, [], row: row)
  }

  /// Runs a query without bound values and maps its first row, if any.
  package func queryFirst<Row>(_ sql: String, row: (any StoreStatement) throws -> Row) throws
    -> Row?
  {
    try queryFirst(sql, [], row: row)
  }

  /// Runs `body` in a write transaction (see ``transaction(_:_:)``).
  package func transaction<Result>(_ body: () throws -> Result) throws -> Result {
    try transaction(.write, body)
  }

  /// The tables of the database, but the engine's own, by name.
  package func tableNames() throws -> [String] {
    try schemaObjects().filter { $0.kind == "table" }.map(\.name)
  }
}

/// What the statements run inside ``StoreConnection/trackingRowChanges(in:_:)`` did to the rows
/// of one table: how many changes, and the operation and row of the last one.
package protocol StoreRowTracker: AnyObject {
  /// How many changes to the table were reported so far.
  var count: Int { get }

  /// The operation of the last reported change, `nil` before any.
  var lastOperation: RowOperation? { get }

  /// The integer primary key of the row the last change touched, when the table's key is an
  /// integer (SQLite: the rowid, which an `INTEGER PRIMARY KEY` is).
  var lastIntegerKey: Int64 { get }
}

extension StoreConnection {
  /// The engine keeps no bindings: the statement of ``cachedStatement(_:)``.
  package func cachedStatementToRebind(_ sql: String) throws -> any StoreStatement {
    try cachedStatement(sql)
  }
}
