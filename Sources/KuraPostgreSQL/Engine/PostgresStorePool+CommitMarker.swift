import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  import Synchronization

  extension PostgresStorePool {
    // MARK: Commit markers

    /// `kura_commits`: a row per pool that has written (``writerID``), holding the id of its
    /// last commit that wrote no history row, and one more per pool whose history rows a trim
    /// deleted (``CommitIDSource/trimmedWriter``), holding the newest of their ids
    /// (``historyTrimTriggerSQL``). A save whose commit answer was lost is decided by its
    /// history row's `commit_id` or by this row, never by its transaction id (see the type's
    /// notes).
    package static let commitMarkerTableSQL = """
      CREATE TABLE IF NOT EXISTS kura_commits (writer UUID PRIMARY KEY, commit_id UUID NOT \
      NULL, time DOUBLE PRECISION NOT NULL)
      """

    /// The history rows' commit ids (``CommitIDSource``): a history row appended by a pool's
    /// write transaction carries the transaction's commit id, which is then its commit marker
    /// (rows of stores and versions before it leave it NULL).
    package static let historyCommitColumnSQL =
      "ALTER TABLE kura_history ADD COLUMN IF NOT EXISTS commit_id UUID"

    /// Keeps the commit ids of deleted history rows decidable: after any DELETE of
    /// `kura_history` (a trim of this version or an earlier one, `trimHistory(through:)`, an
    /// edit by hand), each writer's newest deleted commit id moves to its trimmed row of
    /// `kura_commits` (``CommitIDSource/trimmedWriter``, found from the id's first 64 bits),
    /// unless that row holds a newer one (a pool's ids count up). A save whose commit answer
    /// was lost and whose history row was trimmed before it asked is then found there. Only
    /// trims write those rows, never a commit: a `ModelContainer.write` (repeatable read)
    /// writing its own marker never meets a trim's update.
    package static let historyTrimTriggerSQL = """
      CREATE OR REPLACE FUNCTION kura_history_keep_commits() RETURNS trigger LANGUAGE plpgsql \
      AS $$ BEGIN INSERT INTO kura_commits (writer, commit_id, time) SELECT DISTINCT ON \
      (g.writer) g.writer, g.commit_id, g.time FROM (SELECT CAST(left(CAST(commit_id AS \
      text), 19) || '0000-000000000001' AS uuid) AS writer, commit_id, time, token FROM \
      kura_gone WHERE commit_id IS NOT NULL) AS g ORDER BY g.writer, g.token DESC ON \
      CONFLICT (writer) DO UPDATE SET commit_id = excluded.commit_id, time = excluded.time \
      WHERE kura_commits.commit_id < excluded.commit_id; RETURN NULL; END $$; \
      DROP TRIGGER IF EXISTS kura_history_keep_commits ON kura_history; \
      CREATE TRIGGER kura_history_keep_commits AFTER DELETE ON kura_history REFERENCING OLD \
      TABLE AS kura_gone FOR EACH STATEMENT EXECUTE FUNCTION kura_history_keep_commits()
      """

    /// Whether the store has `kura_commits`, the history rows' `commit_id` and the trim
    /// trigger (``historyTrimTriggerSQL``).
    package static let commitMarkersExistSQL = """
      SELECT to_regclass('kura_commits') IS NOT NULL AND EXISTS (SELECT 1 FROM \
      pg_catalog.pg_attribute WHERE attrelid = to_regclass('kura_history') AND attname = \
      'commit_id' AND NOT attisdropped) AND EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE \
      tgrelid = to_regclass('kura_history') AND tgname = 'kura_history_keep_commits')
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

    /// Makes `kura_commits`, the history rows' `commit_id` and the trim trigger when the store
    /// lacks them (a store made before they existed), once per pool: a schema change, which
    /// waits for the saves under way.
    package func prepareCommitMarkers() throws {
      guard !commitMarkersReady.load(ordering: .acquiring) else { return }
      let exists = try read { db in
        try db.queryFirst(Self.commitMarkersExistSQL, row: { $0.int64(at: 0) != 0 }) ?? false
      }
      if !exists { try writeSchemaChanges { _ in } }
      commitMarkersReady.store(true, ordering: .releasing)
    }

    /// Makes `kura_commits`, the history rows' `commit_id` and the trim trigger in a schema
    /// change's transaction, and deletes the rows of pools that have not committed for
    /// ``commitMarkerLifetime``.
    package static func makeCommitMarkers(_ db: PostgresConnection) throws {
      try db.execute(commitMarkerTableSQL)
      try db.execute(PostgresStoreEngine.historyTableSQL)
      // Only when missing: adding the column locks the history against its readers until the
      // schema change commits (a migration can take long), and making the trigger against
      // writers.
      if try db.queryFirst(commitMarkersExistSQL, row: { $0.int64(at: 0) != 0 }) != true {
        try db.execute(historyCommitColumnSQL)
        try db.execute(historyTrimTriggerSQL)
      }
      try db.run(
        "DELETE FROM kura_commits WHERE time < extract(epoch FROM statement_timestamp()) - ?",
        [.real(commitMarkerLifetime)])
    }

    /// Whether the transaction whose commit `error` interrupted committed: connects again,
    /// waits until the broken connection's backend no longer runs the transaction (it may not
    /// have noticed yet that its client is gone: after a second it is ended, and the
    /// transaction then commits or aborts; on another server, or the same one restarted, it
    /// is not looked for), then reads the transaction's history row (by its token) and this
    /// pool's row of `kura_commits` — the transaction's own commit id in either means it
    /// committed, anything else that it did not (after a failover, on the new primary: a
    /// commit it never received is not there). One statement reads both, so a trim deleting
    /// the row meanwhile (which moves its id to `kura_commits`) changes nothing. Undecidable within
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
            let commitID = pending.commitID.text()
            return try writer.connection.queryFirst(
              "SELECT EXISTS (SELECT 1 FROM kura_history WHERE token = ? AND commit_id = "
                + "?::uuid) OR EXISTS (SELECT 1 FROM kura_commits WHERE writer IN (?::uuid, "
                + "?::uuid) AND commit_id = ?::uuid)",
              [
                pending.historyToken.map { .integer($0) } ?? .null, .text(commitID),
                .text(writerID), .text(commitIDs.trimmedWriter), .text(commitID),
              ]
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

  /// The ids a pool gives its commits: its first 64 bits drawn at random when the pool opens
  /// (one draw from the system's generator), its last 64 bits counting up from a random start
  /// below 2⁶² (so they never wrap, and a later commit's id is larger). They never repeat
  /// within a pool, and making one makes no system call (Foundation's `UUID()` opens and reads
  /// `/dev/urandom` on Linux). The pool's writer id (its row of `kura_commits`) is its first 64
  /// bits followed by zeros (``writer``), and the row of its trimmed history rows the same
  /// ending in 1 (``trimmedWriter``): the trim trigger finds it from a history row's commit id
  /// (``PostgresStorePool/historyTrimTriggerSQL``).
  ///
  /// For example:
  ///
  /// ```swift
  /// let ids = CommitIDSource()
  /// let first = ids.next(), second = ids.next()  // second > first, same writer
  /// ```
  package final class CommitIDSource: Sendable {
    private let high: UInt64
    private let low: Atomic<UInt64>
    /// The writer id of the pool: the ids' first 64 bits, then zeros.
    package let writer: String
    /// The pool's row of `kura_commits` for its trimmed history rows: the ids' first 64 bits,
    /// then 1.
    package let trimmedWriter: String

    package init() {
      var generator = SystemRandomNumberGenerator()
      high = generator.next()
      low = Atomic(generator.next() >> 2)
      writer = Self.uuid(high, 0).text()
      trimmedWriter = Self.uuid(high, 1).text()
    }

    private static func uuid(_ high: UInt64, _ low: UInt64) -> UUID {
      withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { bytes in
        UUID(
          uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
          ))
      }
    }

    /// The next commit id.
    package func next() -> UUID {
      Self.uuid(high, low.wrappingAdd(1, ordering: .relaxed).newValue)
    }
  }
#endif
