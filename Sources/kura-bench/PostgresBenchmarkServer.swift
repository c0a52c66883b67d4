#if canImport(CLibPQ)
  import CLibPQ
  import Foundation
  import Kura
  import KuraPostgreSQL
  import KuraSync
  import KuraSyncCore
  import KuraSyncServer
  import KuraPostgresCluster

  /// A database the `postgres` suite created for one side of one run.
  struct BenchmarkDatabase {
    /// The database's name.
    var name: String
    /// A libpq `keyword='value'` connection string to it (password included when the URL had
    /// one: for connecting and for child processes' environment, never for printing).
    var connectionString: String
  }

  /// The server the `postgres` suite measures on — the one `--url` names, or a throwaway cluster
  /// of its own (as the tests start one, but with `fsync` on) — and the fresh databases it
  /// creates there, dropped at the end.
  final class PostgresBenchmarkServer {
    /// The cluster started for the run, when no URL was given; stopped and removed when the
    /// process exits.
    let cluster: PostgresCluster?
    /// The server, database and user the URL names, without the password.
    let label: String
    /// The connection that creates and drops databases (to the URL's own database).
    private let administrator: RawPostgres
    /// The URL's libpq settings except `dbname`.
    private let settings: [(keyword: String, value: String)]
    private var created: [String] = []
    private var number = 0

    /// Connects to the server `url` names, or starts a cluster of its own when `url` is `nil`.
    init(url: String?) throws {
      var connectionURL: String
      if let url {
        cluster = nil
        connectionURL = url
      } else {
        let cluster = try PostgresCluster.start(fsync: true)
        self.cluster = cluster
        connectionURL = cluster.url(database: "postgres")
      }
      // Kura's reading of the string names the server without ever quoting the password.
      label = try PostgresLocation(connectionURL).description
      settings = try Self.settings(of: connectionURL, label: label)
      administrator = try RawPostgres(
        Self.connectionString(settings, database: nil), label: label, table: .none)
    }

    /// The settings of a URL or connection string, as libpq reads them.
    private static func settings(of url: String, label: String) throws -> [(
      keyword: String, value: String
    )] {
      var message: UnsafeMutablePointer<CChar>?
      guard let options = PQconninfoParse(url, &message) else {
        // libpq's message may quote part of the string, which may be the password.
        if let message { PQfreemem(message) }
        throw PostgresBenchmarkError(description: "libpq can't read the URL of \(label)")
      }
      defer { PQconninfoFree(options) }
      var settings: [(String, String)] = []
      var option = options
      while let keyword = option.pointee.keyword {
        if let value = option.pointee.val {
          settings.append((String(cString: keyword), String(cString: value)))
        }
        option += 1
      }
      return settings
    }

    /// A `keyword='value'` connection string of `settings`, with `database` as `dbname` when
    /// given.
    private static func connectionString(
      _ settings: [(keyword: String, value: String)], database: String?
    ) -> String {
      var settings = settings
      if let database {
        settings.removeAll { $0.keyword == "dbname" }
        settings.append(("dbname", database))
      }
      return settings.map { keyword, value in
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
          .replacingOccurrences(of: "'", with: "\\'")
        return "\(keyword)='\(escaped)'"
      }.joined(separator: " ")
    }

    /// Creates a new, empty database (`kura_bench_<pid>_<n>_<side>`).
    func freshDatabase(_ side: String) throws -> BenchmarkDatabase {
      number += 1
      let name = "kura_bench_\(getpid())_\(number)_\(side)"
      do {
        try administrator.execute("CREATE DATABASE \(name)")
      } catch {
        throw PostgresBenchmarkError(
          description:
            "Can't create database `\(name)` on \(label): \(error). Each side of each run gets a"
            + " fresh database: use a role allowed to CREATE DATABASE.")
      }
      created.append(name)
      return BenchmarkDatabase(
        name: name, connectionString: Self.connectionString(settings, database: name))
    }

    /// Drops a database this run created, ending the connections still open to it.
    func drop(_ database: BenchmarkDatabase) {
      try? administrator.execute("DROP DATABASE IF EXISTS \(database.name) WITH (FORCE)")
      created.removeAll { $0 == database.name }
    }

    /// Drops every database this run created.
    func dropAll() {
      for name in created {
        try? administrator.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
      }
      created.removeAll()
    }

    /// The process ids of the server processes connected to `databases`
    /// (`pg_stat_activity`; the administrator's connection is to another database); empty
    /// when they can't be read.
    func serverProcesses(of databases: [BenchmarkDatabase]) -> [Int32] {
      let names = databases.map { "'" + $0.name.replacingOccurrences(of: "'", with: "''") + "'" }
      let pids = try? administrator.texts(
        "SELECT pid FROM pg_stat_activity WHERE datname IN (\(names.joined(separator: ", ")))")
      return (pids ?? []).compactMap { Int32($0) }
    }

    /// The server's version and the settings that decide what a commit costs.
    func settingsSummary() throws -> String {
      let names = [
        "fsync", "synchronous_commit", "wal_sync_method", "full_page_writes", "shared_buffers",
        "max_wal_size", "wal_level",
      ]
      let list = names.map { "'\($0)'" }.joined(separator: ", ")
      let values = try administrator.texts(
        "SELECT name || '=' || current_setting(name) FROM pg_settings WHERE name IN (\(list))"
          + " ORDER BY name")
      let version = try administrator.texts("SHOW server_version").first ?? "?"
      return "PostgreSQL \(version), libpq \(PQlibVersion()); " + values.joined(separator: " ")
    }
  }
#endif
