import Foundation
import KuraBase
import KuraPostgreSQL

/// What a sync server's database holds, read without changing it (`kura studio
/// --sync-server`): its spaces with their head and compaction state, and each space's
/// replicas with their last contact and positions.
package struct SyncServerOverview: Sendable, Encodable {
  /// One space.
  package struct Space: Sendable, Encodable {
    /// The space's name.
    package var space: String
    /// The position of its latest logged save.
    package var head: Int64
    /// The position its log is folded through (compacted): saves up to it are gone from the
    /// log, their outcome kept in the folded rows.
    package var compacted: Int64
    /// The saves in its log now (after ``compacted``).
    package var logged: Int64
    /// The folded rows (one per model id).
    package var foldedRows: Int64
    /// Seconds since 1970 of its latest logged save, if any.
    package var lastSave: Double?
    /// The lowest position every replica seen within the retention window has settled
    /// through: a compaction may fold the log up to it. `nil` when no replica is current.
    package var horizon: Int64?
    /// Its replicas, most recently seen first.
    package var replicas: [Replica]
  }

  /// One replica of a space.
  package struct Replica: Sendable, Encodable {
    /// The replica's identifier.
    package var replica: String
    /// The last of its saves the server acknowledged (its outbox sequence).
    package var acknowledged: Int64
    /// The log position it pulled through.
    package var pulled: Int64
    /// The log position it settled through (what compaction waits for).
    package var settled: Int64
    /// Seconds since 1970 of its last contact.
    package var seenAt: Double
    /// Whether it was not seen within the retention window: the next compaction retires it.
    package var retiring: Bool
  }

  /// The database, as messages name it (never the password).
  package var database: String
  /// How long a replica may go unseen before a compaction retires it, in seconds.
  package var retentionSeconds: Double
  /// The spaces, by name.
  package var spaces: [Space]

  #if canImport(CLibPQ)
    /// Reads the sync server's database at `location` on a connection whose transactions are
    /// read-only.
    ///
    /// - Throws: `PostgresError` when it can't be reached; a ``SyncServerOverviewError`` when
    ///   it holds no sync server's tables.
    package static func read(
      _ location: PostgresLocation, retireAfter: Duration = SyncService.defaultRetirement
    ) throws -> SyncServerOverview {
      let connection = try PostgresConnection(location: location.readingOnly)
      let found =
        try connection.queryFirst("SELECT to_regclass('kura_sync_spaces') IS NOT NULL") {
          $0.string(at: 0)
        } ?? "f"
      guard found == "t" || found == "true" else {
        throw SyncServerOverviewError(
          message:
            "\(location.description) holds no sync server: it has no kura_sync_spaces table "
            + "(`kura sync serve --store` makes them when it starts).")
      }
      let retention = Double(retireAfter.components.seconds)
      let spaces = try connection.query(
        "SELECT s.space, s.head, s.compacted, "
          + "(SELECT count(*) FROM kura_sync_log l WHERE l.space = s.space), "
          + "(SELECT count(*) FROM kura_sync_rows r WHERE r.space = s.space), "
          + "(SELECT extract(epoch FROM max(committed_at))::float8 FROM kura_sync_log l "
          + "WHERE l.space = s.space) FROM kura_sync_spaces s ORDER BY s.space"
      ) { row in
        Space(
          space: row.string(at: 0), head: row.int64(at: 1), compacted: row.int64(at: 2),
          logged: row.int64(at: 3), foldedRows: row.int64(at: 4),
          lastSave: row.isNull(at: 5) ? nil : row.double(at: 5), horizon: nil, replicas: [])
      }
      var result: [Space] = []
      for var space in spaces {
        space.replicas = try connection.query(
          "SELECT replica, acknowledged, pulled, settled, extract(epoch FROM seen_at)::float8, "
            + "seen_at < now() - make_interval(secs => ?) FROM kura_sync_replicas "
            + "WHERE space = ? ORDER BY seen_at DESC, replica",
          [.real(retention), .text(space.space)]
        ) { row in
          let retiring = row.string(at: 5)
          return Replica(
            replica: row.string(at: 0), acknowledged: row.int64(at: 1), pulled: row.int64(at: 2),
            settled: row.int64(at: 3), seenAt: row.double(at: 4),
            retiring: retiring == "t" || retiring == "true")
        }
        space.horizon = space.replicas.filter { !$0.retiring }.map(\.settled).min()
        result.append(space)
      }
      return SyncServerOverview(
        database: location.description, retentionSeconds: retention, spaces: result)
    }
  #endif
}

/// The database is not a sync server's.
package struct SyncServerOverviewError: Error, Sendable, CustomStringConvertible {
  package var message: String
  package var description: String { message }
}
