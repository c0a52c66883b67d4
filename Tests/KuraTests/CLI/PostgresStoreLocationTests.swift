#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraSync

  import KuraSyncCore

  import KuraStoreCLI

  import KuraTestSupport

  import KuraEngineTestSupport

  /// The tools on a PostgreSQL store named by URL: passwords never shown, and the commands that
  /// only read never create anything on the server.
  @Suite("--store and kura store on PostgreSQL")
  struct PostgresStoreLocationTests {
    /// Every object of the `public` schema of the database at `url`: tables, indexes,
    /// sequences, views, functions and types.
    private func objects(in url: String) throws -> [String] {
      let connection = try PostgresConnection(url)
      return try connection.query(
        "SELECT relname::text FROM pg_catalog.pg_class WHERE relnamespace = 'public'::regnamespace"
          + " UNION ALL SELECT proname::text FROM pg_catalog.pg_proc"
          + " WHERE pronamespace = 'public'::regnamespace"
          + " UNION ALL SELECT typname::text FROM pg_catalog.pg_type"
          + " WHERE typnamespace = 'public'::regnamespace ORDER BY 1"
      ) { $0.string(at: 0) }
    }

    /// Whether the cluster has a database named `name`.
    private func databaseExists(_ name: String) throws -> Bool {
      let cluster = try PostgresCluster.shared()
      let connection = try PostgresConnection(cluster.url(database: "postgres"))
      return try connection.queryFirst(
        "SELECT count(*) FROM pg_catalog.pg_database WHERE datname = ?", [.text(name)]
      ) { $0.int64(at: 0) } == 1
    }

    @Test func aPasswordInTheURLNeverAppearsInAnyOutputOrError() throws {
      let cluster = try PostgresCluster.shared()
      let store = try freshStore(.postgres)
      let database = try #require(try PostgresLocation(store.argument).database)
      // The role that logs in with a password owns the database, so it may create the store.
      try cluster.runAsSuperuser("ALTER DATABASE \(database) OWNER TO \(cluster.passwordRole)")
      let password = cluster.passwordRolePassword
      let url = cluster.url(database: database, user: cluster.passwordRole, password: password)
      let secrets = [
        password, password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "",
        "battery",
      ]
      var outputs: [String] = []
      func tool(
        _ name: String, _ arguments: [String], environment: [String: String]? = nil,
        status: Int32 = 0
      ) throws -> ProcessResult {
        let result = try run(
          try executable(name), arguments, environment: environment ?? store.folder.environment)
        #expect(result.status == status, "\(name) \(arguments): \(result.stderr)")
        outputs += [result.stdout, result.stderr]
        return result
      }
      _ = try tool("students", ["add", "--name", "Luna Lovegood", "--store", url])
      var environment = store.folder.environment
      environment["KURA_STORE_URL"] = url
      #expect(try tool("students", ["list"], environment: environment).stdout == "Luna Lovegood\n")
      #expect(try tool("students", ["count", "--store", url]).stdout == "1\n")
      let path = try tool("students", ["path"], environment: environment).stdout
      #expect(path.hasPrefix("database `\(database)` on socket `\(cluster.folder)/.s.PGSQL.5432`"))
      #expect(path.hasSuffix(" as user `\(cluster.passwordRole)`\n"))
      _ = try tool("students", ["path", "--json", "--store", url])
      // The students' database is another app's store: refused, and the refusal names it
      // without the password.
      let foreign = try tool(
        "wishlist", ["trip", "add", "Kyoto"], environment: environment, status: 1)
      #expect(foreign.stderr.contains("it holds other models (`Student`)"), "\(foreign.stderr)")
      _ = try tool("wishlist", ["trip", "list", "--json"], environment: environment, status: 1)
      _ = try tool("wishlist", ["path"], environment: environment)
      for command in [["info"], ["schema"], ["check"], ["info", "--json"], ["check", "--json"]] {
        _ = try tool("kura", ["store"] + command + [url])
      }
      _ = try tool("kura", ["store", "dump", url, "Student", "--json"])
      _ = try tool("kura", ["store", "dump", url, "Nothing"], status: 1)
      _ = try tool("kura", ["store", "migrate", url], status: 64)
      // A wrong password, a missing database and a server that isn't there: clear errors
      // naming the database and server, without the password.
      let wrong = cluster.url(
        database: database, user: cluster.passwordRole, password: password + " wrong")
      let refused = try tool("students", ["list", "--store", wrong], status: 1)
      #expect(refused.stderr.contains("password authentication failed"), "\(refused.stderr)")
      #expect(refused.stderr.contains("`\(database) on \(cluster.folder):5432`"))
      let missing = cluster.url(
        database: "kura_no_such_database", user: cluster.passwordRole, password: password)
      let absent = try tool("kura", ["store", "info", missing], status: 1)
      #expect(absent.stderr.contains("kura_no_such_database"), "\(absent.stderr)")
      #expect(absent.stderr.contains("create the database"), "\(absent.stderr)")
      let nowhere = store.folder.file("no-server").path
      let unreachable = "postgresql://alice:\(password)@/app?host=\(nowhere)"
        .replacingOccurrences(of: " ", with: "%20")
      let down = try tool("wishlist", ["trip", "add", "Nara", "--store", unreachable], status: 1)
      #expect(down.stderr.contains("`app on \(nowhere):5432`"), "\(down.stderr)")
      #expect(down.stderr.contains("Check that the server is running"), "\(down.stderr)")
      for output in outputs {
        for secret in secrets {
          #expect(!output.contains(secret), "\(output)")
        }
      }
    }

    @Test func readingAnEmptyOrMissingDatabaseCreatesNothing() throws {
      let store = try freshStore(.postgres)
      #expect(try objects(in: store.argument) == [])
      let kura = try executable("kura")
      let info = try run(kura, ["store", "info", store.argument], environment: store.environment)
      #expect(info.status == 0, "\(info.stderr)")
      let lines = info.stdout.split(separator: "\n").map(String.init)
      #expect(lines.first == "engine          PostgreSQL")
      #expect(
        lines.suffix(2) == [
          "schema version  none (empty: no store in it yet)", "models          0",
        ])
      let json = try run(
        kura, ["store", "info", "--json", store.argument], environment: store.environment)
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
      #expect(object["engine"] as? String == "postgresql")
      #expect(object["isEmpty"] as? Bool == true)
      #expect(object["path"] == nil)
      for command in [["schema"], ["check"]] {
        let result = try run(
          kura, ["store"] + command + [store.argument], environment: store.environment)
        #expect(result.status == 0, "\(command): \(result.stderr)")
      }
      let dump = try run(
        kura, ["store", "dump", store.argument, "Student"], environment: store.environment)
      #expect(dump.status == 1)
      #expect(
        dump.stderr
          == "kura: error: Can't dump `Student`: the store has no such model. Its models: none.\n")
      // The apps' reading commands find no store either, and make none.
      let students = try executable("students")
      #expect(
        try run(students, ["list"], environment: store.environment).stdout
          == "No students yet. Add one with `students add`.\n")
      #expect(try run(students, ["count"], environment: store.environment).stdout == "0\n")
      #expect(
        try run(try executable("wishlist"), ["trip", "list"], environment: store.environment)
          .stdout == "No trips yet. Add one with `wishlist trip add <name>`.\n")
      #expect(try objects(in: store.argument) == [])
      // A database that does not exist is reported, and not created.
      let cluster = try PostgresCluster.shared()
      let missing = cluster.url(database: "kura_missing_database")
      for arguments in [["store", "info", missing], ["store", "check", missing]] {
        let result = try run(kura, arguments, environment: store.environment)
        #expect(result.status == 1)
        #expect(
          result.stderr.hasPrefix(
            "kura: error: Can't open store `kura_missing_database on \(cluster.folder):5432`: "
              + "Can't connect to PostgreSQL database `kura_missing_database`"),
          "\(result.stderr)")
      }
      let count = try run(students, ["count", "--store", missing], environment: store.environment)
      #expect(count.status == 1)
      #expect(try !databaseExists("kura_missing_database"))
    }

    @Test func aStoreInspectorReadsInReadOnlyTransactions() throws {
      let store = try freshStore(.postgres)
      let inspector = try store.inspector()
      #expect(try inspector.isEmpty)
      #expect(inspector.engine == .postgresql)
      #expect(inspector.url == nil)
      // The inspector's connection can't write, even when asked to.
      #expect(throws: PostgresError.self) {
        try inspector.connection.execute("CREATE TABLE intruder (id integer)")
      }
      // A `postgresql://` URL opens the same way.
      let byURL = try StoreInspector(url: try #require(URL(string: store.argument)))
      #expect(byURL.engine == .postgresql)
      #expect(byURL.location == (try PostgresLocation(store.argument)).description)
      #expect(try byURL.info().isEmpty)
      #expect(try objects(in: store.argument) == [])
    }
  }
#endif
