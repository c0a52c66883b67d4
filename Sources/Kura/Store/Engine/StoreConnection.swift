import Foundation

/// One connection of a store's engine (see ``StoreEngine``): statements, transactions, and (in
/// the extensions beside this file) schema introspection and the engine-specific steps of saves,
/// migrations, history and search.
///
/// The methods keep ``Connection``'s names, so the store's code reads as it did over SQLite.
/// A connection is used by one thread at a time, inside a ``StorePool`` operation.
enum StoreConnection {
  case sqlite(Connection)
  #if canImport(CLibPQ)
    case postgres(PostgresStoreConnection)
  #endif

  /// The engine of this connection.
  var engine: StoreEngine {
    switch self {
    case .sqlite: return .sqlite
    #if canImport(CLibPQ)
      case .postgres: return .postgres
    #endif
    }
  }

  /// The SQL dialect of this connection's engine.
  var dialect: any SQLDialect { engine.dialect }

  // MARK: Running SQL

  /// Runs one or more SQL statements with no parameters (schema changes).
  func execute(_ sql: String) throws {
    switch self {
    case .sqlite(let connection): try connection.execute(sql)
    #if canImport(CLibPQ)
      case .postgres(let connection): try connection.execute(sql)
    #endif
    }
  }

  /// Prepares a statement that the caller owns (not cached).
  func prepare(_ sql: String) throws -> StoreStatement {
    switch self {
    case .sqlite(let connection): return .sqlite(try connection.prepare(sql))
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return .postgres(try connection.connection.prepare(sql), connection)
    #endif
    }
  }

  /// This connection's cached statement for `sql`, reset and with its bindings cleared (a new
  /// one when the cached one is still stepping through its rows).
  @inline(__always)
  func cachedStatement(_ sql: String) throws -> StoreStatement {
    switch self {
    case .sqlite(let connection): return .sqlite(try connection.cachedStatement(sql))
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return .postgres(try connection.connection.cachedStatement(sql), connection)
    #endif
    }
  }

  /// Runs one statement with bound values, ignoring any rows.
  func run(_ sql: String, _ arguments: [SQLiteValue] = []) throws {
    switch self {
    case .sqlite(let connection): try connection.run(sql, arguments)
    #if canImport(CLibPQ)
      case .postgres(let connection): try connection.connection.run(sql, arguments)
    #endif
    }
  }

  /// Runs a query and maps each row.
  func query<Row>(
    _ sql: String, _ arguments: [SQLiteValue] = [], row: (StoreStatement) throws -> Row
  ) throws -> [Row] {
    switch self {
    case .sqlite(let connection):
      return try connection.query(sql, arguments) { try row(.sqlite($0)) }
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try connection.connection.query(sql, arguments) {
          try row(.postgres($0, connection))
        }
    #endif
    }
  }

  /// Runs a query and maps its first row, if any.
  func queryFirst<Row>(
    _ sql: String, _ arguments: [SQLiteValue] = [], row: (StoreStatement) throws -> Row
  ) throws -> Row? {
    switch self {
    case .sqlite(let connection):
      return try connection.queryFirst(sql, arguments) { try row(.sqlite($0)) }
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try connection.connection.queryFirst(sql, arguments) {
          try row(.postgres($0, connection))
        }
    #endif
    }
  }

  // MARK: State

  /// The number of rows changed by the last INSERT, UPDATE or DELETE.
  var changes: Int {
    switch self {
    case .sqlite(let connection): return connection.changes
    #if canImport(CLibPQ)
      case .postgres(let connection): return connection.connection.changes
    #endif
    }
  }

  /// Rows changed (inserted, updated, deleted) by this connection since it opened.
  var totalChanges: Int64 {
    switch self {
    case .sqlite(let connection): return connection.totalChanges
    #if canImport(CLibPQ)
      case .postgres(let connection): return connection.totalChanges
    #endif
    }
  }

  /// Whether a transaction is open.
  var isInTransaction: Bool {
    switch self {
    case .sqlite(let connection): return connection.isInTransaction
    #if canImport(CLibPQ)
      case .postgres(let connection): return connection.connection.isInTransaction
    #endif
    }
  }

  // MARK: Transactions

  /// Runs `body` in a transaction of `kind`: committed when it returns, rolled back when it
  /// throws. Inside another transaction it becomes a savepoint.
  func transaction<Result>(
    _ kind: StoreTransactionKind = .write, _ body: () throws -> Result
  ) throws -> Result {
    switch self {
    case .sqlite(let connection):
      return try connection.transaction(kind == .write ? .immediate : .deferred, body)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try connection.transaction(kind, body)
    #endif
    }
  }

  /// Runs `body` in a savepoint: rolled back to its start when `body` throws, without undoing
  /// the enclosing transaction's earlier work.
  func savepoint<Result>(_ body: () throws -> Result) throws -> Result {
    switch self {
    case .sqlite(let connection): return try connection.savepoint(body)
    #if canImport(CLibPQ)
      case .postgres(let connection): return try connection.connection.savepoint(body)
    #endif
    }
  }
}
