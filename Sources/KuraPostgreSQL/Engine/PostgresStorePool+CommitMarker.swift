import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  import Synchronization

  extension PostgresStorePool {
    // MARK: Commit markers

    /// `kura_commits`: one row per pool that has written (``writerID``), holding the id
    /// of its last commit. A save whose commit answer was lost is decided by this row, never by
    /// its transaction id (see the type's notes).
    package static let commitMarkerTableSQL = """
      CREATE TABLE IF NOT EXISTS kura_commits (writer UUID PRIMARY KEY, commit_id UUID NOT \
      NULL, time DOUBLE PRECISION NOT NULL)
      """

    /// How long a pool's row stays after its last commit: a schema change deletes older rows
    /// (a pool idle that long writes its row again with its next commit).
    package static let commitMarkerLifetime: Double = 7 * 86_400

    /// The statement marking the transaction's commit with `commitID` (this pool's row, made
    /// or updated). The ids are UUIDs this pool made, spliced as literals: the marker goes in
    /// the simple query of the `COMMIT`, which takes no parameters.
    package func commitMarkerSQL(commitID: UUID) -> String {
      "INSERT INTO kura_commits (writer, commit_id, time) VALUES ('\(writerID)', '"
        + commitID.text()
        + "', extract(epoch FROM statement_timestamp())) ON CONFLICT (writer) DO UPDATE SET "
        + "commit_id = excluded.commit_id, time = excluded.time"
    }

    /// The commit of a write transaction, one simple query: its marker
    /// (``commitMarkerSQL(commitID:)``) unless `marking` is `false` (a history row of the
    /// transaction wrote it: the text is then ``unmarkedCommits``'), `COMMIT`, and, when
    /// `notifying`, ``notifySQL``.
    package func commitSQL(commitID: UUID, notifying: Bool, marking: Bool = true)
      -> PostgresQueryText
    {
      guard marking else { return notifying ? unmarkedCommits.notifying : unmarkedCommits.plain }
      return PostgresQueryText(
        commitMarkerSQL(commitID: commitID) + "; COMMIT" + (notifying ? "; " + notifySQL : ""))
    }

    /// Makes `kura_commits` when the store lacks it (a store made before it existed), once per
    /// pool: a schema change, which waits for the saves under way.
    package func prepareCommitMarkers() throws {
      guard !commitMarkersReady.load(ordering: .acquiring) else { return }
      let exists = try read { db in
        try db.queryFirst("SELECT to_regclass('kura_commits') IS NOT NULL") {
          $0.int64(at: 0) != 0
        } ?? false
      }
      if !exists { try writeSchemaChanges { _ in } }
      commitMarkersReady.store(true, ordering: .releasing)
    }

    /// Makes `kura_commits` in a schema change's transaction, and deletes the rows of pools
    /// that have not committed for ``commitMarkerLifetime``.
    package static func makeCommitMarkers(_ db: PostgresConnection) throws {
      try db.execute(commitMarkerTableSQL)
      try db.run(
        "DELETE FROM kura_commits WHERE time < extract(epoch FROM statement_timestamp()) - ?",
        [.real(commitMarkerLifetime)])
    }

    /// Whether the transaction whose commit `error` interrupted committed: connects again,
    /// waits until the broken connection's backend no longer runs the transaction (it may not
    /// have noticed yet that its client is gone: after a second it is ended, and the
    /// transaction then commits or aborts; on another server, or the same one restarted, it
    /// is not looked for), then reads this pool's row of `kura_commits` — the transaction's own
    /// commit id there means it committed, anything else that it did not (after a failover, on
    /// the new primary: a commit it never received is not there). Undecidable within
    /// ``PostgresStoreSettings/commitOutcomeWait`` (the server stays unreachable):
    /// ``StoreError/Code/commitOutcomeUnknown``.
    package func committed(_ writer: PostgresStoreConnection, after error: PostgresError) throws
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
            let running =
              try writer.connection.queryFirst(
                "SELECT 1 FROM pg_stat_activity WHERE " + Self.pendingBackendCondition,
                Self.pendingBackendParameters(pending)
              ) { _ in true } ?? false
            if running {
              if !terminated, start.duration(to: clock.now) > .seconds(1) {
                terminated = true
                try endBackend(pending, on: writer.connection)
              } else {
                usleep(20_000)
              }
              continue
            }
            // The transaction has ended, committed or not: a new statement sees which.
            return try writer.connection.queryFirst(
              "SELECT commit_id = ?::uuid FROM kura_commits WHERE writer = ?::uuid",
              [.text(pending.commitID.text()), .text(writerID)]
            ) { $0.int64(at: 0) != 0 } ?? false
          }
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
  }

  /// The ids a pool gives its commits' markers: a random 128-bit start (one draw from the
  /// system's generator when the pool opens), then counting up in its low 64 bits. They never
  /// repeat within a pool, whose writer id (its row of `kura_commits`) is its own, and making
  /// one makes no system call (Foundation's `UUID()` opens and reads `/dev/urandom` on Linux).
  ///
  /// For example:
  ///
  /// ```swift
  /// let ids = CommitIDSource()
  /// let first = ids.next(), second = ids.next()  // different
  /// ```
  package final class CommitIDSource: Sendable {
    private let high: UInt64
    private let low: Atomic<UInt64>

    package init() {
      var generator = SystemRandomNumberGenerator()
      high = generator.next()
      low = Atomic(generator.next())
    }

    /// The next commit id.
    package func next() -> UUID {
      let low = self.low.wrappingAdd(1, ordering: .relaxed).newValue
      let h = high.bigEndian
      let l = low.bigEndian
      return withUnsafeBytes(of: (h, l)) { bytes in
        UUID(
          uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
          ))
      }
    }
  }
#endif
