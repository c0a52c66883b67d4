import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CLibPQ)
  import Foundation

  extension SyncService {
    /// `GET /v1/spaces/{space}/snapshot?replica=R&model=M&id=I&limit=N`: the folded state after
    /// the key (M, I), in key order. Reading it registers the replica as current (its
    /// `settled` becomes the folded position): it rebases on these rows before it pushes.
    package func snapshot(
      _ query: [String: String], space: String, credential: String,
      _ connection: PostgresConnection
    ) throws -> SyncHTTPResponse {
      guard let replica = query["replica"], SyncStamp.uuid(hex: replica) != nil else {
        throw Self.thrown(
          400, "badRequest", "`replica` is the reading replica's id: 32 lowercase hex digits.")
      }
      guard let limit = Int(query["limit"] ?? "\(SyncSnapshotResponse.maximumRows)"),
        (1...SyncSnapshotResponse.maximumRows).contains(limit)
      else {
        throw Self.thrown(
          400, "badRequest", "`limit` is 1 to \(SyncSnapshotResponse.maximumRows).")
      }
      let model = query["model"] ?? ""
      let id = query["id"] ?? ""
      let (position, rows) = try connection.transaction(.repeatableRead) {
        let compacted =
          try connection.queryFirst(
            "SELECT compacted FROM kura_sync_spaces WHERE space = ?", [.text(space)]
          ) { $0.int64(at: 0) } ?? 0
        let rows = try connection.query(
          "SELECT model, id, incarnation, deleted, properties FROM kura_sync_rows "
            + "WHERE space = ? AND (model, id) > (?, ?) ORDER BY model, id LIMIT ?",
          [.text(space), .text(model), .text(id), .integer(Int64(limit + 1))]
        ) {
          (
            $0.string(at: 0), $0.string(at: 1), $0.int64(at: 2),
            $0.isNull(at: 3) ? nil : $0.string(at: 3), $0.string(at: 4)
          )
        }
        return (compacted, rows)
      }
      // Recorded after the read (read committed, as a pull's bookkeeping): the replica is
      // current from the position it was served.
      let acknowledged = try connection.transaction {
        try notePull(
          replica: replica, space: space, credential: credential, pulled: position,
          settled: position, connection)
      }
      let decoder = JSONDecoder()
      let snapshotRows = try rows.prefix(limit).map { row in
        SyncSnapshotRow(
          model: row.0, id: row.1, incarnation: row.2, deleted: row.3,
          properties: try decoder.decode(
            [String: SyncSnapshotRow.Register].self, from: Data(row.4.utf8)))
      }
      return Self.json(
        200,
        SyncSnapshotResponse(
          rows: snapshotRows, more: rows.count > limit, position: position,
          acknowledged: acknowledged))
    }

    /// Refuses (410) a pull of the log after a position the space no longer keeps.
    ///
    /// - Returns: The folded position.
    package func requireKept(after: Int64, space: String, _ connection: PostgresConnection) throws
      -> Int64
    {
      let compacted =
        try connection.queryFirst(
          "SELECT compacted FROM kura_sync_spaces WHERE space = ?", [.text(space)]
        ) { $0.int64(at: 0) } ?? 0
      if after < compacted {
        throw Self.thrown(
          410, "rebaseRequired",
          "The log of space `\(space.prefix(100))` is folded through \(compacted), past "
            + "\(after): read GET /v1/spaces/{space}/snapshot, then pull after its position.")
      }
      return compacted
    }

    /// Checks a pull of the log after `after` against the folded position (410 below it) and,
    /// when the query names its `replica`, records the pull: the position it has
    /// (`pulled`), its `settled` position (see SyncService+Compaction.swift) and when it was
    /// seen.
    ///
    /// - Returns: The folded position.
    package func notePull(
      _ query: [String: String], after: Int64, space: String, credential: String,
      _ connection: PostgresConnection
    ) throws -> Int64 {
      let compacted = try requireKept(after: after, space: space, connection)
      guard let replica = query["replica"] else { return compacted }
      guard SyncStamp.uuid(hex: replica) != nil,
        let settled = Int64(query["settled"] ?? "0"), settled >= 0
      else {
        throw Self.thrown(
          400, "badRequest",
          "`replica` is 32 lowercase hex digits and `settled` a log position: 0 or more.")
      }
      _ = try notePull(
        replica: replica, space: space, credential: credential, pulled: after,
        settled: min(settled, after), connection)
      return compacted
    }

    /// Records that `replica` pulled (registering it in `space`); returns the highest sequence
    /// of it the server applied.
    private func notePull(
      replica: String, space: String, credential: String, pulled: Int64, settled: Int64,
      _ connection: PostgresConnection
    ) throws -> Int64 {
      // Before its `settled` moves: only its own credential may move it.
      try requireOwned(replica: replica, credential: credential, connection)
      try connection.run(
        "INSERT INTO kura_sync_spaces (space) VALUES (?) ON CONFLICT DO NOTHING", [.text(space)])
      try connection.run(
        "INSERT INTO kura_sync_replicas (replica, space, pulled, settled, seen_at, credential) "
          + "VALUES (?, ?, ?, ?, now(), ?) ON CONFLICT (replica) DO UPDATE SET "
          + "pulled = excluded.pulled, "
          + "settled = GREATEST(kura_sync_replicas.settled, excluded.settled), seen_at = now() "
          + "WHERE kura_sync_replicas.space = excluded.space",
        [.text(replica), .text(space), .integer(pulled), .integer(settled), .text(credential)])
      let registered = try connection.queryFirst(
        "SELECT space, acknowledged FROM kura_sync_replicas WHERE replica = ?", [.text(replica)]
      ) { ($0.string(at: 0), $0.int64(at: 1)) }
      guard let registered, registered.0 == space else {
        throw Self.thrown(
          409, "replicaConflict",
          "Replica `\(replica)` syncs another space: a replica belongs to one space; use a new "
            + "store (a new replica) for this one.")
      }
      return registered.1
    }
  }
#endif
