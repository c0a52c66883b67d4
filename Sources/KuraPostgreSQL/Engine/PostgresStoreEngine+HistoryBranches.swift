import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  extension PostgresStoreEngine {
    // MARK: History branches

    /// `kura_history_branches`: one row per *history branch* the store has been written on —
    /// a cluster (`system_identifier` of `pg_control_system()`) and one of its timelines — with
    /// the branch's `xid_offset`, added to every transaction id before it becomes a token.
    ///
    /// Transaction ids are unique only along one history: a standby promoted before it received
    /// the primary's last commits, or a base backup restored, hands out again the ids the lost
    /// commits had, and a logical restore into another cluster starts from low ids. Each of
    /// those starts a new branch (PostgreSQL gives a promoted or restored server a new
    /// timeline; another cluster has another system identifier), and a new branch's offset
    /// puts each of its ids above every token any branch handed out before
    /// (``historyOffsetFunctionSQL``). Offsets only grow, so the branch the server writes on is
    /// the one with the largest offset, once it has its row.
    package static let historyBranchesTableSQL = """
      CREATE TABLE IF NOT EXISTS kura_history_branches (system_identifier BIGINT NOT NULL, \
      timeline INTEGER NOT NULL, xid_offset BIGINT NOT NULL, time DOUBLE PRECISION NOT NULL, \
      PRIMARY KEY (system_identifier, timeline))
      """

    /// How far apart the offsets of two branches are at least, in transaction ids: more ids
    /// than a standby can lag behind its primary, or a backup behind the history readers saw
    /// (PostgreSQL stops handing out ids long before 2^32 are in flight). With tokens below
    /// 2^63, transaction id plus offset stays below 2^47: room for about 32,000 branches.
    package static let historyBranchGap: Int64 = 1 << 32

    /// The server's timeline, as its current WAL file's name spells it (the first 8 hex
    /// digits): exact on a primary right after a promotion, where `pg_control_checkpoint()`
    /// still names the timeline of the last checkpoint. Every role may call these functions.
    static let currentTimelineSQL =
      "CAST(CAST('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) AS bit(32)) AS "
      + "integer)"

    /// `kura_history_offset()`: the offset of the branch this session writes on, made when the
    /// branch has no row yet. A new branch's offset is the largest of: the largest offset so
    /// far plus ``historyBranchGap``; for each earlier timeline of the same cluster, its offset
    /// plus ``historyBranchGap`` per timeline since (a branch between them whose row was lost
    /// with it — a promoted standby's first saves, never streamed to the standby promoted after
    /// it — had at most one gap per timeline); and what puts the current transaction id
    /// ``historyBranchGap`` above the largest token in `kura_history` (a cluster restored from
    /// a logical dump starts from low ids). Concurrent writers meeting the new branch make one
    /// row (`ON CONFLICT DO NOTHING`, then a read in a new snapshot).
    ///
    /// The offset is cached in the session (`kura.history_branch`, `kura.history_offset`, set
    /// with `set_config`, undone with the transaction when it rolls back), keyed by the
    /// timeline and the branches table's oid: a save reads its timeline (a session on a
    /// standby that is promoted lives on, on a new timeline) and no control file. A session
    /// never moves to another cluster.
    package static let historyOffsetFunctionSQL = """
      CREATE OR REPLACE FUNCTION kura_history_offset() RETURNS bigint LANGUAGE plpgsql AS $$ \
      DECLARE current_timeline integer := \(currentTimelineSQL); \
      branch text := current_timeline || '/' || \
      CAST(CAST(to_regclass('kura_history_branches') AS oid) AS text); \
      current_system bigint; found_offset bigint; \
      BEGIN \
      IF current_setting('kura.history_branch', true) = branch THEN \
      RETURN CAST(current_setting('kura.history_offset') AS bigint); END IF; \
      SELECT c.system_identifier INTO current_system FROM pg_catalog.pg_control_system() c; \
      SELECT b.xid_offset INTO found_offset FROM kura_history_branches b WHERE \
      b.system_identifier = current_system AND b.timeline = current_timeline; \
      IF NOT FOUND THEN \
      INSERT INTO kura_history_branches (system_identifier, timeline, xid_offset, time) \
      SELECT current_system, current_timeline, greatest(coalesce(b.top + \(historyBranchGap), \
      0), coalesce(t.top, 0), coalesce(h.top - txid_current() + \(historyBranchGap), 0)), \
      extract(epoch FROM statement_timestamp()) FROM (SELECT max(xid_offset) AS top FROM \
      kura_history_branches) b, (SELECT max(xid_offset + (current_timeline - timeline) * \
      \(historyBranchGap)) AS top FROM kura_history_branches WHERE system_identifier = \
      current_system AND timeline < current_timeline) t, (SELECT max(token) / \
      \(tokensPerTransaction) + 1 AS top FROM kura_history) h ON CONFLICT DO NOTHING; \
      SELECT b.xid_offset INTO STRICT found_offset FROM kura_history_branches b WHERE \
      b.system_identifier = current_system AND b.timeline = current_timeline; \
      END IF; \
      PERFORM set_config('kura.history_branch', branch, false), \
      set_config('kura.history_offset', CAST(found_offset AS text), false); \
      RETURN found_offset; \
      END $$
      """

    /// Records the first branch of a store that has none (a new store, or one made before
    /// branches), in a schema change (which no save runs beside): offset 0 — the tokens of a
    /// store made before branches go on growing as they did — unless `kura_history` holds a
    /// token at or above the transaction's id (a logical dump restored into another cluster),
    /// then ``historyBranchGap`` above it.
    package static let firstHistoryBranchSQL = """
      INSERT INTO kura_history_branches (system_identifier, timeline, xid_offset, time) \
      SELECT c.system_identifier, \(currentTimelineSQL), CASE WHEN h.top IS NULL OR \
      h.top <= txid_current() THEN 0 ELSE h.top - txid_current() + \(historyBranchGap) END, \
      extract(epoch FROM statement_timestamp()) FROM pg_catalog.pg_control_system() c, \
      (SELECT max(token) / \(tokensPerTransaction) + 1 AS top FROM kura_history) h \
      WHERE NOT EXISTS (SELECT 1 FROM kura_history_branches)
      """

    /// Makes the branches table, ``historyOffsetFunctionSQL`` and the store's first branch
    /// (``firstHistoryBranchSQL``), in the schema change that makes the store's functions.
    package static func createHistoryBranches(_ db: PostgresConnection) throws {
      try db.execute(historyTableSQL)
      try db.execute(historyBranchesTableSQL)
      try db.execute(historyOffsetFunctionSQL)
      try db.execute(firstHistoryBranchSQL)
    }
  }
#endif
