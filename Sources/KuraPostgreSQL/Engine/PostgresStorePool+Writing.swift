import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  import Synchronization

  extension PostgresStorePool {
    // MARK: Writing

    /// Runs `body` in a save's transaction, in parallel with other writers; `body` runs again
    /// when it conflicted with another writer (so it must be Kura's own statements, which can).
    package func write<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
      try writeTransaction(begin: Self.beginSQL, retries: Self.conflictRetries, body)
    }

    /// Runs `body` in the transaction of ``ModelContainer/write(_:)``: writes of this kind wait
    /// for each other, in every process (see ``beginSerializedSQL``); run once.
    /// A conflict with a concurrent save (``isConflict(_:)``) is
    /// ``StoreError/Code/writeConflict``, nothing written.
    package func writeSerialized<Result>(_ body: (StoreConnection) throws -> Result) throws
      -> Result
    {
      do {
        return try writeTransaction(begin: Self.beginSerializedSQL, retries: 0, body)
      } catch let error where Self.isConflict(error) {
        let postgres =
          error as? PostgresError ?? (error as? StoreError)?.underlying as? PostgresError
        throw StoreError(
          .writeConflict, url: url, sql: postgres?.sql, underlying: postgres ?? error,
          message:
            "Can't write to store `\(location.storeName)`: a concurrent save changed what this "
            + "`ModelContainer.write` read (\(postgres?.message ?? "\(error)")). Nothing of it was "
            + "written; call `write` again.")
      }
    }

    /// The one write loop of saves and ``ModelContainer/write(_:)``: the writer connection,
    /// `begin`, `body` (run again up to `retries` times after a conflict), `COMMIT`.
    private func writeTransaction<Result>(
      begin: PostgresBegin, retries: Int, _ body: (StoreConnection) throws -> Result
    ) throws -> Result {
      try prepareCommitMarkers()
      try lockWriter()
      defer { writerLock.unlock() }
      let writer = try writerConnection()
      let result = try transaction(writer, begin: begin, retries: retries, body)
      changes.add(1, ordering: .relaxed)
      return result
    }

    /// A write transaction that changes tables: prepared statements of every connection are
    /// dropped afterwards (their tables may have changed), and the readable views are made
    /// again before it commits when the tables no longer match them
    /// (``PostgresStoreEngine/refreshReadableViews(_:)``).
    package func writeSchemaChanges<Result>(_ body: (StoreConnection) throws -> Result) throws
      -> Result
    {
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
        try Self.makeCommitMarkers(writer.connection)
        let result = try body(db)
        try PostgresStoreEngine.refreshReadableViews(writer.connection)
        commitMarkersReady.store(true, ordering: .releasing)
        return result
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

    /// `begin` (`BEGIN`, the store's lock and the transaction's id, sent with the first
    /// statement of `body`, in its round trip), `body`, `COMMIT`; a broken connection found by
    /// the first is connected again first, and a commit whose outcome the broken connection hid
    /// is resolved by the transaction's id. A conflict
    /// with another writer rolls back and runs `body` again, up to `retries` times.
    private func transaction<Result>(
      _ writer: PostgresStoreConnection, begin: PostgresBegin, retries: Int,
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
    package static func isConflict(_ error: any Error) -> Bool {
      let postgres = error as? PostgresError ?? (error as? StoreError)?.underlying as? PostgresError
      guard let postgres, !postgres.isCommitOutcomeUnknown else { return false }
      return [.uniqueViolation, .deadlock, .serializationFailure].contains(postgres.code)
    }

    private func transactionOnce<Result>(
      _ writer: PostgresStoreConnection, begin: PostgresBegin,
      _ body: (StoreConnection) throws -> Result
    ) throws -> Result {
      let result = try transactionCommitted(writer, begin: begin, body)
      if writer.pendingNotification != nil {
        // Not sent with the COMMIT (whose answer was lost, and the transaction found
        // committed). The save has committed: a notification that fails (the connection broke
        // just after the commit) wakes no listener now, and the next save's or the listener's
        // reconnection does; the history, read from each reader's token, loses nothing
        // meanwhile.
        writer.pendingNotification = nil
        do {
          try writer.connection.execute(notifySQL)
        } catch {
          if writer.connection.isInTransaction { try? writer.connection.execute("ROLLBACK") }
        }
      }
      return result
    }

    private func transactionCommitted<Result>(
      _ writer: PostgresStoreConnection, begin: PostgresBegin,
      _ body: (StoreConnection) throws -> Result
    ) throws -> Result {
      var result: Result?
      writer.pendingNotification = nil
      writer.pendingTransaction = nil
      // The commit marker's id: a history row the transaction appends writes the marker along
      // (``PostgresStoreEngine/appendMarkedHistorySQL``), else the commit does.
      let commitID = commitIDs.next()
      writer.commitMarker = (writerID, commitID)
      writer.markedBy = nil
      writer.pendingHistoryOffset = nil
      defer {
        writer.commitMarker = nil
        writer.markedBy = nil
        writer.pendingHistoryOffset = nil
      }
      do {
        writer.connection.begin(withNextStatement: begin)
        let value = try body(writer)
        result = value
        // Nothing was sent: no transaction to commit.
        if writer.connection.dropUnsentBegin() { return value }
        // Whether a history row carries the commit id, and no rollback to a savepoint since
        // could have undone it (any counts: writing the marker as well is harmless).
        let marked =
          writer.markedBy.map {
            $0.transaction == writer.connection.transactionID
              && $0.rollbacks == writer.connection.rollbacksToSavepoint
          } ?? false
        writer.pendingTransaction = writer.connection.transactionID.map {
          PendingTransaction(
            id: $0, serverStart: writer.connection.session.serverStart,
            backend: writer.connection.processID, commitID: commitID,
            historyToken: marked ? writer.markedBy?.token : nil)
        }
        // The marker (unless written), the COMMIT and (after a save that appended history)
        // the notification's transaction, which runs only when the commit succeeded (see
        // ``notifySQL``), in one round trip.
        let notifying = writer.pendingNotification != nil
        let notified = try writer.connection.commitOpenTransaction(
          sending: commitSQL(commitID: commitID, notifying: notifying, marking: !marked),
          statementsBeforeCommit: marked ? 0 : 1)
        writer.pendingNotification = nil
        if let offset = writer.pendingHistoryOffset { writer.historyOffset = offset }
        if notifying, !notified, writer.connection.isInTransaction {
          try? writer.connection.execute("ROLLBACK")
        }
        return value
      } catch let error as PostgresError where error.isCommitOutcomeUnknown {
        guard let result else { throw error }
        if try committed(writer, after: error) { return result }
        throw StoreError(
          .connectionLost, url: url, sql: error.sql, underlying: error,
          message:
            "Can't save to store `\(location.storeName)`: the connection to the server broke "
            + "while the save was committing, and the server shows its transaction did not "
            + "commit (its commit marker is not in `kura_commits`). Nothing of it was written; "
            + "retry it.")
      } catch {
        // Also after a failed lock: the `BEGIN` before it left the transaction open (aborted).
        if !writer.connection.dropUnsentBegin(), writer.connection.isInTransaction {
          try? writer.connection.execute("ROLLBACK")
        }
        throw error
      }
    }

    /// The transaction a write has open: its id (`txid_current()`, taken with `BEGIN`) and the
    /// start of the server running it (``PostgresSession/serverStart``), the server backend
    /// running it, the id its commit marks (``CommitIDSource``), and the token of its history
    /// row that carries that id, if any (else the commit marks this pool's row of
    /// `kura_commits`, ``commitMarkerSQL(commitID:)``).
    package struct PendingTransaction {
      /// The transaction's id (``transactionIDSQL``).
      package var id: Int64
      /// When the server that handed out ``id`` started (``PostgresSession/serverStart``).
      package var serverStart: String
      package var backend: Int32
      package var commitID: UUID
      package var historyToken: Int64?

      /// The transaction `id`, handed out by the server run that started at `serverStart`,
      /// run by `backend`, whose commit marks `commitID`, in its history row `historyToken`
      /// when given.
      package init(
        id: Int64, serverStart: String, backend: Int32, commitID: UUID,
        historyToken: Int64? = nil
      ) {
        self.id = id
        self.serverStart = serverStart
        self.backend = backend
        self.commitID = commitID
        self.historyToken = historyToken
      }

      /// The transaction id's low 32 bits, which `pg_stat_activity.backend_xid` shows.
      package var lowID: String { String(UInt64(bitPattern: id) & 0xFFFF_FFFF) }
    }

    /// The condition on `pg_stat_activity` naming the backend that runs `pending`: its
    /// process id and the transaction's low 32 bits, on the server run that handed out the id
    /// (after a crash restart or on a promoted standby, another backend may have both).
    package static let pendingBackendCondition =
      "pid = ? AND backend_xid::text = ? AND \(PostgresSession.serverStartSQL) = ?"

    /// The parameters of ``pendingBackendCondition`` for `pending`.
    package static func pendingBackendParameters(_ pending: PendingTransaction) -> [DatabaseValue] {
      [.integer(Int64(pending.backend)), .text(pending.lowID), .text(pending.serverStart)]
    }

    /// Ends the backend of the broken connection while it still runs `pending`
    /// (``pendingBackendCondition``), waiting up to 5 seconds for it to go.
    package func endBackend(_ pending: PendingTransaction, on connection: PostgresConnection)
      throws
    {
      _ = try connection.queryFirst(
        "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE "
          + Self.pendingBackendCondition, Self.pendingBackendParameters(pending)
      ) { _ in true }
    }

    /// The error for a save whose commit `error` interrupted when its outcome can't be looked
    /// up, `reason` saying why.
    package func outcomeUnknown(_ error: PostgresError, because reason: String) -> StoreError {
      StoreError(
        .commitOutcomeUnknown, url: url, sql: error.sql, underlying: error,
        message:
          "Can't tell whether the save to store `\(location.storeName)` committed: the "
          + "connection to the server broke while it was committing, and \(reason). It may or "
          + "may not have been saved; read the data back before retrying.")
    }
  }
#endif
