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
  /// - A connection lost while committing is resolved by the transaction's id, taken with its
  ///   `BEGIN`: the pool connects again and asks `txid_status` (which history trimming never
  ///   touches). Committed: the save returns normally. Aborted:
  ///   ``StoreError/Code/connectionLost`` (nothing was written). Undecidable within
  ///   ``PostgresStoreSettings/commitOutcomeWait``: ``StoreError/Code/commitOutcomeUnknown``.
  /// - Reads run outside transactions (each statement sees the last commit), snapshots in
  ///   `REPEATABLE READ`; a read whose connection breaks runs once more. A connection is checked
  ///   for what the server sent while it was idle (a restart's `FATAL`) before each operation,
  ///   and connected again when it is gone.
  /// - At most ``PostgresStoreSettings/maximumConnections`` connections are open (the writer
  ///   and the readers); a reader waits up to ``PostgresStoreSettings/connectionWait`` for one,
  ///   and a writer as long for the writer, then fails with ``StoreError/Code/busy``.
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

    /// How the pool uses the server (its most connections, waits, the listener's heartbeat).
    let settings: PostgresStoreSettings

    private let writerLock = NSLock()
    private var writer: PostgresStoreConnection?
    /// The idle readers, and the connections open (the writer and every reader, idle or in
    /// use), at most ``PostgresStoreSettings/maximumConnections``.
    private let readers: ConnectionPool<PostgresStoreConnection>
    /// Raised by every schema change: connections drop their prepared statements.
    private let schemaGeneration = Atomic<Int>(0)
    private let changes = Atomic<UInt64>(0)
    private let observers = ChangeObservers()

    /// Kura's first key of `pg_advisory_xact_lock` ("KURA"; ``PostgresStoreConnection/lockKey``).
    static let lockKey = PostgresStoreConnection.lockKey

    /// Opens a transaction changing the schema, takes the store's lock exclusively and returns
    /// the transaction's id, in one round trip (a `BEGIN` in a simple query keeps the
    /// transaction open after it). The id (`txid_current()`, with its epoch: PostgreSQL 12 has
    /// no `pg_current_xact_id()`), assigned here rather than at the first write, is how a commit
    /// whose answer was lost is resolved (``committed(_:after:)``); every `BEGIN` of the pool
    /// returns it as its last column.
    static let beginAndLockSQL =
      "BEGIN; SELECT pg_advisory_xact_lock(\(lockKey), hashtext(current_schema())), "
      + "txid_current()::text"

    /// Opens a save's transaction and takes the store's lock shared (saves don't wait for each
    /// other; readers see them as writers of the store), in one round trip.
    static let beginSQL =
      "BEGIN; SELECT pg_advisory_xact_lock_shared(\(lockKey), hashtext(current_schema())), "
      + "txid_current()::text"

    /// Opens the transaction of ``ModelContainer/write(_:)``: `REPEATABLE READ`, the lock
    /// writes wait for each other on (a table lock takes no snapshot, so the snapshot is taken
    /// by the statement after it, once the lock is held), and the store's lock shared.
    static let beginSerializedSQL =
      "BEGIN ISOLATION LEVEL REPEATABLE READ; LOCK TABLE kura_metadata IN SHARE UPDATE "
      + "EXCLUSIVE MODE; SELECT pg_advisory_xact_lock_shared(\(lockKey), "
      + "hashtext(current_schema())), txid_current()::text"

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
    init(
      location: PostgresLocation, readOnly: Bool,
      settings: PostgresStoreSettings = PostgresStoreSettings()
    ) throws {
      self.location = location
      self.settings = settings
      self.url = location.passwordFreeURL
      self.isReadOnly = readOnly
      self.readers = ConnectionPool(
        limit: max(settings.maximumConnections, 2), alreadyOpen: 1)
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
      if !connection.connection.isAlive { try connection.connection.reconnect() }
      let generation = schemaGeneration.load(ordering: .acquiring)
      if connection.schemaGeneration != generation {
        connection.connection.clearStatementCache()
        connection.schemaGeneration = generation
      }
    }

    /// The pool this thread reads on, while a read runs (a read nested in another one takes a
    /// connection beyond the limit rather than waiting for itself).
    @TaskLocal private static var reading: ObjectIdentifier?

    /// An idle reader, else a new connection while fewer than the most are open, else the
    /// first to come back — waiting at most ``PostgresStoreSettings/connectionWait``.
    private func takeReader() throws -> PostgresStoreConnection {
      let nested = Self.reading == ObjectIdentifier(self)
      guard
        let checkout = readers.checkOut(waiting: settings.connectionWait, ignoringLimit: nested)
      else {
        throw StoreError(
          .busy, url: url,
          message:
            "Can't read store `\(location.storeName)`: all \(readers.limit ?? 0) of its "
            + "connections stayed busy for \(settings.connectionWait) (PostgresStoreSettings."
            + "maximumConnections). Nothing was done; retry, or allow more connections or a "
            + "longer connectionWait in ModelConfiguration.postgresSettings.")
      }
      do {
        guard case .idle(let reader) = checkout else { return try connect() }
        try ready(reader)
        return reader
      } catch {
        readers.discard()
        throw error
      }
    }

    private func giveBack(_ reader: PostgresStoreConnection) {
      if reader.connection.isInTransaction { try? reader.connection.execute("ROLLBACK") }
      readers.checkIn(reader, keep: reader.connection.isConnected)
    }

    /// A duration in seconds.
    private static func seconds(_ duration: Duration) -> TimeInterval {
      let (seconds, attoseconds) = duration.components
      return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// Runs `operation` on a reader; once more, connected again, when the connection turns
    /// out broken (reads can run again). A read that loses its connection twice is
    /// ``PostgresError/Code/connectionLost`` — never an unknown commit outcome: it wrote
    /// nothing.
    private func withReader<Result>(_ operation: (PostgresStoreConnection) throws -> Result)
      throws -> Result
    {
      let reader = try takeReader()
      defer { giveBack(reader) }
      return try Self.$reading.withValue(ObjectIdentifier(self)) {
        do {
          return try operation(reader)
        } catch let error as PostgresError where error.code == .connectionLost {
          do {
            try reader.connection.reconnect()
            return try operation(reader)
          } catch var again as PostgresError where again.code == .connectionLost {
            again.isCommitOutcomeUnknown = false
            throw again
          }
        }
      }
    }

    // MARK: Reading

    /// Runs `body` on a reader; each statement sees the last committed state.
    func read<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
      try withReader { try body($0) }
    }

    /// Runs `body` on a reader inside one `REPEATABLE READ` transaction.
    func readSnapshot<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
      try withReader { reader in
        try reader.connection.transaction(.repeatableRead) { try body(reader) }
      }
    }

    // MARK: Writing

    /// Runs `body` in a save's transaction, in parallel with other writers; `body` runs again
    /// when it conflicted with another writer (so it must be Kura's own statements, which can).
    func write<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
      try lockWriter()
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
      try lockWriter()
      defer { writerLock.unlock() }
      let writer = try writerConnection()
      let result = try transaction(writer, begin: Self.beginSerializedSQL, retries: 0, body)
      changes.add(1, ordering: .relaxed)
      return result
    }

    /// A write transaction that changes tables: prepared statements of every connection are
    /// dropped afterwards (their tables may have changed).
    func writeSchemaChanges<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
      try lockWriter()
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

    /// Takes the writer for this thread, waiting at most
    /// ``PostgresStoreSettings/connectionWait`` while another thread of the process writes.
    private func lockWriter() throws {
      let deadline = Date(timeIntervalSinceNow: Self.seconds(settings.connectionWait))
      guard writerLock.lock(before: deadline) else {
        throw StoreError(
          .busy, url: url,
          message:
            "Can't write to store `\(location.storeName)`: another write of this container held "
            + "its writer connection for \(settings.connectionWait) (PostgresStoreSettings."
            + "connectionWait). Nothing was written; retry, or allow a longer connectionWait in "
            + "ModelConfiguration.postgresSettings.")
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

    /// `begin` (`BEGIN`, the store's lock and the transaction's id, one round trip), `body`,
    /// `COMMIT`; a broken connection found by the first is connected again first, and a commit
    /// whose outcome the broken connection hid is resolved by the transaction's id. A conflict
    /// with another writer rolls back and runs `body` again, up to `retries` times.
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
      let postgres = error as? PostgresError ?? (error as? StoreError)?.underlying as? PostgresError
      guard let postgres, !postgres.isCommitOutcomeUnknown else { return false }
      return [.uniqueViolation, .deadlock, .serializationFailure].contains(postgres.code)
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
      writer.pendingTransaction = nil
      do {
        let transactionID: String?
        do {
          transactionID = try writer.connection.executeReturningText(begin)
        } catch let error as PostgresError where error.code == .connectionLost {
          try writer.connection.reconnect()
          transactionID = try writer.connection.executeReturningText(begin)
        }
        writer.pendingTransaction = transactionID.map {
          PendingTransaction(id: $0, backend: writer.connection.processID)
        }
        let value = try body(writer)
        result = value
        try writer.connection.commitOpenTransaction()
        return value
      } catch let error as PostgresError where error.isCommitOutcomeUnknown {
        guard let result else { throw error }
        if try committed(writer, after: error) { return result }
        throw StoreError(
          .connectionLost, url: url, sql: error.sql, underlying: error,
          message:
            "Can't save to store `\(location.storeName)`: the connection to the server broke "
            + "while the save was committing, and the server shows its transaction did not "
            + "commit (`txid_status` says aborted). Nothing of it was written; retry it.")
      } catch {
        // Also after a failed lock: the `BEGIN` before it left the transaction open (aborted).
        if writer.connection.isInTransaction {
          try? writer.connection.execute("ROLLBACK")
        }
        throw error
      }
    }

    /// The transaction a write has open: its id (`txid_current()`, taken with `BEGIN`)
    /// and the server backend running it.
    struct PendingTransaction {
      var id: String
      var backend: Int32
    }

    /// Whether the transaction whose commit `error` interrupted committed: connects again and
    /// asks the server for the status of its transaction id (`txid_status`, which history
    /// trimming never touches and which holds with history off). While the broken
    /// connection's backend still runs the transaction (it hasn't yet noticed its client is
    /// gone), it waits a second, then ends that backend — the transaction then commits or
    /// aborts — and asks again. Undecidable within ``PostgresStoreSettings/commitOutcomeWait`` (the server stays
    /// unreachable, or it no longer knows so old a transaction):
    /// ``StoreError/Code/commitOutcomeUnknown``.
    private func committed(_ writer: PostgresStoreConnection, after error: PostgresError) throws
      -> Bool
    {
      guard let pending = writer.pendingTransaction else {
        throw outcomeUnknown(error, because: "no transaction id was taken before the commit")
      }
      let clock = ContinuousClock()
      let start = clock.now
      let deadline = start + settings.commitOutcomeWait
      var lastError: any Error = error
      var delay: UInt32 = 20_000
      var terminated = false
      while clock.now < deadline {
        do {
          if !writer.connection.isConnected || writer.connection.processID == pending.backend {
            try writer.connection.reconnect()
          }
          while clock.now < deadline {
            let status = try writer.connection.queryFirst(
              "SELECT txid_status(?::bigint)", [.text(pending.id)]
            ) { $0.isNull(at: 0) ? nil : $0.string(at: 0) }
            switch status {
            case "committed"?: return true
            case "aborted"?: return false
            case "in progress"?:
              if !terminated, start.duration(to: clock.now) > .seconds(1) {
                terminated = true
                try endBackend(pending, on: writer.connection)
              } else {
                usleep(20_000)
              }
            default:
              throw outcomeUnknown(
                error,
                because: "the server no longer knows its transaction \(pending.id) (older than "
                  + "the status it keeps)")
            }
          }
        } catch let outcome as StoreError {
          throw outcome
        } catch {
          lastError = error
          usleep(delay)
          delay = min(delay * 2, 1_000_000)
        }
      }
      throw outcomeUnknown(
        error,
        because: "asking the server within \(settings.commitOutcomeWait) failed (\(lastError))")
    }

    /// Ends the backend of the broken connection while it still runs `pending` (its process
    /// id, and the transaction's low 32 bits, which `pg_stat_activity` shows), waiting up to 5
    /// seconds for it to go.
    private func endBackend(_ pending: PendingTransaction, on connection: PostgresConnection)
      throws
    {
      let low = (UInt64(pending.id) ?? 0) & 0xFFFF_FFFF
      _ = try connection.queryFirst(
        "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
          + "WHERE pid = ? AND backend_xid::text = ?",
        [.integer(Int64(pending.backend)), .text(String(low))]
      ) { _ in true }
    }

    /// The error for a save whose commit `error` interrupted when its outcome can't be looked
    /// up, `reason` saying why.
    private func outcomeUnknown(_ error: PostgresError, because reason: String) -> StoreError {
      StoreError(
        .commitOutcomeUnknown, url: url, sql: error.sql, underlying: error,
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
      observers.add(handler) {
        let loop = ListenLoop(
          location: location, channel: channel, heartbeat: settings.listenerHeartbeat
        ) { [weak self] in
          self?.deliver()
        }
        loop.start()
        return ChangeObservation { loop.stop() }
      }
    }

    /// Calls every handler.
    private func deliver() {
      let count = changes.add(1, ordering: .relaxed).newValue
      for handler in observers.handlers { handler(count) }
    }
  }

  /// The thread that listens on a store's channel and calls `onChange` for each batch of
  /// notifications and after each reconnection.
  final class ListenLoop: @unchecked Sendable {
    private let location: PostgresLocation
    private let channel: String
    private let heartbeat: Duration
    private let onChange: @Sendable () -> Void
    private let stopped = Atomic<Bool>(false)
    private let listener = Mutex<PostgresListener?>(nil)
    /// Signalled when the first `LISTEN` is in place (or failed), so a save right after
    /// `observeChanges` returns is not missed.
    private let ready = DispatchSemaphore(value: 0)

    init(
      location: PostgresLocation, channel: String, heartbeat: Duration,
      onChange: @escaping @Sendable () -> Void
    ) {
      self.location = location
      self.channel = channel
      self.heartbeat = heartbeat
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

    /// Waits on the listener until stopped. Connecting, and connecting again after a failure
    /// (with growing pauses), is ``PostgresListener/wait(timeout:)``'s: the first wait only
    /// tries once, so ``start()`` is not held up by a server that can't be reached.
    private func run() {
      var signalled = false
      defer { if !signalled { ready.signal() } }
      // Whether the handlers were called for the failure under way: the server can't be reached,
      // so their catch-up read fails and says so (``LiveQuery/error``), and is retried with
      // back-off until it reads again — once per failure, not per attempt to connect.
      var toldOfFailure = false
      while !stopped.load(ordering: .acquiring) {
        var current = listener.withLock { $0 }
        do {
          if current == nil {
            let created = try PostgresListener(connectingLater: location, heartbeat: heartbeat)
            try created.listen(channel)
            listener.withLock { $0 = created }
            current = created
            if stopped.load(ordering: .acquiring) { break }
          }
          guard let current else { break }
          // At most a heartbeat: a server that can't be reached is told to the handlers within
          // one, not after a long wait.
          let event = try current.wait(timeout: signalled ? heartbeat : .zero)
          if stopped.load(ordering: .acquiring) { break }
          if !signalled {
            // The first connection, listening: a save after `observeChanges` is not missed.
            signalled = true
            ready.signal()
            if event.reconnected { continue }
          }
          // Listening again after a failure: catch up.
          if event.reconnected { toldOfFailure = false }
          // A heartbeat of silence reads the history too: a save notifies after its commit
          // (``notifySQL``), so a notification lost between the two (its process killed)
          // delays the other processes by one heartbeat at most, never until the next save.
          if !event.notifications.isEmpty || event.reconnected || !event.wasWokenUp {
            onChange()
          }
        } catch {
          if !signalled {
            signalled = true
            ready.signal()
          } else if !toldOfFailure, !stopped.load(ordering: .acquiring) {
            toldOfFailure = true
            onChange()
          }
          // A moment before the next wait (which retries connecting at growing intervals).
          if let current { _ = current.waitForWakeUp(.milliseconds(50)) } else { usleep(50_000) }
        }
      }
      listener.withLock { $0 = nil }
    }
  }
#endif
