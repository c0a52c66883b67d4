#if canImport(CLibPQ)
  import Foundation
  import Synchronization

  /// The connections of one PostgreSQL store (the case of ``StorePool``): one writer, idle
  /// readers, and a listener for the change signal.
  ///
  /// - Saves run in parallel, across processes and hosts: a save is `BEGIN` (`READ COMMITTED`)
  ///   and `SELECT pg_advisory_xact_lock_shared(<Kura's key>, hashtext(current_schema()))`,
  ///   which no other save waits for: it marks the transaction as a writer of this store, so
  ///   readers know which running transactions may still add history
  ///   (``PostgresStoreEngine/horizonFunctionSQL``). A save that meets another's uncommitted
  ///   row — a unique violation when both insert the same id or unique value, a deadlock, a
  ///   serialization failure — is rolled back and run again (Kura's own statements, up to
  ///   ``conflictRetries`` times), so concurrent upserts end as if one ran after the other.
  /// - ``ModelContainer/write(_:)`` is `BEGIN ISOLATION LEVEL REPEATABLE READ` and `LOCK TABLE
  ///   kura_metadata IN SHARE UPDATE EXCLUSIVE MODE` (``beginSerializedSQL``): writes wait for
  ///   each other — an atomic read-modify-write across processes — and the snapshot its fetches
  ///   read is taken after the lock. A plain save that changes a row the write then changes
  ///   makes the write fail (`40001`, ``StoreError/Code/postgres``, nothing written), not retried:
  ///   its body is the app's code.
  /// - Schema changes take the store's lock exclusively (``beginAndLockSQL``): they wait for
  ///   every save under way, and saves wait for them.
  /// - A connection lost while committing is resolved: the pool connects again, waits for the
  ///   write lock (so the broken transaction has ended) and looks up the save id the
  ///   transaction's history row holds. Found: the save committed and returns normally. Not
  ///   found: ``StoreError/Code/connectionLost`` (nothing was written). Undecidable (no history
  ///   row, or the server stays unreachable): ``StoreError/Code/commitOutcomeUnknown``.
  /// - Reads run outside transactions (each statement sees the last commit), snapshots in
  ///   `REPEATABLE READ`. A connection found broken when an operation starts is connected again.
  /// - The change signal is `LISTEN` on the store's channel on a connection of its own
  ///   (``PostgresListener``, on a thread started by the first observer): every notification,
  ///   and every reconnection (notifications sent meanwhile are lost), calls the handlers, which
  ///   read the history table — the lossless record — from their last token.
  // Safety: the writer and the readers are handed out under locks, one caller at a time; the
  // observers' state is in a Mutex.
  final class PostgresStorePool: @unchecked Sendable {
    /// The server and database.
    let location: PostgresLocation
    /// The schema holding the store's tables (the connection's `current_schema()`).
    let schema: String
    /// The notification channel of the store (one per database and schema).
    let channel: String
    /// Whether the container only reads.
    let isReadOnly: Bool
    /// The password-free URL naming the store in errors.
    let url: URL

    private let writerLock = NSLock()
    private var writer: PostgresStoreConnection?
    private let readerLock = NSLock()
    private var idleReaders: [PostgresStoreConnection] = []
    /// Raised by every schema change: connections drop their prepared statements.
    private let schemaGeneration = Atomic<Int>(0)
    private let changes = Atomic<UInt64>(0)
    private let observers = Mutex(Observers())

    private struct Observers {
      var handlers: [Int: @Sendable (UInt64) -> Void] = [:]
      var next = 0
      var listening: ListenLoop?
    }

    /// Kura's first key of `pg_advisory_xact_lock` ("KURA").
    static let lockKey: Int64 = 0x4B55_5241

    /// Takes the store's lock exclusively for the open transaction.
    static let lockSQL = "SELECT pg_advisory_xact_lock(?, hashtext(current_schema()))"

    /// Opens a transaction changing the schema and takes the store's lock exclusively, in one
    /// round trip (a `BEGIN` in a simple query keeps the transaction open after it).
    static let beginAndLockSQL =
      "BEGIN; SELECT pg_advisory_xact_lock(\(lockKey), hashtext(current_schema()))"

    /// Opens a save's transaction and takes the store's lock shared (saves don't wait for each
    /// other; readers see them as writers of the store), in one round trip.
    static let beginSQL =
      "BEGIN; SELECT pg_advisory_xact_lock_shared(\(lockKey), hashtext(current_schema()))"

    /// Opens the transaction of ``ModelContainer/write(_:)``: `REPEATABLE READ`, the lock
    /// writes wait for each other on (a table lock takes no snapshot, so the snapshot is taken
    /// by the statement after it, once the lock is held), and the store's lock shared.
    static let beginSerializedSQL =
      "BEGIN ISOLATION LEVEL REPEATABLE READ; LOCK TABLE kura_metadata IN SHARE UPDATE "
      + "EXCLUSIVE MODE; SELECT pg_advisory_xact_lock_shared(\(lockKey), "
      + "hashtext(current_schema()))"

    /// The notification of a committed save, sent after its commit in a transaction of its own
    /// with `synchronous_commit` off: PostgreSQL holds a cluster-wide lock from a notifying
    /// transaction's commit until it has been flushed (so notifications queue in commit order),
    /// which made every save's flush wait for the one before it. Here the lock is held for a
    /// commit that waits for no flush; the save's own commit takes no such lock, so writers
    /// share their flushes. Parameters: the channel and the token (a literal each: one simple
    /// query, one round trip).
    static func notifySQL(channel: String, token: Int64) -> String {
      "BEGIN; SET LOCAL synchronous_commit = off; SELECT pg_notify("
        + PostgresStoreEngine.quotedText(channel) + ", '\(token)'); COMMIT"
    }

    /// How many times a save that conflicted with another writer's (see the type's notes) is
    /// run again before its error is reported.
    static let conflictRetries = 8

    /// Opens the store's first connection (the writer), reading its schema.
    init(location: PostgresLocation, readOnly: Bool) throws {
      self.location = location
      self.url = location.passwordFreeURL
      self.isReadOnly = readOnly
      let connection = try PostgresConnection(location: location)
      guard
        let schema = try connection.queryFirst(
          "SELECT current_schema()",
          row: { row in
            row.isNull(at: 0) ? nil : row.string(at: 0)
          }), let schema
      else {
        throw StoreError(
          .cannotOpen, url: location.passwordFreeURL,
          message:
            "Can't open store `\(location.storeName)`: the connection has no current schema "
            + "(its `search_path` names no schema that exists). Create the schema, or set "
            + "`search_path` (such as `?options=-csearch_path%3Dapp` in the URL).")
      }
      self.schema = schema
      self.channel = Self.channel(schema: schema)
      self.writer = PostgresStoreConnection(connection: connection, channel: channel)
    }

    deinit {
      let loop = observers.withLock { observers -> ListenLoop? in
        defer { observers.listening = nil }
        return observers.listening
      }
      loop?.stop()
    }

    /// `kura_changes_` and a hash of the schema name (channel names are at most 63 bytes).
    static func channel(schema: String) -> String {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in schema.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
      }
      return "kura_changes_" + String(hash, radix: 16)
    }

    // MARK: Connections

    private func connect() throws -> PostgresStoreConnection {
      let connection = PostgresStoreConnection(
        connection: try PostgresConnection(location: location), channel: channel)
      connection.schemaGeneration = schemaGeneration.load(ordering: .acquiring)
      return connection
    }

    /// The connection, ready: connected again when broken, its statements dropped after a
    /// schema change.
    private func ready(_ connection: PostgresStoreConnection) throws {
      if !connection.connection.isConnected { try connection.connection.reconnect() }
      let generation = schemaGeneration.load(ordering: .acquiring)
      if connection.schemaGeneration != generation {
        connection.connection.clearStatementCache()
        connection.schemaGeneration = generation
      }
    }

    private func takeReader() throws -> PostgresStoreConnection {
      readerLock.lock()
      let reader = idleReaders.popLast()
      readerLock.unlock()
      if let reader {
        try ready(reader)
        return reader
      }
      return try connect()
    }

    private func giveBack(_ reader: PostgresStoreConnection) {
      if reader.connection.isInTransaction { try? reader.connection.execute("ROLLBACK") }
      guard reader.connection.isConnected else { return }
      readerLock.lock()
      if idleReaders.count < 4 { idleReaders.append(reader) }
      readerLock.unlock()
    }

    /// Runs `operation` on a reader; once more on a new connection when the first one turns
    /// out broken (reads can run again).
    private func withReader<Result>(_ operation: (PostgresStoreConnection) throws -> Result)
      throws -> Result
    {
      let reader = try takeReader()
      do {
        let result = try operation(reader)
        giveBack(reader)
        return result
      } catch let error as PostgresError where error.kind == .connectionLost {
        let fresh = try connect()
        let result = try operation(fresh)
        giveBack(fresh)
        return result
      }
    }

    // MARK: Reading

    /// Runs `body` on a reader; each statement sees the last committed state.
    func read<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
      try withReader { try body(.postgres($0)) }
    }

    /// Runs `body` on a reader inside one `REPEATABLE READ` transaction.
    func readSnapshot<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
      try withReader { reader in
        try reader.connection.transaction(.repeatableRead) { try body(.postgres(reader)) }
      }
    }

    // MARK: Writing

    /// Runs `body` in a save's transaction, in parallel with other writers; `body` runs again
    /// when it conflicted with another writer (so it must be Kura's own statements, which can).
    func write<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
      writerLock.lock()
      defer { writerLock.unlock() }
      let writer = try writerConnection()
      let result = try transaction(
        writer, begin: Self.beginSQL, retries: Self.conflictRetries, body)
      changes.add(1, ordering: .relaxed)
      return result
    }

    /// Runs `body` in the transaction of ``ModelContainer/write(_:)``: writes of this kind wait
    /// for each other, in every process (see ``beginSerializedSQL``); run once.
    func writeSerialized<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
      writerLock.lock()
      defer { writerLock.unlock() }
      let writer = try writerConnection()
      let result = try transaction(writer, begin: Self.beginSerializedSQL, retries: 0, body)
      changes.add(1, ordering: .relaxed)
      return result
    }

    /// Runs `body` on the writer without opening a transaction.
    func writeWithoutTransaction<Result>(_ body: (StoreConnection) throws -> Result) throws
      -> Result
    {
      writerLock.lock()
      defer { writerLock.unlock() }
      let writer = try writerConnection()
      return try body(.postgres(writer))
    }

    /// A write transaction that changes tables: prepared statements of every connection are
    /// dropped afterwards (their tables may have changed).
    func writeSchemaChanges<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
      writerLock.lock()
      defer { writerLock.unlock() }
      let writer = try writerConnection()
      writer.connection.clearStatementCache()
      defer {
        schemaGeneration.add(1, ordering: .releasing)
        writer.connection.clearStatementCache()
        writer.schemaGeneration = schemaGeneration.load(ordering: .acquiring)
      }
      return try transaction(writer, begin: Self.beginAndLockSQL, retries: 0) { db in
        if try !PostgresStoreEngine.functionsAreCurrent(writer.connection) {
          try PostgresStoreEngine.createFunctions(writer.connection)
        }
        return try body(db)
      }
    }

    private func writerConnection() throws -> PostgresStoreConnection {
      if let writer {
        try ready(writer)
        return writer
      }
      let connection = try connect()
      writer = connection
      return connection
    }

    /// `begin` (`BEGIN` and the store's lock, one round trip), `body`, `COMMIT`; a broken
    /// connection found by the first is connected again first, and a commit whose outcome the
    /// broken connection hid is resolved. A conflict with another writer rolls back and runs
    /// `body` again, up to `retries` times.
    private func transaction<Result>(
      _ writer: PostgresStoreConnection, begin: String, retries: Int,
      _ body: (StoreConnection) throws -> Result
    ) throws -> Result {
      var attempt = 0
      while true {
        do {
          return try transactionOnce(writer, begin: begin, body)
        } catch let error where attempt < retries && Self.isConflict(error) {
          attempt += 1
        }
      }
    }

    /// Whether `error` is a conflict with another writer that running the save again resolves:
    /// a unique violation (the other inserted the same key first), a deadlock, a serialization
    /// failure.
    static func isConflict(_ error: any Error) -> Bool {
      let postgres = error as? PostgresError ?? (error as? StoreError)?.postgresError
      guard let postgres, !postgres.isCommitOutcomeUnknown else { return false }
      return [.uniqueViolation, .deadlock, .serializationFailure].contains(postgres.kind)
    }

    private func transactionOnce<Result>(
      _ writer: PostgresStoreConnection, begin: String, _ body: (StoreConnection) throws -> Result
    ) throws -> Result {
      let result = try transactionCommitted(writer, begin: begin, body)
      if let token = writer.pendingNotification {
        writer.pendingNotification = nil
        // The save has committed: a notification that fails (the connection broke just after
        // the commit) wakes no listener now, and the next save's or the listener's reconnection
        // does; the history, read from each reader's token, loses nothing meanwhile.
        do {
          try writer.connection.execute(Self.notifySQL(channel: channel, token: token))
        } catch {
          if writer.connection.isInTransaction { try? writer.connection.execute("ROLLBACK") }
        }
      }
      return result
    }

    private func transactionCommitted<Result>(
      _ writer: PostgresStoreConnection, begin: String, _ body: (StoreConnection) throws -> Result
    ) throws -> Result {
      var result: Result?
      writer.pendingSaveID = nil
      writer.pendingNotification = nil
      do {
        do {
          try writer.connection.execute(begin)
        } catch let error as PostgresError where error.kind == .connectionLost {
          try writer.connection.reconnect()
          try writer.connection.execute(begin)
        }
        result = try body(.postgres(writer))
        try writer.connection.commitOpenTransaction()
      } catch let error as PostgresError where error.isCommitOutcomeUnknown {
        guard let result else { throw error }
        if try committed(writer, after: error) { return result }
        throw StoreError(
          .connectionLost, url: url, sql: error.sql, postgresError: error,
          message:
            "Can't save to store `\(location.storeName)`: the connection to the server broke "
            + "while the save was committing, and the server shows it did not commit. Nothing "
            + "of it was written; retry it.")
      } catch {
        // Also after a failed lock: the `BEGIN` before it left the transaction open (aborted).
        if writer.connection.isInTransaction {
          try? writer.connection.execute("ROLLBACK")
        }
        throw error
      }
      guard let result else { preconditionFailure("a committed write has a result") }
      return result
    }

    /// Whether the transaction whose commit `error` interrupted committed: connects again,
    /// waits for the write lock (held until the broken transaction ended) and looks up the
    /// save id of its history row.
    private func committed(_ writer: PostgresStoreConnection, after error: PostgresError) throws
      -> Bool
    {
      guard let saveID = writer.pendingSaveID else {
        throw outcomeUnknown(
          error, because: "the store keeps no history to look it up in (`HistoryRetention.off`)")
      }
      var lastError: any Error = error
      for attempt in 0..<5 {
        do {
          try writer.connection.reconnect()
          return try writer.connection.transaction {
            try writer.connection.run(Self.lockSQL, [.integer(Self.lockKey)])
            return try writer.connection.queryFirst(
              "SELECT 1 FROM kura_history WHERE save_id = ?", [.text(saveID)]
            ) { _ in true } ?? false
          }
        } catch {
          lastError = error
          usleep(UInt32(100_000 * (attempt + 1)))
        }
      }
      throw outcomeUnknown(error, because: "connecting again to look it up failed (\(lastError))")
    }

    /// The error for a save whose commit `error` interrupted when its outcome can't be looked
    /// up, `reason` saying why.
    private func outcomeUnknown(_ error: PostgresError, because reason: String) -> StoreError {
      StoreError(
        .commitOutcomeUnknown, url: url, sql: error.sql, postgresError: error,
        message:
          "Can't tell whether the save to store `\(location.storeName)` committed: the "
          + "connection to the server broke while it was committing, and \(reason). It may or "
          + "may not have been saved; read the data back before retrying.")
    }

    // MARK: Change signal

    /// A number that changes with every commit of this pool and every notification received.
    var changeCount: UInt64 { changes.load(ordering: .relaxed) }

    /// Calls `handler` after commits by any process (each notification on the store's channel)
    /// and after the listener connected again, until the observation is cancelled.
    func observeChanges(_ handler: @escaping @Sendable (UInt64) -> Void) -> ChangeObservation {
      let (id, start) = observers.withLock { observers -> (Int, Bool) in
        observers.next += 1
        observers.handlers[observers.next] = handler
        return (observers.next, observers.listening == nil)
      }
      if start {
        let loop = ListenLoop(location: location, channel: channel) { [weak self] in
          self?.deliver()
        }
        observers.withLock { $0.listening = loop }
        loop.start()
      }
      return ChangeObservation { [weak self] in
        let stopped: ListenLoop?? = self?.observers.withLock { observers -> ListenLoop? in
          observers.handlers[id] = nil
          guard observers.handlers.isEmpty else { return nil }
          defer { observers.listening = nil }
          return observers.listening
        }
        if let stopped, let stopped { stopped.stop() }
      }
    }

    /// Calls every handler.
    private func deliver() {
      let count = changes.add(1, ordering: .relaxed).newValue
      let handlers = observers.withLock { Array($0.handlers.values) }
      for handler in handlers { handler(count) }
    }
  }

  /// The thread that listens on a store's channel and calls `onChange` for each batch of
  /// notifications and after each reconnection.
  final class ListenLoop: @unchecked Sendable {
    private let location: PostgresLocation
    private let channel: String
    private let onChange: @Sendable () -> Void
    private let stopped = Atomic<Bool>(false)
    private let listener = Mutex<PostgresListener?>(nil)
    /// Signalled when the first `LISTEN` is in place (or failed), so a save right after
    /// `observeChanges` returns is not missed.
    private let ready = DispatchSemaphore(value: 0)

    init(location: PostgresLocation, channel: String, onChange: @escaping @Sendable () -> Void) {
      self.location = location
      self.channel = channel
      self.onChange = onChange
    }

    /// Starts the thread and waits (a few seconds at most) until it listens.
    func start() {
      let thread = Thread { [self] in run() }
      thread.name = "Kura.PostgresListener"
      thread.start()
      _ = ready.wait(timeout: .now() + 5)
    }

    /// Stops the thread (it ends at its next wake-up, which this causes).
    func stop() {
      stopped.store(true, ordering: .releasing)
      listener.withLock { $0?.wakeUp() }
    }

    private func run() {
      var signalled = false
      defer { if !signalled { ready.signal() } }
      var delay: UInt32 = 50_000
      while !stopped.load(ordering: .acquiring) {
        let current: PostgresListener
        if let existing = listener.withLock({ $0 }) {
          current = existing
        } else {
          do {
            let created = try PostgresListener(location: location)
            try created.listen(channel)
            listener.withLock { $0 = created }
            current = created
            if stopped.load(ordering: .acquiring) { break }
            if !signalled {
              signalled = true
              ready.signal()
            } else {
              onChange()  // listening again after a failure: catch up
            }
          } catch {
            if !signalled {
              signalled = true
              ready.signal()
            }
            usleep(delay)
            delay = min(delay * 2, 1_000_000)
            continue
          }
        }
        delay = 50_000
        do {
          let event = try current.wait(timeout: .seconds(10))
          if stopped.load(ordering: .acquiring) { break }
          if !event.notifications.isEmpty || event.reconnected { onChange() }
        } catch {
          usleep(delay)
        }
      }
      listener.withLock { $0 = nil }
    }
  }
#endif
