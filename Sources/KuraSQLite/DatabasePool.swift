import Foundation
import KuraBase
import Synchronization

/// One SQLite file shared by one serialized writer and several concurrent readers (WAL mode).
///
/// Writes run one at a time in `BEGIN IMMEDIATE` transactions on the writer connection; reads run
/// at the same time on reader connections and see the last committed state. Every commit, by any
/// pool on the same file in this or another process, moves ``changeCount`` — read from SQLite's
/// WAL index, which the commit itself updates, with a few memory loads — and wakes
/// the observers of the layers above (preferences, live queries) through the process's one file
/// watcher. The pool keeps its file in WAL mode: don't change `journal_mode` or `locking_mode` on
/// its connections (the change signal reads SQLite's WAL index while the writer connection lives).
///
/// The methods block while they wait for a connection; call them from any thread or task.
/// Connections stay open between operations (holding SQLite's WAL locks) until
/// ``KuraLibrary/suspend(waitingAtMost:)`` closes them before an iOS app is suspended.
///
/// For example:
///
/// ```swift
/// let pool = try DatabasePool(path: "/tmp/notes.sqlite")
/// try pool.write { db in
///   try db.execute("CREATE TABLE IF NOT EXISTS note (id INTEGER PRIMARY KEY, text TEXT)")
///   try db.run("INSERT INTO note (text) VALUES (?)", [.text("hello")])
/// }
/// let count = try pool.read { db in
///   try db.queryFirst("SELECT count(*) FROM note") { $0.int64(at: 0) } ?? 0
/// }
/// ```
public final class DatabasePool: Sendable {
  /// The database file, or `":memory:"`.
  public let path: String
  // The writer is guarded by an NSLock rather than a Mutex: a Mutex's `withLock` requires its
  // result to be `sending`, which would forbid returning non-Sendable values from `write`.
  private let writerLock = NSLock()
  private let writer: WriterSlot
  private let readers: ConnectionPool<Connection>
  package let signal: DatabaseChangeSignal
  private let observers = ChangeObservers()
  /// The process's count of operations holding file locks (``FileLockActivity/shared``), kept
  /// here so that each read and write does not go through the global's lazy initialization.
  private let activity = FileLockActivity.shared
  /// The ``changeCount`` the observers were last called for.
  private let lastSeen = Mutex<UInt64>(0)

  /// Opens (creating when missing, with mode 0600) a database file.
  ///
  /// For example:
  ///
  /// ```swift
  /// let pool = try DatabasePool(path: storeURL.path)
  /// ```
  ///
  /// - Parameters:
  ///   - path: The file. Its folder must exist.
  ///   - maximumIdleReaders: How many reader connections to keep open between reads.
  ///   - readOnly: Whether the file (or its folder) can't be written: every connection then
  ///     reads it as found (``Connection/OpenMode/inspect``) and writes fail.
  /// - Throws: ``SQLiteError`` when the file cannot be opened or is not a database.
  public init(path: String, maximumIdleReaders: Int = 4, readOnly: Bool = false) throws {
    self.path = path
    self.isInMemory = path == ":memory:"
    self.readers = ConnectionPool(limit: nil, maximumIdle: maximumIdleReaders)
    self.isReadOnly = readOnly
    let connection = try Connection(
      path: path, mode: readOnly ? .inspect : .readWrite(create: true))
    self.writer = WriterSlot(connection)
    self.signal = DatabaseChangeSignal(writer: connection, path: path)
    if path != ":memory:" && !readOnly { FileLockActivity.shared.register(self) }
  }

  /// Whether the pool only reads (see ``init(path:maximumIdleReaders:readOnly:)``).
  ///
  /// For example: `if pool.isReadOnly { … }`.
  public let isReadOnly: Bool

  /// Opens a private in-memory database (one connection serves reads and writes).
  ///
  /// For example:
  ///
  /// ```swift
  /// let pool = try DatabasePool.inMemory()
  /// ```
  ///
  /// - Returns: The pool.
  /// - Throws: ``SQLiteError``.
  public static func inMemory() throws -> DatabasePool {
    try DatabasePool(path: ":memory:")
  }

  /// Whether this pool lives in memory.
  ///
  /// For example: `if pool.isInMemory { … }`.
  // Stored: every read and write asks, and comparing the path costs a string comparison.
  public let isInMemory: Bool

  /// Runs `body` on the writer connection inside a `BEGIN IMMEDIATE` transaction, committed when it
  /// returns and rolled back when it throws. Writers are serialized, across processes too.
  ///
  /// For example:
  ///
  /// ```swift
  /// try pool.write { db in try db.run("DELETE FROM note") }
  /// ```
  ///
  /// - Parameter body: The work, given the writer connection.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws, or ``SQLiteError``.
  public func write<Result>(_ body: (Connection) throws -> Result) throws -> Result {
    try writeWithoutTransaction { db in try db.transaction(.immediate) { try body(db) } }
  }

  /// Runs `body` on the writer connection without opening a transaction (for pragmas, `VACUUM`, or
  /// work that manages its own transactions).
  ///
  /// For example:
  ///
  /// ```swift
  /// try pool.writeWithoutTransaction { db in try db.execute("VACUUM") }
  /// ```
  ///
  /// - Parameter body: The work, given the writer connection.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws, or ``SQLiteError``.
  public func writeWithoutTransaction<Result>(_ body: (Connection) throws -> Result) throws
    -> Result
  {
    let operation = activity.begin()
    defer { activity.end(operation) }
    writerLock.lock()
    defer { writerLock.unlock() }
    let writer = try openWriter(self.writer)
    defer { if activity.isSuspended { closeWriter() } }
    guard isInMemory else { return try body(writer) }
    let before = writer.totalChanges
    defer { if writer.totalChanges != before, !writer.isInTransaction { signal.inMemoryCommit() } }
    return try body(writer)
  }

  /// Runs `body` on a reader connection. Each statement sees the last committed state; reads run
  /// concurrently with each other and with the writer. Use ``readSnapshot(_:)`` when several
  /// statements must see one state.
  ///
  /// For example:
  ///
  /// ```swift
  /// let names = try pool.read { db in try db.query("SELECT text FROM note") { $0.string(at: 0) } }
  /// ```
  ///
  /// - Parameter body: The work, given a reader connection.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws, or ``SQLiteError``.
  public func read<Result>(_ body: (Connection) throws -> Result) throws -> Result {
    if isInMemory { return try writeWithoutTransaction(body) }
    let operation = activity.begin()
    defer { activity.end(operation) }
    let reader = try takeReader()
    defer { giveBack(reader) }
    return try body(reader)
  }

  /// Runs `body` on a reader connection inside one read transaction, so every statement sees
  /// the same committed state.
  ///
  /// For example:
  ///
  /// ```swift
  /// let (a, b) = try pool.readSnapshot { db in (try count(db, "a"), try count(db, "b")) }
  /// ```
  ///
  /// - Parameter body: The work.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws, or ``SQLiteError``.
  public func readSnapshot<Result>(_ body: (Connection) throws -> Result) throws -> Result {
    try read { db in try db.transaction(.deferred) { try body(db) } }
  }

  private func takeReader() throws -> Connection {
    if case .idle(let reader)? = readers.checkOut(waiting: .zero) { return reader }
    do {
      return try Connection(path: path, mode: isReadOnly ? .inspect : .readOnly)
    } catch {
      readers.discard()
      throw error
    }
  }

  private func giveBack(_ reader: Connection) {
    // A statement left after its first row (a lookup) would keep the read snapshot open, and
    // be prepared again by the next read; a read that left no transaction open (a lookup that
    // rewound its statement) left no such statement either.
    reader.endReads()
    // A read-only pool's readers leave the files as found, so each sees the file as it was when
    // it opened (read as immutable, from a private copy, or through a private WAL index when it
    // may not use the shared one): none is kept, and the next read sees later commits.
    // While suspended, a reader is closed (released here) rather than kept with its WAL lock.
    readers.checkIn(reader, keep: !isReadOnly && !activity.isSuspended)
  }

  /// Closes the writer unless a transaction is open on it. Call with `writerLock` held.
  private func closeWriter() {
    if isInMemory || writer.connection?.isInTransaction == true { return }
    // The change signal reads SQLite's mapping of the WAL index, which closing unmaps.
    signal.detach()
    writer.connection = nil
  }

  /// Closes every connection not in use (the next operation opens what it needs), so the pool
  /// holds no file lock. Returns false when a transaction left open keeps the writer open.
  /// A writer busy with an operation that began after the suspension is left to it: it closes
  /// the writer when it ends.
  package func closeConnections() -> Bool {
    readers.closeIdle()
    guard writerLock.try() else { return true }
    defer { writerLock.unlock() }
    closeWriter()
    return writer.connection == nil || isInMemory
  }

  // MARK: Noticing changes

  /// A number that changes with every commit to the file, by any pool in any process. Reading it
  /// costs a few memory loads (SQLite's WAL index); compare two readings to notice a change. It
  /// usually grows by one per commit, but may jump (when the WAL restarts): compare for equality.
  ///
  /// For example:
  ///
  /// ```swift
  /// let seen = pool.changeCount
  /// // … later …
  /// if pool.changeCount != seen { reload() }
  /// ```
  public var changeCount: UInt64 { signal.stamp }

  /// Calls `handler` (on the process's file-watching thread) after commits to the file by any
  /// process, until the returned observation is cancelled or released. Several quick commits may
  /// be reported once; the handler is given the ``changeCount`` it saw. Keep it short: one thread
  /// serves every observer of the process. (The layers above turn this wake-up into their
  /// `AsyncStream`s and Observation changes; it is not public API.)
  package func observeChanges(_ handler: @escaping @Sendable (UInt64) -> Void) -> ChangeObservation
  {
    guard let (folder, names) = signal.watchedNames else { return ChangeObservation {} }
    return observers.add(handler) {
      lastSeen.withLock { $0 = signal.stamp }
      return FileChangeMonitor.shared.subscribe(folder: folder, names: names) {
        [weak self] in self?.deliverIfChanged() ?? false
      }
    }
  }

  /// Calls the handlers when the stamp moved since they were last called.
  private func deliverIfChanged() -> Bool {
    let stamp = signal.stamp
    let moved = lastSeen.withLock { lastSeen in
      defer { lastSeen = stamp }
      return stamp != lastSeen
    }
    guard moved else { return false }
    let handlers = observers.handlers
    for handler in handlers { handler(stamp) }
    return !handlers.isEmpty
  }
}
