import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  internal import CLibPQ

  extension PostgresConnection {
    /// The isolation level of a transaction.
    ///
    /// For example: `try connection.transaction(.serializable) { … }`.
    package enum IsolationLevel: Sendable, Hashable {
      /// Each statement sees what was committed before it began (PostgreSQL's default).
      case readCommitted
      /// Every statement sees what was committed before the transaction's first one.
      case repeatableRead
      /// As if transactions ran one after the other; a conflict fails with
      /// ``PostgresError/Code/serializationFailure``.
      case serializable

      package var beginSQL: String {
        switch self {
        case .readCommitted: return "BEGIN"
        case .repeatableRead: return "BEGIN ISOLATION LEVEL REPEATABLE READ"
        case .serializable: return "BEGIN ISOLATION LEVEL SERIALIZABLE"
        }
      }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// Called inside another transaction, it becomes a savepoint (see ``savepoint(_:)``).
    ///
    /// A statement that fails inside a PostgreSQL transaction aborts it: catch errors you mean
    /// to survive inside a ``savepoint(_:)``. A transaction aborted that way is rolled back,
    /// never committed, and reported as an error.
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
    ///   - isolation: The isolation level; `.readCommitted` by default.
    ///   - body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (after rolling back), or ``PostgresError`` — with
    ///   ``PostgresError/isCommitOutcomeUnknown`` when the connection broke during the commit.
    package func transaction<Result>(
      _ isolation: IsolationLevel = .readCommitted, _ body: () throws -> Result
    ) throws -> Result {
      try inTransaction(isolation, body)
    }

    /// Opens a transaction with `begin`'s statements, sent with the next statement: a
    /// prepared statement carries them in its own round trip (libpq's pipeline mode), anything
    /// else sends them first. Until then ``isInTransaction`` reads `true`; a begin never sent
    /// is dropped by ``dropUnsentBegin()``. A begin that finds the connection lost connects
    /// again and runs once more (with its statement): nothing of its transaction had run.
    package func begin(withNextStatement begin: PostgresBegin) {
      session.beganTransactionID = nil
      session.unsentBegin = begin
    }

    /// Drops a begin of ``begin(withNextStatement:)`` not sent yet; returns whether there was
    /// one (then no transaction is open).
    package func dropUnsentBegin() -> Bool {
      guard session.unsentBegin != nil else { return false }
      session.unsentBegin = nil
      return true
    }

    /// The last column of the first row of the last begin's last statement as an integer, once
    /// it ran: the pool's transaction id (`txid_current()`).
    package var transactionID: Int64? { session.beganTransactionID }

    /// Commits a transaction opened with `BEGIN` through ``execute(_:)``: an aborted one (which
    /// COMMIT rolls back) is an error, and a connection lost during the commit is one with
    /// ``PostgresError/isCommitOutcomeUnknown``.
    package func commitOpenTransaction() throws { try commitOrRollBack() }

    /// Runs `body` in a savepoint, which nests: rolled back to its start when `body` throws
    /// (also after a failed statement, which a savepoint survives), without undoing the
    /// enclosing transaction's earlier work.
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
    /// - Throws: What `body` throws (after rolling back to the savepoint), or
    ///   ``PostgresError``.
    package func savepoint<Result>(_ body: () throws -> Result) throws -> Result {
      try inSavepoint(body)
    }
  }

  // The transaction, savepoint and row-loop implementation shared with SQLite's driver.
  extension PostgresConnection: DriverTransactions {
    /// PostgreSQL has savepoints only inside a transaction: outside one, a savepoint is one.
    package var savepointTransactionMode: IsolationLevel? { .readCommitted }

    package func beginTransaction(_ isolation: IsolationLevel) throws {
      try execute(isolation.beginSQL)
    }

    /// Commits the open transaction; an aborted one (which COMMIT rolls back) is an error.
    package func commitTransaction() throws {
      let handle = try session.liveHandle(sql: "COMMIT")
      let result = PQexec(handle, "COMMIT")
      defer { PQclear(result) }
      if let failure = commitFailure(result) { throw failure }
    }

    /// The error of a COMMIT's result, or `nil` when it committed: a failure (with
    /// ``PostgresError/isCommitOutcomeUnknown`` when the connection broke), or an aborted
    /// transaction, which COMMIT rolls back.
    package func commitFailure(_ result: OpaquePointer?) -> PostgresError? {
      guard PQresultStatus(result) == PGRES_COMMAND_OK else {
        return session.error(result, sql: "COMMIT", committing: true)
      }
      guard let status = PQcmdStatus(result), strcmp(status, "ROLLBACK") == 0 else { return nil }
      return PostgresError(
        code: .other, sqlState: "25P02",
        message:
          "the transaction was rolled back, not committed: one of its statements failed and"
          + " its error was caught without a savepoint",
        server: session.server, sql: "COMMIT")
    }

    package func rollBackTransaction() {
      try? execute("ROLLBACK")
    }

    package func executeSavepointSQL(_ sql: String) throws {
      try execute(sql)
    }
  }

  extension PostgresStatement: DriverStatement {}
#endif
