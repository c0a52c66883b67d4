import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CLibPQ)
  import Foundation

  /// What one ``SyncService/compact(space:retireAfter:)`` did.
  package struct SyncCompaction: Sendable, Hashable {
    /// The log position the space is folded through now.
    package var position: Int64
    /// How many logged saves were folded into the state (and removed from the log).
    package var foldedSaves: Int
    /// How many tombstones were dropped (every replica had them).
    package var droppedTombstones: Int
    /// How many replicas were retired by this compaction (not seen for the window; they
    /// rebase from a snapshot when they come back).
    package var retiredReplicas: Int
  }

  // Tombstone compaction. The space's truth is its folded state (`kura_sync_rows`: one row per
  // model id, folded through `kura_sync_spaces.compacted`) plus the log after that position.
  // A compaction folds the log up to a horizon H and deletes what it folded:
  //
  // - H is the lowest `settled` position among the space's replicas seen within the retention
  //   window. A replica's `settled` (sent with its pulls) is its cursor when its outbox was last
  //   empty: every save it made before it had the deletes up to there is in the log, and it
  //   makes no edit of an incarnation deleted up to there again. Replicas not seen within the
  //   window are retired: they hold H back no longer.
  // - A tombstone folded through H is dropped unless a save after H (not folded yet) touches
  //   its id: then it stays, so that late edit can't bring the model back when it is folded.
  // - A replica whose `settled` is below the folded position (a retired one coming back, or a
  //   new one) gets 410 `rebaseRequired` for pushes and for pulls of the compacted log: it
  //   reads the snapshot first (SyncService+Snapshot.swift), keeps its outbox and pushes it on
  //   top.
  extension SyncService {
    /// How long a replica may go unseen before compaction retires it, by default: 30 days.
    package static let defaultRetirement = Duration.seconds(30 * 86_400)
    /// How many saves past the folded position a space's log may hold before a pull starts a
    /// compaction.
    package static let compactionBatch: Int64 = 1_000

    /// Compacts `space` on another thread, unless this process is compacting it already; a
    /// pull that sees the log grown by ``compactionBatch`` saves calls it. A compaction that
    /// fails changes nothing (its transaction rolls back) and is reported on standard error;
    /// a later pull tries again. One that folded something says so on standard error, the
    /// server's log.
    package func compactInBackground(space: String) {
      let started = compacting.withLock { $0.insert(space).inserted }
      guard started else { return }
      DispatchQueue.global().async { [self] in
        defer { _ = compacting.withLock { $0.remove(space) } }
        do {
          let done = try compact(space: space, retireAfter: retireAfter)
          guard done.foldedSaves > 0 else { return }
          FileHandle.standardError.write(
            Data(
              ("Compacted sync space `\(space.prefix(100))` through \(done.position): "
                + "saves folded \(done.foldedSaves), tombstones dropped "
                + "\(done.droppedTombstones), replicas retired \(done.retiredReplicas)\n").utf8))
        } catch {
          FileHandle.standardError.write(
            Data("Compacting sync space `\(space.prefix(100))` failed: \(error)\n".utf8))
        }
      }
    }

    /// Returns once no compaction started by ``compactInBackground(space:)`` is running, or
    /// after `limit`; returns whether none is. A server that stops calls it, so a compaction
    /// under way ends (committed, or rolled back by its own failure) before the process or the
    /// database goes away, rather than being cut off with a lost connection.
    ///
    /// For example: `_ = service.waitForCompactions(upTo: .seconds(30))`.
    @discardableResult
    package func waitForCompactions(upTo limit: Duration) -> Bool {
      let deadline = ContinuousClock.now + limit
      while !compacting.withLock({ $0.isEmpty }) {
        guard ContinuousClock.now < deadline else { return false }
        Thread.sleep(forTimeInterval: 0.01)
      }
      return true
    }

    package static let compactionSchemaSQL = """
      ALTER TABLE kura_sync_spaces ADD COLUMN IF NOT EXISTS compacted bigint NOT NULL DEFAULT 0;
      ALTER TABLE kura_sync_replicas ADD COLUMN IF NOT EXISTS pulled bigint NOT NULL DEFAULT 0;
      ALTER TABLE kura_sync_replicas ADD COLUMN IF NOT EXISTS settled bigint NOT NULL DEFAULT 0;
      ALTER TABLE kura_sync_replicas
        ADD COLUMN IF NOT EXISTS seen_at timestamptz NOT NULL DEFAULT now();
      CREATE TABLE IF NOT EXISTS kura_sync_rows (
        space text COLLATE "C" NOT NULL,
        model text COLLATE "C" NOT NULL,
        id text COLLATE "C" NOT NULL,
        incarnation bigint NOT NULL,
        deleted text COLLATE "C",
        properties text NOT NULL,
        position bigint NOT NULL,
        PRIMARY KEY (space, model, id))
      """

    /// Folds the log of `space` into its state up to the horizon and drops the tombstones every
    /// replica has; replicas not seen for `retireAfter` are retired.
    ///
    /// - Returns: What was folded, dropped and retired.
    /// - Throws: `PostgresError` when the database can't be reached (nothing changed).
    package func compact(space: String, retireAfter: Duration) throws -> SyncCompaction {
      let seconds =
        Double(retireAfter.components.seconds)
        + Double(retireAfter.components.attoseconds) / 1e18
      return try withConnection { connection in
        try connection.transaction {
          let spaceRow = try connection.queryFirst(
            "SELECT head, compacted FROM kura_sync_spaces WHERE space = ? FOR UPDATE",
            [.text(space)]
          ) { ($0.int64(at: 0), $0.int64(at: 1)) }
          guard let (head, compacted) = spaceRow else {
            return SyncCompaction(
              position: 0, foldedSaves: 0, droppedTombstones: 0, retiredReplicas: 0)
          }
          let active = try connection.query(
            "SELECT settled FROM kura_sync_replicas WHERE space = ? AND settled >= ? "
              + "AND seen_at >= now() - make_interval(secs => ?)",
            [.text(space), .integer(compacted), .real(seconds)]
          ) { $0.int64(at: 0) }
          let retired =
            try connection.queryFirst(
              "SELECT count(*) FROM kura_sync_replicas WHERE space = ? AND settled >= ? "
                + "AND seen_at < now() - make_interval(secs => ?)",
              [.text(space), .integer(compacted), .real(seconds)]
            ) { Int($0.int64(at: 0)) } ?? 0
          let horizon = min(active.min() ?? head, head)
          guard horizon > compacted else {
            return SyncCompaction(
              position: compacted, foldedSaves: 0, droppedTombstones: 0, retiredReplicas: 0)
          }
          let folded = try fold(
            space: space, after: compacted, through: horizon, head: head, connection)
          try connection.run(
            "DELETE FROM kura_sync_log WHERE space = ? AND position <= ?",
            [.text(space), .integer(horizon)])
          try connection.run(
            "UPDATE kura_sync_spaces SET compacted = ? WHERE space = ?",
            [.integer(horizon), .text(space)])
          return SyncCompaction(
            position: horizon, foldedSaves: folded.saves, droppedTombstones: folded.dropped,
            retiredReplicas: retired)
        }
      }
    }

    /// Merges the logged saves in (`after`, `through`] into the folded state.
    private func fold(
      space: String, after: Int64, through: Int64, head: Int64, _ connection: PostgresConnection
    ) throws -> (saves: Int, dropped: Int) {
      let logged = try connection.query(
        "SELECT position, changes FROM kura_sync_log WHERE space = ? AND position > ? "
          + "AND position <= ? ORDER BY position",
        [.text(space), .integer(after), .integer(through)]
      ) { ($0.int64(at: 0), $0.string(at: 1)) }
      var records: [SyncMergeState.Key: (state: SyncRecordState, position: Int64)] = [:]
      for (position, text) in logged {
        for change in try SyncJSONReader.decodeChanges(text) {
          let key = SyncMergeState.Key(model: change.model, id: change.id)
          if records[key] == nil {
            records[key] = (try foldedState(space: space, key, connection), position)
          }
          records[key]?.state.apply(change)
          records[key]?.position = position
        }
      }
      // The ids the saves after the horizon touch: their tombstones stay.
      var touchedLater = Set<SyncMergeState.Key>()
      let later = try connection.query(
        "SELECT changes FROM kura_sync_log WHERE space = ? AND position > ? AND position <= ?",
        [.text(space), .integer(through), .integer(head)]
      ) { $0.string(at: 0) }
      for text in later {
        for change in try SyncJSONReader.decodeChanges(text) {
          touchedLater.insert(SyncMergeState.Key(model: change.model, id: change.id))
        }
      }
      let encoder = JSONEncoder()
      encoder.outputFormatting = .sortedKeys
      var dropped = 0
      for (key, record) in records.sorted(by: { $0.key < $1.key }) {
        if record.state.deleted != nil, !touchedLater.contains(key) {
          try connection.run(
            "DELETE FROM kura_sync_rows WHERE space = ? AND model = ? AND id = ?",
            [.text(space), .text(key.model), .text(key.id)])
          dropped += 1
          continue
        }
        let properties = record.state.properties.mapValues {
          SyncSnapshotRow.Register(value: $0.value, stamp: $0.stamp.text)
        }
        try connection.run(
          "INSERT INTO kura_sync_rows (space, model, id, incarnation, deleted, properties, "
            + "position) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (space, model, id) DO UPDATE "
            + "SET incarnation = excluded.incarnation, deleted = excluded.deleted, "
            + "properties = excluded.properties, position = excluded.position",
          [
            .text(space), .text(key.model), .text(key.id), .integer(record.state.incarnation),
            record.state.deleted.map { .text($0.text) } ?? .null,
            .text(String(decoding: try encoder.encode(properties), as: UTF8.self)),
            .integer(record.position),
          ])
      }
      return (logged.count, dropped)
    }

    /// The folded state of one id (empty when the state has no row for it).
    package func foldedState(
      space: String, _ key: SyncMergeState.Key, _ connection: PostgresConnection
    ) throws -> SyncRecordState {
      guard
        let row = try connection.queryFirst(
          "SELECT incarnation, deleted, properties FROM kura_sync_rows "
            + "WHERE space = ? AND model = ? AND id = ?",
          [.text(space), .text(key.model), .text(key.id)],
          row: { ($0.int64(at: 0), $0.isNull(at: 1) ? nil : $0.string(at: 1), $0.string(at: 2)) })
      else { return SyncRecordState() }
      let properties = try JSONDecoder().decode(
        [String: SyncSnapshotRow.Register].self, from: Data(row.2.utf8))
      var state = SyncRecordState(incarnation: row.0)
      state.deleted = row.1.flatMap(SyncStamp.init(text:))
      for (property, register) in properties {
        guard let stamp = SyncStamp(text: register.stamp) else { continue }
        state.properties[property] = .init(value: register.value, stamp: stamp)
      }
      return state
    }

    /// Refuses a push or pull of a replica that must read the snapshot first: its `settled`
    /// position is below the space's folded position (it was retired, or it is new to a
    /// compacted space).
    package func requireCurrent(replica: String, space: String, _ connection: PostgresConnection)
      throws
    {
      let row = try connection.queryFirst(
        "SELECT s.compacted, r.settled, r.acknowledged FROM kura_sync_spaces s "
          + "LEFT JOIN kura_sync_replicas r ON r.replica = ? AND r.space = s.space "
          + "WHERE s.space = ?",
        [.text(replica), .text(space)]
      ) {
        (
          $0.int64(at: 0), $0.isNull(at: 1) ? 0 : $0.int64(at: 1),
          $0.isNull(at: 2) ? 0 : $0.int64(at: 2)
        )
      }
      guard let (compacted, settled, acknowledged) = row, compacted > settled else { return }
      throw Self.thrown(
        410, "rebaseRequired",
        "Replica `\(replica)` is behind what space `\(space.prefix(100))` keeps of its log "
          + "(folded through \(compacted)): read GET /v1/spaces/{space}/snapshot first, then "
          + "push the outbox saves after \(acknowledged).", expected: acknowledged)
    }
  }
#endif
