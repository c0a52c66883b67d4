import KuraBase

extension Connection {
  /// How a transaction takes its lock.
  ///
  /// For example: `try connection.transaction(.immediate) { … }`.
  public enum TransactionKind: String, Sendable {
    /// Takes locks on first use (a read transaction until the first write).
    case deferred = "DEFERRED"
    /// Takes the write lock at once; the right choice for writers (no upgrade deadlock).
    case immediate = "IMMEDIATE"
    /// Takes an exclusive lock at once.
    case exclusive = "EXCLUSIVE"
  }

  /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
  /// Called inside another transaction, it becomes a savepoint (see ``savepoint(_:)``).
  ///
  /// For example:
  ///
  /// ```swift
  /// try connection.transaction {
  ///   try connection.run("INSERT INTO note (text) VALUES (?)", [.text("a")])
  ///   try connection.run("INSERT INTO note (text) VALUES (?)", [.text("b")])
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - kind: How to lock; `.immediate` by default.
  ///   - body: The work.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws (after rolling back), or ``SQLiteError``.
  public func transaction<Result>(
    _ kind: TransactionKind = .immediate, _ body: () throws -> Result
  ) throws -> Result {
    try inTransaction(kind, body)
  }

  /// Runs `body` in a savepoint, which nests: rolled back to its start when `body` throws, without
  /// undoing the enclosing transaction's earlier work.
  ///
  /// For example:
  ///
  /// ```swift
  /// try connection.transaction {
  ///   try connection.run("INSERT INTO note (text) VALUES ('kept')")
  ///   try? connection.savepoint {
  ///     try connection.run("INSERT INTO note (text) VALUES ('undone')")
  ///     throw CancellationError()
  ///   }
  /// }
  /// ```
  ///
  /// - Parameter body: The work.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws (after rolling back to the savepoint), or ``SQLiteError``.
  public func savepoint<Result>(_ body: () throws -> Result) throws -> Result {
    try inSavepoint(body)
  }
}

// The transaction, savepoint and row-loop implementation shared with PostgreSQL's driver.
extension Connection: DriverTransactions {
  package var savepointTransactionMode: TransactionKind? { nil }

  package func beginTransaction(_ kind: TransactionKind) throws {
    try transactionStatement(kind).execute()
  }

  package func commitTransaction() throws {
    try transactionStatement(.commit).execute()
  }

  package func rollBackTransaction() {
    try? transactionStatement(.rollback).execute()
  }

  package func executeSavepointSQL(_ sql: String) throws {
    try cachedStatement(sql).execute()
  }

  fileprivate enum TransactionStatement: Int {
    case deferred, immediate, exclusive, commit, rollback
    var sql: String {
      switch self {
      case .deferred: return "BEGIN DEFERRED TRANSACTION"
      case .immediate: return "BEGIN IMMEDIATE TRANSACTION"
      case .exclusive: return "BEGIN EXCLUSIVE TRANSACTION"
      case .commit: return "COMMIT TRANSACTION"
      case .rollback: return "ROLLBACK TRANSACTION"
      }
    }
  }

  fileprivate func transactionStatement(_ kind: TransactionKind) throws -> Statement {
    switch kind {
    case .deferred: return try transactionStatement(TransactionStatement.deferred)
    case .immediate: return try transactionStatement(TransactionStatement.immediate)
    case .exclusive: return try transactionStatement(TransactionStatement.exclusive)
    }
  }

  fileprivate func transactionStatement(_ which: TransactionStatement) throws -> Statement {
    if let statement = transactionStatements[which.rawValue] { return statement }
    let statement = try prepare(which.sql)
    transactionStatements[which.rawValue] = statement
    return statement
  }
}

extension Statement: DriverStatement {
  @usableFromInline package typealias Argument = DatabaseValue
}
