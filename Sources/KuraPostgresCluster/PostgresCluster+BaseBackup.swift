#if canImport(CLibPQ)
  import Foundation

  import KuraPostgreSQL

  extension PostgresCluster {
    /// A copy of a running cluster's data directory (`pg_basebackup`), not running, that
    /// ``startRecovered()`` starts as a cluster of its own, the way PostgreSQL's point-in-time
    /// recovery restores a backup: on a new timeline.
    ///
    /// For example:
    ///
    /// ```swift
    /// let backup = try primary.takeBaseBackup()
    /// try primary.crash()
    /// let restored = try backup.startRecovered()
    /// ```
    public struct BaseBackup: Sendable {
      /// The folder holding the backup's data directory (`data`), and, once started, the
      /// socket and the server's log.
      ///
      /// For example: `print(backup.folder)`.
      public let folder: String
      let pgCtl: String
      let owner: (uid: uid_t, gid: gid_t)?
      let fsync: Bool

      /// Starts the backup as a cluster of its own, recovering it as a restore does: with
      /// `recovery.signal` and a `restore_command` that finds nothing (the backup's own WAL is
      /// replayed, then recovery ends), so the server leaves recovery on a new timeline.
      /// Returns once it accepts writes; it is stopped and removed when the process exits.
      ///
      /// For example: `let restored = try backup.startRecovered()`.
      ///
      /// - Returns: The restored cluster.
      /// - Throws: ``PostgresCluster/StartError`` when the server does not start or does not
      ///   leave recovery within a minute.
      public func startRecovered() throws -> PostgresCluster {
        let data = folder + "/data"
        guard FileManager.default.createFile(atPath: data + "/recovery.signal", contents: Data())
        else { throw StartError(description: "Can't write \(data)/recovery.signal") }
        let settings = try FileHandle(
          forWritingTo: URL(fileURLWithPath: data + "/postgresql.auto.conf"))
        try settings.seekToEnd()
        try settings.write(contentsOf: Data("restore_command = 'false'\n".utf8))
        try settings.close()
        if let owner { chown(data + "/recovery.signal", owner.uid, owner.gid) }
        try PostgresCluster.startServer(folder: folder, fsync: fsync, pgCtl: pgCtl, owner: owner)
        let connection = try PostgresConnection(PostgresCluster.administratorURL(folder))
        for _ in 0..<600 {
          let recovering = try connection.queryFirst("SELECT pg_is_in_recovery()::text") {
            $0.string(at: 0)
          }
          if recovering == "false" {
            return PostgresCluster(
              folder: folder, fsync: fsync, pgCtl: pgCtl, owner: owner, administrator: connection)
          }
          usleep(100_000)
        }
        throw StartError(
          description: "The restored cluster in \(folder) did not leave recovery within a minute")
      }
    }

    /// Takes a base backup of this running cluster (`pg_basebackup`, with the WAL it needs)
    /// into a folder of its own, removed when the process exits.
    ///
    /// For example: `let backup = try primary.takeBaseBackup()`.
    ///
    /// - Returns: The backup, not running.
    /// - Throws: ``StartError`` when `pg_basebackup` is missing or fails.
    public func takeBaseBackup() throws -> BaseBackup {
      let backupFolder = try copyWithBaseBackup(
        for: "A base backup", options: ["--checkpoint=fast"])
      return BaseBackup(folder: backupFolder, pgCtl: pgCtl, owner: owner, fsync: fsync)
    }
  }
#endif
