/// The calls of a prepared statement that a driver's row loops make (SQLite's `Statement`,
/// PostgreSQL's `PostgresStatement`).
@usableFromInline
package protocol DriverStatement: AnyObject {
  /// The value bound to a parameter.
  associatedtype Argument

  /// Binds values to parameters 1, 2, 3… in order.
  func bind(_ values: [Argument]) throws
  /// Runs the statement to its next row; returns false when there is none.
  func step() throws -> Bool
  /// Runs the statement, ignoring any rows.
  func execute() throws
  /// Forgets the rows of the last run (and its read snapshot), keeping the bindings.
  func rewind()
}

/// A driver's connection as its row loops see it: one implementation of `run`, `query` and
/// `queryFirst` for both drivers, specialized per conformance (the row closure is called on the
/// concrete statement type, with no witness call per column).
@usableFromInline
package protocol DriverConnection: AnyObject {
  /// The connection's statement type.
  associatedtype Prepared: DriverStatement

  /// The connection's cached statement for `sql`, reset, ready to bind.
  func cachedStatement(_ sql: String) throws -> Prepared
}

/// A driver's connection as its transactions and savepoints see it: one implementation of the
/// bookkeeping (nesting as savepoints, rolling back on a throw or a failed commit) for both
/// drivers.
package protocol DriverTransactions: DriverConnection {
  /// How a transaction begins (SQLite's lock kind, PostgreSQL's isolation level).
  associatedtype TransactionMode

  /// Whether a transaction is open.
  var isInTransaction: Bool { get }
  /// How many savepoints are open (the next is named after it).
  var savepointDepth: Int { get set }
  /// The mode of the transaction a savepoint outside one opens, or `nil` where the engine's
  /// `SAVEPOINT` itself opens one (SQLite).
  var savepointTransactionMode: TransactionMode? { get }

  /// Opens a transaction.
  func beginTransaction(_ mode: TransactionMode) throws
  /// Commits the open transaction (an error leaves it to ``commitOrRollBack()``'s rollback).
  func commitTransaction() throws
  /// Rolls the open transaction back, ignoring a failure (the connection may be broken).
  func rollBackTransaction()
  /// Runs `SAVEPOINT`, `RELEASE SAVEPOINT` or `ROLLBACK TO SAVEPOINT` SQL.
  func executeSavepointSQL(_ sql: String) throws
}

extension DriverConnection {
  /// Runs one statement with bound values, ignoring any rows.
  @inlinable
  package func runStatement(_ sql: String, _ arguments: [Prepared.Argument]) throws {
    let statement = try cachedStatement(sql)
    try statement.bind(arguments)
    try statement.execute()
  }

  /// Runs a query and maps each row with `row`.
  @inlinable
  package func rows<Row>(
    _ sql: String, _ arguments: [Prepared.Argument], row: (Prepared) throws -> Row
  ) throws -> [Row] {
    let statement = try cachedStatement(sql)
    defer { statement.rewind() }
    try statement.bind(arguments)
    var rows: [Row] = []
    while try statement.step() { rows.append(try row(statement)) }
    return rows
  }

  /// Runs a query and maps its first row with `row`, if there is one.
  @inlinable
  package func firstRow<Row>(
    _ sql: String, _ arguments: [Prepared.Argument], row: (Prepared) throws -> Row
  ) throws -> Row? {
    let statement = try cachedStatement(sql)
    defer { statement.rewind() }
    try statement.bind(arguments)
    return try statement.step() ? row(statement) : nil
  }
}

extension DriverTransactions {
  /// Runs `body` in a transaction, committed when it returns and rolled back when it throws;
  /// inside another transaction, in a savepoint.
  package func inTransaction<Result>(_ mode: TransactionMode, _ body: () throws -> Result) throws
    -> Result
  {
    if isInTransaction { return try inSavepoint(body) }
    try beginTransaction(mode)
    let result: Result
    do {
      result = try body()
    } catch {
      if isInTransaction { rollBackTransaction() }
      throw error
    }
    try commitOrRollBack()
    return result
  }

  /// Commits the open transaction; rolls it back when the commit fails.
  package func commitOrRollBack() throws {
    do {
      try commitTransaction()
    } catch {
      if isInTransaction { rollBackTransaction() }
      throw error
    }
  }

  /// Runs `body` in a savepoint, rolled back to its start when `body` throws; outside a
  /// transaction, in one where the engine has savepoints only inside transactions.
  package func inSavepoint<Result>(_ body: () throws -> Result) throws -> Result {
    if !isInTransaction, let mode = savepointTransactionMode {
      return try inTransaction(mode, body)
    }
    savepointDepth += 1
    let name = "kura_\(savepointDepth)"
    defer { savepointDepth -= 1 }
    try executeSavepointSQL("SAVEPOINT \(name)")
    do {
      let result = try body()
      try executeSavepointSQL("RELEASE SAVEPOINT \(name)")
      return result
    } catch {
      if isInTransaction {
        try? executeSavepointSQL("ROLLBACK TO SAVEPOINT \(name)")
        try? executeSavepointSQL("RELEASE SAVEPOINT \(name)")
      }
      throw error
    }
  }
}
