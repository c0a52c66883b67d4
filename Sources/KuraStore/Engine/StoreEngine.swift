import Foundation
import KuraBase
import KuraSQLite

/// The database engine under a model store: the one seam between everything the store shares
/// (schema, context, predicate translation, migration planning, history, live queries, search,
/// inspection) and the code that only one engine has.
///
/// The store talks to its engine through four protocols in this folder:
///
/// - ``StoreEngine``: the SQL that needs no connection (column types, DDL, search conditions,
///   the dialect of translated predicates) and what the engine can and can't do.
/// - ``StorePool``: the connections of one store: reads, write transactions, the change signal.
/// - ``StoreConnection``: one connection: statements, transactions, schema introspection and the
///   engine's ways of doing what plain SQL can't say the same way on every engine.
/// - ``StoreStatement``: one prepared statement: bind, step, read columns.
///
/// Values are ``DatabaseValue`` on every engine (its five cases are the store's value model: an
/// engine maps them to and from its own types). Errors stay the driver's own; the engine sorts
/// them into the few kinds the store acts on (``EngineError``, ``EngineFailure``). SQL the
/// shared code writes uses `?` and `?N` placeholders, `"quoted"` identifiers and standard syntax
/// every engine accepts (`ON CONFLICT … DO UPDATE`, `ALTER TABLE … RENAME COLUMN`, `count(*)`,
/// `coalesce`, `LIMIT`); an engine rewrites placeholders to its own form itself.
///
/// ## How an engine joins the seam
///
/// An engine is a folder of its own under `Store/Engine/` that conforms its types to the four
/// protocols, ``EngineError`` and ``SQLDialect``, and opens its stores into an ``OpenedStore``.
/// Nothing outside its folder names its types, except the one `switch` on
/// ``ModelConfiguration``'s storage in ``ModelContainer``'s initializer (and the migration and
/// inspection entry points beside it) that picks an engine; nothing inside it names a type above
/// the seam (the container, migration planning, contexts, observation): `scripts/check-layers`
/// fails the build when one does. The shared code holds the engine's values as existentials
/// (`any StorePool`, `any StoreConnection`); the per-column loops (binding a row, reading a row)
/// are requirements implemented once in a protocol extension (``RowLayout``), so each engine's
/// statement type gets a copy specialized for it and a column costs the driver's own call.
///
/// The SQLite engine's parts live in `Store/Engine/SQLite/`: ``SQLiteStoreEngine`` (SQL),
/// ``SQLiteStorePool`` and ``SQLiteStoreConnection`` (over the driver's ``DatabasePool`` and
/// ``Connection``; its ``Statement`` conforms as it is), ``SQLiteDialect``, ``SQLiteSearchIndex``
/// (FTS5), ``SQLiteFormatUpgrade`` (format 1, which only SQLite stores have), and the file-level
/// opening (`SQLiteStore`, ``StoreProbe``, ``StoreFile``). The PostgreSQL engine's live in
/// `Store/Engine/PostgreSQL/` (compiled where libpq is, `#if canImport(CLibPQ)`):
/// `PostgresStoreEngine` (SQL, introspection, history, migrations), `PostgresDialect`,
/// `PostgresSearchIndex`, `PostgresStorePool` (the write lock, lost commits, the LISTEN/NOTIFY
/// change signal), `PostgresStoreConnection`, `PostgresStoreStatement` and `PostgresStore`
/// (opening). An engine provides:
///
/// 1. Statements (``StoreStatement``), 1-based parameters, 0-based columns:
///    `bind(_: Int64|Int|Double|String|Data|DatabaseValue, at:)`, `bindNull(at:)`,
///    `bind(_: [DatabaseValue])`, `bindExact(_: Double, at:)` (read back bit for bit, NaN and
///    `-0.0` included, by `exactDouble(at:)`), `step() -> Bool`, `execute()`, `rewind()`,
///    `reset()`, `int64(at:)`, `double(at:)`, `exactDouble(at:)`, `string(at:)`, `data(at:)`,
///    `isNull(at:)`, `value(at:) -> DatabaseValue`, `columnCount`, `columnName(at:)`,
///    `identity`, `sql`.
/// 2. Connections (``StoreConnection``): `execute(_:)` (statements without parameters),
///    `prepare(_:)`, `cachedStatement(_:)` (reset and cleared; a new one while the cached one
///    still steps), `run(_:_:)`, `query(_:_:row:)`, `queryFirst(_:_:row:)`, `changes`,
///    `totalChanges`, `isInTransaction`, `transaction(_: StoreTransactionKind, _:)` (`.write`
///    takes the write lock at once — SQLite `BEGIN IMMEDIATE` —, `.read` sees one committed state;
///    inside a transaction both become savepoints), `savepoint(_:)`.
/// 3. A pool (``StorePool``): `read`, `readSnapshot`, `write` (writers serialized across
///    processes and hosts), `writeSerialized`, `writeSchemaChanges` (a write transaction in
///    which a table can be dropped and rebuilt without running foreign-key actions; the store
///    checks `foreignKeyViolations()` before it commits), `changeCount` and `observeChanges(_:)`
///    (the wake-up after commits by any process; the history table is the lossless record),
///    `isReadOnly`, `isInMemory`.
/// 4. Introspection (``StoreConnection``): `tableExists(_:)`, `schemaObjects()` (every named
///    object but the engine's own: an empty database from another program's), `tableColumns(_:)`
///    (``StoreColumnInfo``), `foreignKeys(of:)` (``StoreForeignKey``), `indexes(of:)`
///    (``StoreIndexInfo``, not the primary key's), `kuraIndexDefinitions(of:)` (each index's
///    definition, equal to the `CREATE INDEX` the store ran when unchanged),
///    `foreignKeyViolations()`, `firstDanglingReference(in:primaryKey:)`,
///    `hasForeignKeyViolations` (deferred references broken right now), `integrityProblems()`,
///    `recordedColumnsText(table:model:)` (a model's `kura_models` record, else the table's
///    newest).
/// 5. DDL and capabilities (``StoreEngine``): `columnType(_:)` per ``ColumnKind``,
///    `columnKind(ofDeclaredType:)`, `primaryKeyDefinition(_:)` (a text key compares like
///    Swift's `==`), `upsertSQL(_:)` (an insert that updates the row with the same id or the
///    same unique values, built once per schema and container), `historyTableSQL`,
///    `historyHorizonSQL`, `literal(_:)`, `cast(_:to:)`, `widen(_:from:to:)`, `integerTest(_:)`,
///    `refusesTablesNotRecorded`, `hasConsecutiveTokens`, `databaseDescription`; on the
///    connection: `textKeyComparesLikeSwift(table:)`, `equivalentTextKeys(table:key:)`,
///    `copyRows(from:into:columns:expressions:progress:)` and `replaceTable(_:with:)` (the store
///    plans a table's change — nothing, `ALTER TABLE … RENAME COLUMN`/`ADD COLUMN`, or a
///    rebuild — and the engine moves the rows and swaps the tables, keeping other tables'
///    references valid), `upgradeStoreFormat(from:url:)`.
/// 6. Swift semantics in SQL (``SQLDialect``): `swiftStringComparable(_:)` wraps a text
///    expression so comparisons, ordering, `IN`, `BETWEEN`, text indexes and conflict targets
///    follow Swift's `==` and the store's total text order (SQLite `x COLLATE kura_unicode`; an
///    engine comparing a key would return `kura_key(x)`), `wrapsOneOperandOfAComparison`,
///    `exactReal(_:)` (a `Double` or `Date` column as the number SQL compares: NaN as NULL, `-0.0`
///    as `0.0`), `stringContains(_:_:)`/`stringStartsWith(_:_:)` (Foundation's predicate
///    semantics), `boundList(_:parameter:)` (many values through one parameter), `noLimit`, and
///    `quoteIdentifier`, `placeholder`, `booleanLiteral`, `escapeLikePattern`.
/// 7. Saves and history (``StoreConnection``): `trackingRowChanges(in:_:)` with a
///    ``StoreRowTracker`` (`count`, `lastOperation`, `lastIntegerKey`: whether each
///    upsert inserted or updated), `storedKey(ofLastChangeIn:tracker:)`,
///    `appendHistory(time:models:changes:)` (a token larger than every earlier one; the feed
///    must never skip a token that commits late: `historyHorizonSQL` bounds what readers may
///    read), `changedModelNames(after:through:)`.
/// 8. Search (``StoreConnection``, ``StoreEngine``): `searchIndexIsCurrent(_:)`,
///    `prepareSearchIndex(_:)` (kept in step by every writer, in the writer's transaction),
///    `searchCondition(_:words:)` (each word as a word prefix or a substring; two-character
///    Japanese substrings too) and `searchOrder(_:words:)` (best matches first, or `nil`).
/// 9. Errors (``EngineError``): each driver error type says which ``EngineFailure`` it is
///    (a constraint violation, busy, a lost connection…), so the store reacts to it without
///    naming the driver.
///
/// Outside the seam, per engine: opening a store (SQLite: what is at the path, the read-only
/// probe, `-wal`/`-shm`, read-only files: `SQLiteStore.open`), chosen by the one `switch` on
/// ``ModelConfiguration``'s storage in ``ModelContainer``'s initializer. The checks that follow
/// (another program's database, a newer store, a migration that would lose data) run over any
/// ``StoreConnection`` (``StoreExamination``), and so does everything after them.
package protocol StoreEngine: Sendable {
  /// The SQL dialect predicates and sorts are translated to.
  var dialect: any SQLDialect { get }

  /// What a database of this engine is called in messages, such as "an SQLite database".
  var databaseDescription: String { get }

  // MARK: DDL

  /// The declared type of a column holding `kind`.
  func columnType(_ kind: ColumnKind) -> String

  /// The kind of values a column of a table Kura did not record holds, from its declared type.
  func columnKind(ofDeclaredType type: String) -> ColumnKind?

  /// The primary key's definition in `CREATE TABLE`; a text key compares like Swift's `==`.
  func primaryKeyDefinition(_ schema: ModelSchema) -> String

  /// The upsert of one row of `schema` (see ``StoreSQL/upsert(_:engine:)``), built once per
  /// schema and container (``ModelSchema/upsertSQL``).
  func upsertSQL(_ schema: ModelSchema) -> String

  /// Creates the change history table (`kura_history`: token, time, models, changes).
  var historyTableSQL: String { get }

  /// The statement reading the first token a history row may still take or commit with
  /// (`nil` when rows commit in token order, as on SQLite), run before the statements that read
  /// history below it.
  var historyHorizonSQL: String? { get }

  /// The statement that tries to take the store's history-trim lock until the transaction ends,
  /// answering one row whose first column is nonzero when it did (`nil` when writers are
  /// serialized anyway, as on SQLite). A trim that doesn't get it leaves the trim to the writer
  /// that has it: two trims at once would wait for each other's deleted rows, and could
  /// deadlock.
  var historyTrimLockSQL: String? { get }

  /// Whether a table with a model's name that the store does not record as Kura's is refused:
  /// on PostgreSQL, whose databases hold other programs' tables too; SQLite files are the
  /// store's alone (and files of earlier versions are adopted).
  var refusesTablesNotRecorded: Bool { get }

  /// Whether consecutive history rows have consecutive tokens (SQLite's `max + 1`), so a token
  /// distance is a count of saves; PostgreSQL's tokens follow transaction ids and have gaps.
  var hasConsecutiveTokens: Bool { get }

  /// `expression` converted to the column type of `kind` (a widening migration's copy).
  func cast(_ expression: String, to kind: ColumnKind) -> String

  /// `expression`, a column holding `source` values, as values of the wider kind `target` (a
  /// widening migration's copy).
  func widen(_ expression: String, from source: ColumnKind, to target: ColumnKind) -> String

  /// `value` written into SQL (a column's `DEFAULT`, a copy expression), or `nil` when the
  /// engine has no literal for it.
  func literal(_ value: DatabaseValue) -> String?

  /// Whether a column declared `type` holds values of `kind` (a stored table's column checked
  /// against the model's).
  func declaredType(_ type: String, holds kind: ColumnKind) -> Bool

  /// The identifier the engine gives a table, column or index named `name` (the name itself,
  /// or, on an engine that keeps shorter names, a shortened form that is the same every time);
  /// the store refuses models whose names would share one (``StoreSetup``).
  func identifier(_ name: String) -> String

  /// A condition true when `expression` holds an integer (rather than a number with a fraction).
  func integerTest(_ expression: String) -> String

  // MARK: Search

  /// The condition on the model's table that every word of `words` satisfies, as a word prefix
  /// or a substring of a searchable column.
  func searchCondition(_ index: SearchIndex, words: [String]) -> (
    sql: String, arguments: [DatabaseValue]
  )

  /// The `ORDER BY` expression that puts the best matches of `words` first, or `nil` when the
  /// engine has no ranking.
  func searchOrder(_ index: SearchIndex, words: [String]) -> (
    sql: String, arguments: [DatabaseValue]
  )?
}

extension StoreEngine {
  /// The column's definition in `CREATE TABLE`, such as `"name" TEXT NOT NULL`.
  package func columnDefinition(_ column: ColumnSchema) -> String {
    quoteIdentifier(column.name) + " " + columnType(column.kind)
      + (column.isOptional ? "" : " NOT NULL")
  }

  /// Whether `error` is an engine's constraint violation (such as a unique index that stored
  /// rows break).
  package func isConstraintViolation(_ error: any Error) -> Bool {
    EngineFailure(of: error) == .constraintViolation
  }
}

/// The transactions the store asks an engine for.
package enum StoreTransactionKind: Sendable {
  /// Sees one committed state.
  case read
  /// Takes the write lock at once, so no other writer (of any process) commits before it ends.
  case write
}
