import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  extension PostgresStoreConnection: IntrospectedConnection {
    package typealias Introspection = PostgresStoreEngine

    package var engine: any StoreEngine { PostgresStoreEngine() }

    // MARK: Running SQL

    package func prepare(_ sql: String) throws -> any StoreStatement {
      PostgresStoreStatement(statement: try connection.prepare(sql), connection: self)
    }

    @inline(__always)
    package func cachedStatement(_ sql: String) throws -> any StoreStatement {
      PostgresStoreStatement(statement: try connection.cachedStatement(sql), connection: self)
    }

    package var bulkUpsertMinimumRows: Int? { PostgresBulkUpsert.minimumRows }

    package func bulkUpsert(
      _ schema: ModelSchema, rowCount: Int, bindRow: (Int, any StoreStatement) throws -> Void
    ) throws -> StoreBulkOutcome? {
      try PostgresBulkUpsert.write(schema, rowCount: rowCount, on: self, bindRow: bindRow)
    }

    package func run(_ sql: String, _ arguments: [DatabaseValue]) throws {
      try connection.run(sql, arguments)
    }

    package func query<Row>(
      _ sql: String, _ arguments: [DatabaseValue], row: (any StoreStatement) throws -> Row
    ) throws -> [Row] {
      try connection.query(sql, arguments) {
        try row(PostgresStoreStatement(statement: $0, connection: self))
      }
    }

    package func queryFirst<Row>(
      _ sql: String, _ arguments: [DatabaseValue], row: (any StoreStatement) throws -> Row
    ) throws -> Row? {
      try connection.queryFirst(sql, arguments) {
        try row(PostgresStoreStatement(statement: $0, connection: self))
      }
    }

    // MARK: State

    package var changes: Int { connection.changes }

    package var isInTransaction: Bool { connection.isInTransaction }

    package func savepoint<Result>(_ body: () throws -> Result) throws -> Result {
      try connection.savepoint(body)
    }

    // MARK: Introspection: IntrospectedConnection, over PostgresStoreEngine's reads

    package var hasForeignKeyViolations: Bool {
      get throws { try PostgresStoreEngine.hasForeignKeyViolations(self) }
    }

    /// None: there is no page-level check, the server keeps its files consistent.
    package func integrityProblems() throws -> [String] { [] }

    package func recordedColumnsText(table: String, model: String) throws -> String? {
      try PostgresStoreEngine.recordedColumnsText(table: table, model: model, connection)
    }

    package func textKeyComparesLikeSwift(table: String) throws -> Bool {
      try PostgresStoreEngine.textKeyComparesLikeSwift(table: table, connection)
    }

    package func equivalentTextKeys(table: String, key: String) throws -> [String] {
      try PostgresStoreEngine.equivalentTextKeys(table: table, key: key, connection)
    }

    // MARK: Saves

    /// The tracker is told what each statement executed meanwhile did
    /// (``PostgresStoreStatement/execute()``).
    package func trackingRowChanges<Result>(
      in table: String, _ body: (any StoreRowTracker) throws -> Result
    ) throws -> Result {
      let tracker = PostgresRowTracker()
      self.tracker = tracker
      defer { self.tracker = nil }
      return try body(tracker)
    }

    /// The key the upsert returned (`kura_op` and the key are its result row).
    package func storedKey(ofLastChangeIn schema: ModelSchema, tracker: any StoreRowTracker) throws
      -> DatabaseValue?
    {
      if schema.primaryKey.kind == .integer { return .integer(tracker.lastIntegerKey) }
      guard let tracker = tracker as? PostgresRowTracker else { return nil }
      return tracker.lastKey == .null ? nil : tracker.lastKey
    }

    // MARK: History

    package func appendHistory(
      time: Double, models: String, changes: [UInt8], readingOldest: Bool
    ) throws -> (token: Int64, oldest: (token: Int64, time: Double)?) {
      let appended = try PostgresStoreEngine.appendHistory(
        time: time, models: models, changes: changes, readingOldest: readingOldest, self)
      return (appended.token, appended.oldest)
    }

    package func changedModelNames(after: Int64, through: Int64) throws -> [String] {
      try PostgresStoreEngine.changedModelNames(after: after, through: through, connection)
    }

    // MARK: Migrations

    package func copyRows(
      from table: String, into temporary: String, columns: String, expressions: [String],
      progress: (Int) -> Void
    ) throws {
      try PostgresStoreEngine.copyRows(
        from: table, into: temporary, columns: columns, expressions: expressions,
        progress: progress, connection)
    }

    package func dropTable(_ table: String) throws {
      try PostgresStoreEngine.dropTable(table, connection)
    }

    package func replaceTable(_ table: String, with temporary: String) throws {
      try PostgresStoreEngine.replaceTable(table, with: temporary, connection)
    }

    /// Nothing: PostgreSQL stores begin at format 2.
    package func upgradeStoreFormat(from format: Int, url: URL?) throws {}

    // MARK: Search

    package func searchIndexIsCurrent(_ index: SearchIndex) throws -> Bool {
      try PostgresSearchIndex(index).isCurrent(in: connection)
    }

    package func prepareSearchIndex(_ index: SearchIndex) throws {
      try PostgresSearchIndex(index).prepare(connection)
    }
  }

  extension PostgresStorePool: StorePool {
    package var engine: any StoreEngine { PostgresStoreEngine() }

    /// `false`: a PostgreSQL store lives in its server.
    package var isInMemory: Bool { false }
  }

  extension PostgresStoreEngine {
    package var dialect: any SQLDialect { PostgresDialect() }

    package var databaseDescription: String { "a PostgreSQL database" }

    /// `SELECT kura_history_horizon()` (see ``PostgresStoreEngine/horizonFunctionSQL``).
    package var historyHorizonSQL: String? { Self.historyHorizonSQL }

    /// `pg_try_advisory_xact_lock` on Kura's trim key (``PostgresStoreEngine/historyTrimLockSQL``).
    package var historyTrimLockSQL: String? { Self.historyTrimLockSQL }

    /// `true`: a PostgreSQL database holds other programs' tables too.
    package var refusesTablesNotRecorded: Bool { true }

    /// `false`: tokens follow transaction ids and have gaps.
    package var hasConsecutiveTokens: Bool { false }

    package func cast(_ expression: String, to kind: ColumnKind) -> String {
      Self.cast(expression, to: kind)
    }

    package func widen(_ expression: String, from source: ColumnKind, to target: ColumnKind)
      -> String
    {
      if source == .bool {
        return "CAST(CAST(\(expression) AS INTEGER) AS \(columnType(target)))"
      }
      if columnType(target) != columnType(source) { return cast(expression, to: target) }
      return expression
    }

    /// `TRUE`: an integer column holds only integers.
    package func integerTest(_ expression: String) -> String { "TRUE" }
  }

  extension PostgresError: EngineError {
    /// The kind of failure, from the error's code (its SQLSTATE).
    package var failure: EngineFailure {
      switch code {
      case .uniqueViolation, .foreignKeyViolation, .notNullViolation, .checkViolation:
        return .constraintViolation
      case .connectionLost: return .connectionLost
      case .serializationFailure where !isCommitOutcomeUnknown: return .concurrentChange
      case .deadlock where !isCommitOutcomeUnknown: return .concurrentChange
      case .connectionFailed, .authenticationFailed, .databaseMissing, .invalidLocation:
        return .cannotOpen
      default: return .other
      }
    }

    package var failedSQL: String? { sql }
  }
#endif
