import Foundation

/// The database engine under a model store: the one seam between everything the store shares
/// (schema, context, predicate translation, migration planning, history, live queries, search,
/// inspection) and the code that only one engine has.
///
/// The store talks to its engine through four types in this folder, all enums so the compiler
/// inlines the engine `switch` on the hot paths (binding and reading a column costs what the
/// engine's own call costs, with no existential or witness-table dispatch):
///
/// - ``StoreEngine``: which engine, and the SQL that needs no connection (column types, DDL,
///   search conditions, the bound-list subquery, the dialect of translated predicates).
/// - ``StorePool``: the connections of one store: reads, write transactions, the change signal.
/// - ``StoreConnection``: one connection: statements, transactions, schema introspection and the
///   engine's ways of doing what plain SQL can't say the same way on both engines.
/// - ``StoreStatement``: one prepared statement: bind, step, read columns.
///
/// Values are ``SQLiteValue`` on every engine (its five cases are the store's value model: an
/// engine maps them to and from its own types). SQL the shared code writes uses `?` and `?N`
/// placeholders, `"quoted"` identifiers and standard syntax both engines accept (`ON CONFLICT …
/// DO UPDATE`, `ALTER TABLE … RENAME COLUMN`, `count(*)`, `coalesce`, `LIMIT`); an engine
/// rewrites placeholders to its own form itself.
///
/// ## What an engine provides
///
/// Adding an engine is adding a case to the four enums and one conformance of ``SQLDialect``;
/// each `switch` below then names what is missing. The SQLite engine's parts live in
/// `Store/Engine/SQLite/` (``SQLiteStoreEngine``, the FTS5 search index, the file probe and the
/// format-1 upgrade), and only there.
///
/// **Connections and statements** (``StoreConnection``, ``StoreStatement``): `execute(_:)` (several
/// statements, no parameters), `prepare(_:)`, `cachedStatement(_:)` (reset and cleared, a new one
/// when the cached one is still stepping), `run`, `query`, `queryFirst`, `changes`,
/// `isInTransaction`, `transaction(_:_:)` with ``StoreTransactionKind`` (`.write` takes the write
/// lock at once — SQLite `BEGIN IMMEDIATE` —, `.read` sees one committed state), `savepoint(_:)`
/// (nested transactions become savepoints); statements bind `Int64`, `Int`, `Double`, `String`,
/// `Data`, NULL and ``SQLiteValue`` at 1-based indexes, `bindExact` (a `Double` read back bit for
/// bit, NaN and `-0.0` included, by `exactDouble(at:)`), `step`, `execute`, `rewind`, `reset`, and
/// read `int64`, `double`, `exactDouble`, `string`, `data`, `isNull`, `value` at 0-based indexes.
///
/// **Transactions and the change signal** (``StorePool``): `read` (any committed state),
/// `readSnapshot` (one committed state), `write` (one write transaction; writers are serialized
/// across processes and hosts), `writeWithoutTransaction`, `writeSchemaChanges` (a write
/// transaction in which tables can be dropped and rebuilt without running foreign-key actions;
/// the caller checks `foreignKeyViolations()` before it returns), `changeCount` and
/// `observeChanges` (a wake-up after commits by any process; the history table is the lossless
/// record), `isReadOnly`, `isInMemory`.
///
/// **Schema introspection** (``StoreConnection``): `tableExists`, `schemaObjects` (every named
/// object, to tell an empty database from another program's), `tableColumns` (name, declared
/// type, not null, primary key), `foreignKeys` (column, target table and column, `ON DELETE`
/// action), `indexes` (name, unique, columns; not the primary key's), `kuraIndexDefinitions` (the
/// definition of each index, comparable with the `CREATE INDEX` the store writes),
/// `foreignKeyViolations`, `firstForeignKeyViolation(in:primaryKey:)`, `hasForeignKeyViolations`
/// (deferred references broken right now), `integrityProblems`, `recordedColumnsText` (a model's
/// `kura_models` record, the newest for its table when the model has none).
///
/// **DDL** (``StoreEngine``): `columnType(_:)` per ``ColumnKind`` and `columnKind(ofDeclaredType:)`
/// back, `primaryKeyDefinition(_:)` (a text key compares like Swift's `==`), `upsertSQL(_:)` (an
/// insert that updates the row with the same id, or with the same unique values),
/// `historyTableSQL`, `cast(_:to:)`, `literal(_:)`, `integerTest(_:)`, `isConstraintViolation(_:)`;
/// and on the connection `textKeyComparesLikeSwift(table:)`, `equivalentTextKeys(table:key:)`,
/// `copyRows(…)` and `replaceTable(_:with:)` (how a table is rebuilt: the store plans the change,
/// the engine moves the rows and swaps the tables, keeping references to the table valid), and
/// `upgradeStoreFormat(from:url:)` for formats older than the engine's first.
///
/// **Swift semantics in SQL** (``SQLDialect``): `swiftStringComparable(_:)` wraps a text
/// expression so comparing, ordering, `IN`, `BETWEEN`, unique indexes and conflict targets follow
/// Swift's `==` and the store's total text order (SQLite: `x COLLATE kura_unicode`; an engine
/// comparing a key function would return `kura_key(x)`), `exactReal(_:)` reads a `Double` column
/// as the number SQL compares (NaN as NULL, `-0.0` as `0.0`), `stringContains`/`stringStartsWith`
/// (Foundation's predicate semantics), `boundList(_:parameter:)` (many values through one
/// parameter) and `pagingClause(limit:offset:)`.
///
/// **Saves and history** (``StoreConnection``): `trackingRowChanges(in:_:)` (whether each upsert
/// inserted or updated, and the row it touched), `storedKey(ofLastChangeIn:tracker:)`,
/// `appendHistory(time:models:changes:)` (a new, larger token per save; tokens must be readable
/// in commit order by the feed), `changedModelNames(after:through:)`.
///
/// **Search** (``StoreConnection``/``StoreEngine``): `searchIndexIsCurrent`, `prepareSearchIndex`
/// (kept in step with the table by every writer, in the writer's transaction), `searchCondition`
/// (every word as a word prefix or a substring) and `searchOrder` (best matches first).
///
/// What stays outside the seam, per engine: opening a store (SQLite: the file probe, `-wal`/`-shm`
/// handling, read-only files; see `SQLiteStore.open`), chosen in ``ModelContainer``'s initializer
/// by one `switch` on the configuration; the metadata checks that follow run on any engine
/// (``StoreExamination``).
enum StoreEngine: Sendable, Hashable {
  /// An SQLite file, or an SQLite database in memory (``DatabasePool``).
  case sqlite

  /// The SQL dialect predicates and sorts are translated to.
  var dialect: any SQLDialect {
    switch self {
    case .sqlite: return SQLiteDialect()
    }
  }

  /// What a database of this engine is called in messages, such as "an SQLite database".
  var databaseDescription: String {
    switch self {
    case .sqlite: return "an SQLite database"
    }
  }

  /// Whether `error` comes from an engine (its connection or statements) rather than from Kura
  /// or the app's code.
  static func isEngineError(_ error: any Error) -> Bool {
    error is SQLiteError
  }

  // MARK: DDL

  /// The declared type of a column holding `kind`.
  func columnType(_ kind: ColumnKind) -> String {
    switch self {
    case .sqlite: return SQLiteStoreEngine.columnType(kind)
    }
  }

  /// The kind of values a column of a table Kura did not record holds, from its declared type.
  func columnKind(ofDeclaredType type: String) -> ColumnKind? {
    switch self {
    case .sqlite: return SQLiteStoreEngine.columnKind(ofDeclaredType: type)
    }
  }

  /// The column's definition in `CREATE TABLE`, such as `"name" TEXT NOT NULL`.
  func columnDefinition(_ column: ColumnSchema) -> String {
    quoteIdentifier(column.name) + " " + columnType(column.kind)
      + (column.isOptional ? "" : " NOT NULL")
  }

  /// The primary key's definition in `CREATE TABLE`; a text key compares like Swift's `==`.
  func primaryKeyDefinition(_ schema: ModelSchema) -> String {
    switch self {
    case .sqlite: return SQLiteStoreEngine.primaryKeyDefinition(schema)
    }
  }

  /// The upsert of one row of `schema` (see ``StoreSQL/upsert(_:engine:)``).
  func upsertSQL(_ schema: ModelSchema) -> String {
    switch self {
    case .sqlite: return schema.sqliteUpsertSQL
    }
  }

  /// Creates the change history table (`kura_history`: token, time, models, changes).
  var historyTableSQL: String {
    switch self {
    case .sqlite: return SQLiteStoreEngine.historyTableSQL
    }
  }

  /// `expression` converted to the column type of `kind` (a widening migration's copy).
  func cast(_ expression: String, to kind: ColumnKind) -> String {
    "CAST(\(expression) AS \(columnType(kind)))"
  }

  /// `value` written into SQL (a column's `DEFAULT`, a copy expression), or `nil` when the
  /// engine has no literal for it.
  func literal(_ value: SQLiteValue) -> String? {
    switch self {
    case .sqlite: return SQLiteStoreEngine.literal(value)
    }
  }

  /// A condition true when `expression` holds an integer (rather than a number with a fraction).
  func integerTest(_ expression: String) -> String {
    switch self {
    case .sqlite: return "typeof(\(expression)) = 'integer'"
    }
  }

  /// Whether `error` is the engine's constraint violation (such as a unique index that stored
  /// rows break).
  func isConstraintViolation(_ error: any Error) -> Bool {
    switch self {
    case .sqlite: return (error as? SQLiteError)?.code == .constraint
    }
  }

  // MARK: Search

  /// The condition on the model's table that every word of `words` satisfies, as a word prefix
  /// or a substring of a searchable column.
  func searchCondition(_ index: SearchIndex, words: [String]) -> (
    sql: String, arguments: [SQLiteValue]
  ) {
    switch self {
    case .sqlite: return SQLiteSearchIndex(index).condition(words: words)
    }
  }

  /// The `ORDER BY` expression that puts the best matches of `words` first, or `nil` when the
  /// engine has no ranking.
  func searchOrder(_ index: SearchIndex, words: [String]) -> (
    sql: String, arguments: [SQLiteValue]
  )? {
    switch self {
    case .sqlite: return SQLiteSearchIndex(index).order(words: words)
    }
  }
}

/// The transactions the store asks an engine for.
enum StoreTransactionKind: Sendable {
  /// Sees one committed state.
  case read
  /// Takes the write lock at once, so no other writer (of any process) commits before it ends.
  case write
}
