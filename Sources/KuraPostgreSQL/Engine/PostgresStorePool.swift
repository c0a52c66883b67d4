import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  import Synchronization

  /// The connections of one PostgreSQL store (the PostgreSQL engine's ``StorePool``): one writer, idle
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
  ///   makes the write fail (`40001`, ``StoreError/Code/writeConflict``, nothing written), not
  ///   retried: its body is the app's code.
  /// - Schema changes take the store's lock exclusively (``beginAndLockSQL``): they wait for
  ///   every save under way, and saves wait for them.
  /// - A connection lost while committing is resolved by the commit's marker: every commit
  ///   writes a random id of its own into this pool's row of `kura_commits`, in the round trip
  ///   of its `COMMIT` (``commitMarkerSQL(commitID:)``). The pool connects again, waits until
  ///   the broken connection's backend no longer runs the transaction (ending it after a
  ///   second), and reads the row: its id, committed; another id, not committed. A transaction
  ///   id is not such an identity — one handed out but not yet flushed to the WAL is handed out
  ///   again after a crash, and `txid_status` then reports the other transaction's commit.
  ///   Committed: the save returns normally. Not committed: ``StoreError/Code/connectionLost``
  ///   (nothing was written). Undecidable within ``PostgresStoreSettings/commitOutcomeWait``:
  ///   ``StoreError/Code/commitOutcomeUnknown``.
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
  package final class PostgresStorePool: @unchecked Sendable {
    /// The server and database.
    package let location: PostgresLocation
    /// The schema holding the store's tables (the connection's `current_schema()`).
    package let schema: String
    /// The notification channel of the store (one per database and schema).
    package let channel: String
    /// Whether the container only reads.
    package let isReadOnly: Bool
    /// The password-free URL naming the store in errors.
    package let url: URL

    /// How the pool uses the server (its most connections, waits, the listener's heartbeat).
    package let settings: PostgresStoreSettings

    package let writerLock = NSLock()
    package var writer: PostgresStoreConnection?
    /// The idle readers, and the connections open (the writer and every reader, idle or in
    /// use), at most ``PostgresStoreSettings/maximumConnections``.
    package let readers: ConnectionPool<PostgresStoreConnection>
    /// Raised by every schema change: connections drop their prepared statements.
    package let schemaGeneration = Atomic<Int>(0)
    package let changes = Atomic<UInt64>(0)
    package let observers = ChangeObservers()
    /// This pool's row in `kura_commits` (``CommitIDSource/writer``), which a commit that
    /// appended no history row marks with its own id
    /// (``PostgresStorePool/commitMarkerSQL(commitID:)``).
    package var writerID: String { commitIDs.writer }
    /// The ids of this pool's commits (``CommitIDSource``).
    package let commitIDs = CommitIDSource()
    /// Whether `kura_commits` is known to exist (made by a schema change, or found).
    package let commitMarkersReady = Atomic<Bool>(false)

    /// Kura's first key of `pg_advisory_xact_lock` ("KURA"; ``PostgresStoreConnection/lockKey``).
    package static let lockKey = PostgresStoreConnection.lockKey

    /// Opens a transaction changing the schema, takes the store's lock exclusively and returns
    /// the transaction's id (``transactionIDSQL``), sent with the
    /// transaction's first statement, in its round trip
    /// (``PostgresConnection/begin(withNextStatement:)``). The id, assigned here rather than at
    /// the first write, is how the backend that ran a commit whose answer was lost is waited
    /// for (``committed(_:after:)``); every begin of the pool returns it as its last column.
    package static let beginAndLockSQL = PostgresBegin([
      "BEGIN",
      "SELECT pg_advisory_xact_lock(\(lockKey), hashtext(current_schema())), "
        + transactionIDSQL,
    ])

    /// The transaction's id (`txid_current()`, with its epoch: the number
    /// `pg_current_xact_id()` gives). It names one transaction only together with the start of
    /// the server that gave it (``PostgresSession/serverStart``, read once per connection): a
    /// crash restart, a promoted standby or a restored backup hands ids out again.
    package static let transactionIDSQL = "txid_current()"

    /// Opens a save's transaction and takes the store's lock shared (saves don't wait for each
    /// other; readers see them as writers of the store), with the save's first statement.
    package static let beginSQL = PostgresBegin([
      "BEGIN",
      "SELECT pg_advisory_xact_lock_shared(\(lockKey), hashtext(current_schema())), "
        + transactionIDSQL,
    ])

    /// Opens the transaction of ``ModelContainer/write(_:)``: `REPEATABLE READ`, the lock
    /// writes wait for each other on (a table lock takes no snapshot, so the snapshot is taken
    /// by the statement after it, once the lock is held), and the store's lock shared.
    package static let beginSerializedSQL = PostgresBegin([
      "BEGIN ISOLATION LEVEL REPEATABLE READ",
      "LOCK TABLE kura_metadata IN SHARE UPDATE EXCLUSIVE MODE",
      "SELECT pg_advisory_xact_lock_shared(\(lockKey), hashtext(current_schema())), "
        + transactionIDSQL,
    ])

    /// The notification of a committed save, sent after its commit as a transaction of its
    /// own: PostgreSQL holds a cluster-wide lock from a notifying transaction's commit until it
    /// has been flushed (so notifications queue in commit order), which, when a save notified
    /// in its own transaction, made every save's flush wait for the one before it. A
    /// transaction that only notifies writes nothing to the WAL before its commit, and such a
    /// commit waits for no flush (nor for a synchronous standby) whatever `synchronous_commit`
    /// says: the lock is held for a moment, and the saves' commits, which take no such lock,
    /// share their flushes. It is sent after the save's `COMMIT` in the same simple query
    /// (``commitSQL(commitID:notifying:marking:)``), one round trip for both, and the server runs it
    /// only when the commit succeeded
    /// (``PostgresConnection/commitOpenTransaction(sending:statementsBeforeCommit:)``). Its
    /// payload is empty: a listener reads the history from its own token, whatever woke it.
    /// Built once per pool.
    package let notifySQL: String

    /// The commits that carry no marker (a history row of the transaction wrote it), without
    /// and with ``notifySQL``: the same text every time, built once per pool
    /// (``commitSQL(commitID:notifying:marking:)``).
    package let unmarkedCommits: (plain: PostgresQueryText, notifying: PostgresQueryText)

    /// ``notifySQL`` for `channel`: one statement, its own (implicit) transaction. `NOTIFY`
    /// rather than `SELECT pg_notify(…)`: a utility statement, which the server neither
    /// analyzes nor plans (it runs with every save).
    package static func notifySQL(channel: String) -> String {
      "NOTIFY " + quoteIdentifier(channel)
    }

    /// How many times a save that conflicted with another writer's (see the type's notes) is
    /// run again before its error is reported.
    package static let conflictRetries = 8

    /// Opens the store's first connection (the writer), reading its schema.
    package init(
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
      self.notifySQL = Self.notifySQL(channel: channel)
      self.unmarkedCommits = (
        PostgresQueryText("COMMIT"), PostgresQueryText("COMMIT; " + notifySQL)
      )
      self.writer = PostgresStoreConnection(connection: connection, channel: channel)
    }

    /// `kura_changes_` and a hash of the schema name (channel names are at most 63 bytes).
    package static func channel(schema: String) -> String {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in schema.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
      }
      return "kura_changes_" + String(hash, radix: 16)
    }

    // MARK: Connections

    package func connect() throws -> PostgresStoreConnection {
      let connection = PostgresStoreConnection(
        connection: try PostgresConnection(location: location), channel: channel)
      connection.schemaGeneration = schemaGeneration.load(ordering: .acquiring)
      return connection
    }

    /// The connection, ready: connected again when broken, its statements dropped after a
    /// schema change.
    package func ready(_ connection: PostgresStoreConnection) throws {
      if !connection.connection.isAlive { try connection.connection.reconnect() }
      let generation = schemaGeneration.load(ordering: .acquiring)
      if connection.schemaGeneration != generation {
        connection.connection.clearStatementCache()
        connection.schemaGeneration = generation
      }
    }

    /// The key of the thread-specific pool this thread reads on, while a read runs (a read
    /// nested in another one takes a connection beyond the limit rather than waiting for
    /// itself). Reads run on their caller's thread, start to end, so a nested read is on the
    /// same thread; a thread-specific value costs a few instructions where a task-local's
    /// push and pop cost some 500 per read.
    private static let readingKey: pthread_key_t = {
      var key = pthread_key_t()
      pthread_key_create(&key, nil)
      return key
    }()

    /// An idle reader, else a new connection while fewer than the most are open, else the
    /// first to come back — waiting at most ``PostgresStoreSettings/connectionWait``.
    private func takeReader(nested: Bool) throws -> PostgresStoreConnection {
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
    package static func seconds(_ duration: Duration) -> TimeInterval {
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
      let me = Unmanaged.passUnretained(self).toOpaque()
      let outer = pthread_getspecific(Self.readingKey)
      let reader = try takeReader(nested: outer == me)
      pthread_setspecific(Self.readingKey, me)
      defer {
        pthread_setspecific(Self.readingKey, outer)
        giveBack(reader)
      }
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

    // MARK: Reading

    /// Runs `body` on a reader; each statement sees the last committed state.
    package func read<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
      try withReader { try body($0) }
    }

    /// Runs `body` on a reader inside one `REPEATABLE READ` transaction.
    package func readSnapshot<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
      try withReader { reader in
        try reader.connection.transaction(.repeatableRead) { try body(reader) }
      }
    }
  }

#endif
