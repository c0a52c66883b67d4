import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  internal import CLibPQ

  /// One connection to a PostgreSQL database, with its prepared-statement cache — the same
  /// calls as SQLite's ``Connection``.
  ///
  /// SQL uses SQLite's placeholders (`?` and `?N`), which statements rewrite as PostgreSQL's
  /// `$N`; values are bound, never spliced into the SQL. Statements from
  /// ``cachedStatement(_:)`` are prepared on the server once per connection. A quoted
  /// identifier longer than the 63 bytes PostgreSQL keeps (which the server would cut) is sent
  /// as its first bytes and a hash of the whole name, the same in every statement and process,
  /// so two long names that start alike stay two.
  ///
  /// A connection is used by one thread at a time; it may move between threads. When the
  /// connection breaks (server restart, `pg_terminate_backend`), operations fail with
  /// ``PostgresError/Code/connectionLost`` until ``reconnect()``.
  ///
  /// For example:
  ///
  /// ```swift
  /// let connection = try PostgresConnection("postgresql:///app?host=/var/run/postgresql")
  /// try connection.execute("CREATE TABLE IF NOT EXISTS note (id bigserial PRIMARY KEY, text text)")
  /// try connection.run("INSERT INTO note (text) VALUES (?)", [.text("hello")])
  /// let texts = try connection.query("SELECT text FROM note") { $0.string(at: 0) }
  /// ```
  // Safety: libpq is built thread-safe, and a connection (with its session and statements) is
  // used by one thread at a time, as its documentation says; a pool hands each connection to
  // one caller under a lock.
  package final class PostgresConnection: @unchecked Sendable {
    package let session: PostgresSession
    @exclusivity(unchecked) private var statementCache = StatementCache<PostgresStatement>()
    package var savepointDepth = 0
    /// How many `ROLLBACK TO SAVEPOINT` this connection has run (through ``execute(_:)``):
    /// whether work done earlier in a transaction may have been undone since.
    package var rollbacksToSavepoint = 0

    /// Where the connection goes.
    ///
    /// For example: `print(connection.location)`.
    package var location: PostgresLocation { session.location }

    /// Connects to a PostgreSQL database.
    ///
    /// For example:
    ///
    /// ```swift
    /// let location = try PostgresLocation("postgresql://alice@db.example.com/app")
    /// let connection = try PostgresConnection(location: location)
    /// ```
    ///
    /// - Parameter location: The server, database and user; its `connect_timeout` (30 seconds
    ///   by default) bounds the wait.
    /// - Throws: ``PostgresError`` with code ``PostgresError/Code/connectionFailed``,
    ///   ``PostgresError/Code/authenticationFailed`` or ``PostgresError/Code/databaseMissing``,
    ///   naming the server and database.
    package init(location: PostgresLocation) throws {
      session = try PostgresSession(location: location)
    }

    /// Connects to the database a `postgresql://` URL or libpq connection string names.
    ///
    /// For example:
    ///
    /// ```swift
    /// let connection = try PostgresConnection("host=/var/run/postgresql dbname=app")
    /// ```
    ///
    /// - Parameter connectionString: The URL or connection string.
    /// - Throws: ``PostgresError`` when it can't be read or the connection fails.
    package convenience init(_ connectionString: String) throws {
      try self.init(location: PostgresLocation(connectionString))
    }

    deinit {
      statementCache.removeAll()
      session.close()
    }

    // MARK: Running SQL

    /// Runs one or more SQL statements with no parameters (schema changes, settings). Several
    /// statements outside a transaction run as one transaction.
    ///
    /// For example:
    ///
    /// ```swift
    /// try connection.execute("CREATE TABLE t (a bigint); CREATE INDEX t_a ON t (a)")
    /// ```
    ///
    /// - Parameter sql: The SQL text (placeholders are not rewritten; a quoted identifier
    ///   longer than the 63 bytes PostgreSQL keeps is sent fitted, as statements send it).
    /// - Throws: ``PostgresError`` naming the SQL.
    package func execute(_ sql: String) throws {
      if sql.utf8.first == UInt8(ascii: "R"), sql.hasPrefix("ROLLBACK TO") {
        rollbacksToSavepoint &+= 1
      }
      let handle = try session.liveHandle(sql: sql)
      // Whether the SQL may commit is only worked out on a failure (from the state before it).
      let outsideTransaction = PQtransactionStatus(handle) == PQTRANS_IDLE
      let result = PQexec(handle, PostgresPlaceholders.fittingIdentifiers(sql))
      defer { PQclear(result) }
      switch PQresultStatus(result) {
      case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
        session.recordChanges(result)
      default:
        throw session.error(
          result, sql: sql,
          committing: Self.commits(sql, outsideTransaction: outsideTransaction))
      }
    }

    /// Whether `sql` may commit work when it runs: a COMMIT (or END), or, outside a
    /// transaction, anything but transaction control and session settings.
    private static func commits(_ sql: String, outsideTransaction: Bool) -> Bool {
      let word = sql.drop { $0.isWhitespace }.prefix { $0.isLetter }.uppercased()
      if word == "COMMIT" || word == "END" { return true }
      return outsideTransaction && !changingNothing.contains(word)
    }

    /// The first words of statements that commit nothing.
    private static let changingNothing: Set<String> = [
      "BEGIN", "START", "ROLLBACK", "ABORT", "SAVEPOINT", "RELEASE", "SET", "RESET", "SHOW",
      "LISTEN", "UNLISTEN", "DEALLOCATE",
    ]

    /// Prepares a statement that the caller owns (not cached; deallocated on the server after
    /// the statement goes).
    ///
    /// For example: `let statement = try connection.prepare("SELECT 1")`.
    ///
    /// - Parameter sql: One SQL statement, with `?` or `?N` placeholders.
    /// - Returns: The statement.
    /// - Throws: ``PostgresError`` naming the SQL.
    package func prepare(_ sql: String) throws -> PostgresStatement {
      try PostgresStatement(session: session, sql: sql)
    }

    /// Returns this connection's cached statement for `sql`, prepared on the server on first
    /// use, with its rows forgotten and its bindings cleared.
    ///
    /// While the cached statement is in the middle of its rows (a ``query(_:_:row:)`` runs the
    /// same SQL again from inside its row closure), a second statement for the same prepared
    /// statement is returned instead, so the outer loop keeps its place.
    ///
    /// For example:
    ///
    /// ```swift
    /// let insert = try connection.cachedStatement("INSERT INTO note (text) VALUES (?)")
    /// try insert.bind("hi", at: 1)
    /// try insert.execute()
    /// ```
    ///
    /// - Parameter sql: One SQL statement, with `?` or `?N` placeholders.
    /// - Returns: The statement, ready to bind.
    /// - Throws: ``PostgresError`` naming the SQL.
    package func cachedStatement(_ sql: String) throws -> PostgresStatement {
      if let statement = statementCache.statement(for: sql) {
        if statement.isBusy { return PostgresStatement(sharing: statement) }
        statement.reset()
        return statement
      }
      let statement = try PostgresStatement(session: session, sql: sql)
      statementCache.insert(statement, for: sql)
      return statement
    }

    /// Forgets every cached statement; do this after changing the schema (a prepared
    /// `SELECT *` refuses to run once its table's columns changed).
    ///
    /// For example: `connection.clearStatementCache()`.
    package func clearStatementCache() {
      statementCache.removeAll()
      session.deallocateUnusedStatements(all: true)
    }

    /// Runs one statement with bound values, ignoring any rows.
    ///
    /// For example:
    ///
    /// ```swift
    /// try connection.run("DELETE FROM note WHERE id = ?", [.integer(3)])
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One SQL statement (cached).
    ///   - arguments: One value per parameter.
    /// - Throws: ``PostgresError`` naming the SQL.
    package func run(_ sql: String, _ arguments: [DatabaseValue] = []) throws {
      try runStatement(sql, arguments)
    }

    /// Runs a query and maps each row.
    ///
    /// For example:
    ///
    /// ```swift
    /// let names = try connection.query("SELECT name FROM trip WHERE year > ?", [.integer(2020)]) {
    ///   $0.string(at: 0)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One SQL statement (cached).
    ///   - arguments: One value per parameter.
    ///   - row: Reads one row from the statement.
    /// - Returns: The mapped rows.
    /// - Throws: ``PostgresError`` or what `row` throws.
    package func query<Row>(
      _ sql: String, _ arguments: [DatabaseValue] = [], row: (PostgresStatement) throws -> Row
    ) throws -> [Row] {
      try rows(sql, arguments, row: row)
    }

    /// Runs a query and maps its first row, if any.
    ///
    /// For example:
    ///
    /// ```swift
    /// let count = try connection.queryFirst("SELECT count(*) FROM trip") { $0.int64(at: 0) }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One SQL statement (cached).
    ///   - arguments: One value per parameter.
    ///   - row: Reads the row.
    /// - Returns: The mapped first row, or `nil` when there is none.
    /// - Throws: ``PostgresError`` or what `row` throws.
    package func queryFirst<Row>(
      _ sql: String, _ arguments: [DatabaseValue] = [], row: (PostgresStatement) throws -> Row
    ) throws -> Row? {
      try firstRow(sql, arguments, row: row)
    }

    /// Sends a notification to the listeners of `channel` (see ``PostgresListener``); inside a
    /// transaction it is delivered when the transaction commits, and not at all if it rolls
    /// back.
    ///
    /// For example: `try connection.notify("kura_changes", payload: "42")`.
    ///
    /// - Parameters:
    ///   - channel: The channel name.
    ///   - payload: Text for the listeners (under 8000 bytes).
    /// - Throws: ``PostgresError``.
    package func notify(_ channel: String, payload: String = "") throws {
      try run("SELECT pg_notify(?, ?)", [.text(channel), .text(payload)])
    }

    // MARK: State

    /// The number of rows changed by the last INSERT, UPDATE, DELETE or MERGE.
    ///
    /// For example: `try connection.run("DELETE FROM note"); print(connection.changes)`.
    package var changes: Int { session.changes }

    /// Rows changed (inserted, updated, deleted) by this connection since it opened.
    ///
    /// For example: `print(connection.totalChanges)`.
    package var totalChanges: Int64 { session.totalChanges }

    /// Whether a transaction is open (also one where a statement failed, which only a
    /// rollback ends).
    ///
    /// For example: `if connection.isInTransaction { … }`.
    package var isInTransaction: Bool { session.isInTransaction }

    /// Whether the connection is open and not broken.
    ///
    /// For example: `if !connection.isConnected { try connection.reconnect() }`.
    package var isConnected: Bool { session.isConnected }

    /// Whether the connection is open, after reading without waiting what the server sent
    /// while it was idle (a restart or a terminated backend leaves a message and the socket's
    /// end that ``isConnected`` only sees after the next statement failed).
    package var isAlive: Bool { session.isAlive }

    /// The process id of the server backend serving this connection (for `pg_stat_activity`
    /// and `pg_terminate_backend`).
    ///
    /// For example: `print(connection.processID)`.
    package var processID: Int32 {
      session.handle.map { PQbackendPID($0) } ?? 0
    }

    /// The server's version number, such as `150018` for 15.18.
    ///
    /// For example: `if connection.serverVersion >= 150000 { … }`.
    package var serverVersion: Int {
      session.handle.map { Int(PQserverVersion($0)) } ?? 0
    }

    /// Connects again (after the connection broke, or to start afresh). Cached statements are
    /// prepared again on their next use; an open transaction is gone.
    ///
    /// For example: `if !connection.isConnected { try connection.reconnect() }`.
    ///
    /// - Throws: ``PostgresError`` when connecting fails.
    package func reconnect() throws {
      savepointDepth = 0
      try session.reconnect()
    }

    /// The version of the libpq library in use, such as `150018` for 15.18.
    ///
    /// For example: `print(PostgresConnection.libpqVersion)`.
    package static var libpqVersion: Int { Int(PQlibVersion()) }
  }
#endif
