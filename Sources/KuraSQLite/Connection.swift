import Foundation
import KuraBase

#if canImport(CSQLite)
  internal import CSQLite
#else
  internal import SQLite3
#endif

/// One connection to an SQLite database file, with its prepared-statement cache.
///
/// A connection opened on a file is put in WAL mode with `synchronous=NORMAL`, foreign keys on and
/// a busy timeout, so that several connections and processes can share the file: readers never
/// block the writer and a committed transaction survives a crash of the process.
/// Most code uses a ``DatabasePool`` (one writer, several readers) instead of a lone connection.
///
/// A connection is used by one thread at a time; it may move between threads.
///
/// For example:
///
/// ```swift
/// let connection = try Connection(path: "/tmp/example.sqlite")
/// try connection.execute("CREATE TABLE IF NOT EXISTS note (id INTEGER PRIMARY KEY, text TEXT)")
/// try connection.run("INSERT INTO note (text) VALUES (?)", [.text("hello")])
/// let texts = try connection.query("SELECT text FROM note") { $0.string(at: 0) }
/// ```
// Safety: SQLite is built thread-safe (serialized or multi-thread mode) and a Connection is only
// used by one thread at a time: DatabasePool hands each connection to one caller under a lock.
// Users holding a lone connection are told the same rule in its documentation.
public final class Connection: @unchecked Sendable {
  package let handle: OpaquePointer
  /// The file path, or `":memory:"`.
  public let path: String
  @exclusivity(unchecked) private var statementCache = StatementCache<Statement>()
  package var savepointDepth = 0
  /// BEGIN/COMMIT/ROLLBACK statements, kept apart so a transaction costs no dictionary lookups.
  @exclusivity(unchecked) package var transactionStatements: [Statement?] = Array(
    repeating: nil, count: 5)
  /// The object a layer above works with this connection through (the SQLite store engine's
  /// ``StoreConnection``), made once and kept as long as the connection: it refers back to the
  /// connection without keeping it alive.
  @exclusivity(unchecked) package var companion: (any ConnectionCompanion)?
  /// The tracker of the last ``trackingRowChanges(in:_:)``, used again for the same table.
  @exclusivity(unchecked) package var lastRowTracker: RowChangeTracker?

  /// How a connection opens its file.
  ///
  /// For example: `try Connection(path: path, mode: .readOnly)`.
  public enum OpenMode: Sendable {
    /// Reading and writing; the file is created (mode 0600) when `create` is true.
    case readWrite(create: Bool)
    /// Reading only.
    case readOnly
    /// Reading only, leaving the files exactly as found: no `-wal` or `-shm` file is created or
    /// changed and nothing is checkpointed on close, even for a damaged file (what inspecting a
    /// store and checking it before opening it for writing need). A `-wal` file without its
    /// `-shm` file is read from a private copy. When the index in the `-shm` file can't be read
    /// without writing it (another process is setting it up, or left it for a writer to repair)
    /// and tries a moment apart don't help, the file is read as ``readOnly`` does, which may
    /// repair that index but never writes the database or its `-wal` file.
    ///
    /// For example: `let connection = try Connection(path: path, mode: .inspect)`.
    case inspect
  }

  /// A private copy of the database and its `-wal` file, removed when the connection closes.
  private var privateCopy: URL?

  /// Opens a connection.
  ///
  /// For example:
  ///
  /// ```swift
  /// let connection = try Connection(path: storeURL.path)
  /// ```
  ///
  /// - Parameters:
  ///   - path: The database file, or `":memory:"` for a private in-memory database.
  ///   - mode: Read-write (creating the file by default) or read-only.
  ///   - busyTimeout: How long to wait for another connection's lock before failing with
  ///     ``SQLiteError/Code/busy``.
  /// - Throws: ``SQLiteError`` when the file cannot be opened or is not a database.
  public init(
    path: String, mode: OpenMode = .readWrite(create: true), busyTimeout: Duration = .seconds(5)
  ) throws {
    var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
    let existed = FileManager.default.fileExists(atPath: path)
    switch mode {
    case .readWrite(let create):
      flags |= SQLITE_OPEN_READWRITE
      if create { flags |= SQLITE_OPEN_CREATE }
    case .readOnly, .inspect:
      flags |= SQLITE_OPEN_READONLY
    }
    let handle: OpaquePointer
    if case .inspect = mode {
      (handle, privateCopy) = try Self.openForInspection(path: path, flags: flags)
    } else {
      handle = try Self.open(path, naming: path, flags: flags)
    }
    self.handle = handle
    self.path = path
    sqlite3_extended_result_codes(handle, 1)
    let milliseconds =
      busyTimeout.components.seconds * 1000
      + busyTimeout.components.attoseconds / 1_000_000_000_000_000
    sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
    if !existed && path != ":memory:" && !path.hasPrefix("file:") {
      chmod(path, 0o600)
    }
    try installSwiftStringSemantics()
    // Reading the schema here turns "file is not a database" into an error at open time.
    do {
      try execute("PRAGMA foreign_keys = ON")
      if case .inspect = mode {
        _ = try query("PRAGMA schema_version") { $0.int64(at: 0) }
      } else if path != ":memory:" && !path.hasPrefix("file:") {
        if case .readWrite = mode {
          try switchToWAL(within: busyTimeout)
        } else {
          _ = try query("PRAGMA schema_version") { $0.int64(at: 0) }
        }
        try execute("PRAGMA synchronous = NORMAL")
      }
    } catch {
      // Finalize cached statements now so deinit can close the handle cleanly.
      statementCache.removeAll()
      throw error
    }
  }

  /// Puts the database in WAL mode. Switching a new file's journal mode needs its exclusive
  /// lock, and SQLite reports `SQLITE_BUSY` at once, without the busy handler, when another
  /// process opening the same new file holds its shared lock at that moment (six processes
  /// creating one store failed this way): the switch is tried again for up to the busy
  /// timeout's length, then the error is thrown.
  private func switchToWAL(within busyTimeout: Duration) throws {
    let deadline = ContinuousClock.now.advanced(by: busyTimeout)
    var pause: UInt32 = 1000
    while true {
      do {
        _ = try query("PRAGMA journal_mode = WAL") { $0.string(at: 0) }
        return
      } catch let error as SQLiteError where error.code == .busy {
        guard ContinuousClock.now < deadline else { throw error }
        usleep(pause)
        pause = min(pause * 2, 50_000)
      }
    }
  }

  deinit {
    // Finalized here, not when the last reference goes: a statement still referenced elsewhere
    // would otherwise keep the connection open (a "zombie") with its file locks.
    for statement in statementCache.statements { statement.finalize() }
    for statement in transactionStatements { statement?.finalize() }
    statementCache.removeAll()
    transactionStatements.removeAll()
    // A companion kept beyond the connection (a misuse) stops at its next use.
    companion?.connectionClosed()
    sqlite3_close_v2(handle)
    if let privateCopy { try? FileManager.default.removeItem(at: privateCopy) }
  }

  // MARK: Running SQL

  /// Runs one or more SQL statements with no parameters (schema changes, pragmas).
  ///
  /// For example:
  ///
  /// ```swift
  /// try connection.execute("CREATE TABLE t (a); CREATE INDEX t_a ON t (a)")
  /// ```
  ///
  /// - Parameter sql: The SQL text.
  /// - Throws: ``SQLiteError`` naming the SQL.
  public func execute(_ sql: String) throws {
    var message: UnsafeMutablePointer<CChar>?
    let result = sqlite3_exec(handle, sql, nil, nil, &message)
    if result != SQLITE_OK {
      let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(result))
      sqlite3_free(message)
      throw SQLiteError(
        code: .init(rawValue: result & 0xff), extendedCode: sqlite3_extended_errcode(handle),
        message: text, sql: sql)
    }
  }

  /// Prepares a statement that the caller owns (not cached).
  ///
  /// For example: `let statement = try connection.prepare("SELECT 1")`.
  ///
  /// - Parameter sql: One SQL statement.
  /// - Returns: The statement.
  /// - Throws: ``SQLiteError`` naming the SQL.
  public func prepare(_ sql: String) throws -> Statement {
    var statement: OpaquePointer?
    let result = sqlite3_prepare_v3(handle, sql, -1, 0, &statement, nil)
    guard result == SQLITE_OK, let statement else {
      throw SQLiteError(
        handle: handle, result: result == SQLITE_OK ? SQLITE_MISUSE : result, sql: sql)
    }
    return Statement(handle: statement, sql: sql)
  }

  /// Returns this connection's cached statement for `sql`, prepared on first use, reset and with
  /// its bindings cleared.
  ///
  /// While the cached statement is in the middle of its rows (a ``query(_:_:row:)`` runs the same
  /// SQL again from inside its row closure), a new statement of its own is returned instead, so
  /// the outer loop keeps its place.
  ///
  /// For example:
  ///
  /// ```swift
  /// let insert = try connection.cachedStatement("INSERT INTO note (text) VALUES (?)")
  /// try insert.bind("hi", at: 1)
  /// try insert.execute()
  /// ```
  ///
  /// - Parameter sql: One SQL statement.
  /// - Returns: The statement, ready to bind.
  /// - Throws: ``SQLiteError`` naming the SQL.
  public func cachedStatement(_ sql: String) throws -> Statement {
    try cachedStatement(sql, clearingBindings: true)
  }

  /// ``cachedStatement(_:)`` for a caller that binds every parameter again: the bindings are
  /// kept, not cleared (clearing frees each bound text and blob, which binding anew would
  /// allocate again).
  package func cachedStatementToRebind(_ sql: String) throws -> Statement {
    try cachedStatement(sql, clearingBindings: false)
  }

  private func cachedStatement(_ sql: String, clearingBindings: Bool) throws -> Statement {
    if let statement = statementCache.statement(for: sql) {
      // Still stepping through its rows (a query run again from its own row closure): the
      // caller gets one of its own, so the outer loop is not reset.
      // A statement not stepped since it was last reset (a lookup rewinds its own) is ready.
      if statement.needsReset {
        if sqlite3_stmt_busy(statement.handle) != 0 { return try prepare(sql) }
        statement.rewind()
      }
      if clearingBindings { sqlite3_clear_bindings(statement.handle) }
      return statement
    }
    var statement: OpaquePointer?
    let result = sqlite3_prepare_v3(
      handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    guard result == SQLITE_OK, let statement else {
      throw SQLiteError(
        handle: handle, result: result == SQLITE_OK ? SQLITE_MISUSE : result, sql: sql)
    }
    let prepared = Statement(handle: statement, sql: sql)
    statementCache.insert(prepared, for: sql)
    return prepared
  }

  /// Resets every statement of this connection still in the middle of its rows (a caller that
  /// read the first row of a cached statement and left it), so the connection holds no read
  /// snapshot, which would keep the WAL from being checkpointed past it, and the next
  /// ``cachedStatement(_:)`` for its SQL finds it ready instead of preparing another.
  package func resetBusyStatements() {
    var statement = sqlite3_next_stmt(handle, nil)
    while let current = statement {
      if sqlite3_stmt_busy(current) != 0 { sqlite3_reset(current) }
      statement = sqlite3_next_stmt(handle, current)
    }
  }

  /// Ends what a read left open on this connection: statements in the middle of their rows
  /// (``resetBusyStatements()``) and a transaction (rolled back). A statement that stepped into a
  /// table and was left there holds a read transaction, so when none is open (what SQLite's
  /// `sqlite3_txn_state` says in a few loads) the statements are not looked through.
  package func endReads() {
    if sqlite3_txn_state(handle, nil) != SQLITE_TXN_NONE { resetBusyStatements() }
    if isInTransaction { try? execute("ROLLBACK") }
  }

  /// Forgets every cached statement (after a schema change they would be re-prepared anyway).
  ///
  /// For example: `connection.clearStatementCache()`.
  public func clearStatementCache() {
    statementCache.removeAll()
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
  /// - Throws: ``SQLiteError`` naming the SQL.
  public func run(_ sql: String, _ arguments: [DatabaseValue] = []) throws {
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
  /// - Throws: ``SQLiteError`` or what `row` throws.
  @inlinable
  public func query<Row>(
    _ sql: String, _ arguments: [DatabaseValue] = [], row: (Statement) throws -> Row
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
  /// - Throws: ``SQLiteError`` or what `row` throws.
  @inlinable
  public func queryFirst<Row>(
    _ sql: String, _ arguments: [DatabaseValue] = [], row: (Statement) throws -> Row
  ) throws -> Row? {
    try firstRow(sql, arguments, row: row)
  }

  // MARK: State

  /// The rowid of the last inserted row.
  public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

  /// The number of rows changed by the last INSERT, UPDATE or DELETE.
  public var changes: Int { Int(sqlite3_changes64(handle)) }

  /// Rows changed (inserted, updated, deleted) by this connection since it opened.
  public var totalChanges: Int64 { sqlite3_total_changes64(handle) }

  /// Whether a transaction is open.
  public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

  /// Whether foreign key constraints are broken right now (deferred ones are checked only at
  /// `COMMIT`), so a transaction can explain the failure before committing.
  package var hasForeignKeyViolations: Bool {
    var current: Int32 = 0
    var highest: Int32 = 0
    sqlite3_db_status(handle, SQLITE_DBSTATUS_DEFERRED_FKS, &current, &highest, 0)
    return current != 0
  }

  /// A number that changes when another connection (in this or another process) commits to the
  /// file; compare two readings to notice outside changes (`PRAGMA data_version`).
  ///
  /// For example:
  ///
  /// ```swift
  /// let before = try connection.dataVersion()
  /// // … later …
  /// if try connection.dataVersion() != before { reload() }
  /// ```
  ///
  /// - Returns: The current data version.
  /// - Throws: ``SQLiteError``.
  public func dataVersion() throws -> Int64 {
    try queryFirst("PRAGMA data_version") { $0.int64(at: 0) } ?? 0
  }

  /// The version of the SQLite library in use, such as `3.40.1`.
  public static var sqliteVersion: String { String(cString: sqlite3_libversion()) }
}

/// The object a layer above works with a ``Connection`` through (``Connection/companion``),
/// told when the connection closes.
package protocol ConnectionCompanion: AnyObject {
  /// The connection closed: the companion must not use it any more.
  func connectionClosed()
}
