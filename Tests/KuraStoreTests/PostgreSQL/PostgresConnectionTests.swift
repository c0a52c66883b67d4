#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  import KuraStoreCLI

  extension PostgreSQLTests {
    @Suite("PostgreSQL connection")
    struct PostgresConnectionTests {
      @Test func connectsToAFreshDatabaseOfItsOwn() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.freshDatabaseURL()
        let connection = try PostgresConnection(url)
        let database = try #require(connection.location.database)
        #expect(database.hasPrefix("kura_"))
        #expect(
          try connection.queryFirst("SELECT current_database()") { $0.string(at: 0) } == database)
        #expect(
          try connection.queryFirst("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") {
            $0.int64(at: 0)
          } == 0)
        #expect(connection.isConnected)
        #expect(!connection.isInTransaction)
        #expect(connection.serverVersion >= 100_000)
        #expect(
          connection.location.description.contains("socket `\(cluster.folder)/.s.PGSQL.5432`"))
      }

      @Test func integersRoundTripExactly() throws {
        let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())
        try connection.execute("CREATE TABLE t (i bigint, n bigint)")
        let values: [Int64] = [.min, .min + 1, -1, 0, 1, 42, 1 << 53 + 1, .max - 1, .max]
        for value in values {
          try connection.run("INSERT INTO t (i) VALUES (?)", [.integer(value)])
        }
        let read = try connection.query("SELECT i, n FROM t ORDER BY i") { row in
          (
            row.int64(at: 0), row.value(at: 0), row.isNull(at: 1), row.value(at: 1),
            row.string(at: 0)
          )
        }
        #expect(read.map(\.0) == values)
        #expect(read.map(\.1) == values.map { .integer($0) })
        #expect(read.allSatisfy { $0.2 && $0.3 == .null })
        #expect(read.map(\.4) == values.map { String($0) })
      }

      @Test func doublesRoundTripBitForBit() throws {
        let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())
        try connection.execute("CREATE TABLE t (k integer, d double precision)")
        let values: [Double] = [
          0, -0.0, .nan, -Double.nan, Double(nan: 0x1234, signaling: false), .infinity,
          -.infinity, .pi, -1.5, .leastNonzeroMagnitude, .leastNormalMagnitude,
          .greatestFiniteMagnitude, 0.1, 1e-300,
        ]
        let insert = try connection.prepare("INSERT INTO t (k, d) VALUES (?, ?)")
        for (key, value) in values.enumerated() {
          insert.reset()
          try insert.bind(key, at: 1)
          if key.isMultiple(of: 2) {
            try insert.bind(value, at: 2)
          } else {
            try insert.bindExact(value, at: 2)
          }
          try insert.execute()
        }
        let read = try connection.query("SELECT d FROM t ORDER BY k") { row in
          (row.double(at: 0), row.exactDouble(at: 0), row.value(at: 0))
        }
        #expect(read.map(\.0.bitPattern) == values.map(\.bitPattern))
        #expect(read.map(\.1.bitPattern) == values.map(\.bitPattern))
        for (value, (_, _, stored)) in zip(values, read) {
          guard case .real(let real) = stored else {
            Issue.record("\(stored) is not a real")
            continue
          }
          #expect(real.bitPattern == value.bitPattern)
        }
      }

      @Test func textRoundTripsExactly() throws {
        let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())
        try connection.execute("CREATE TABLE t (k integer, s text, v varchar(100))")
        let values = [
          "", "a", "café", "cafe\u{301}", "漢字かなカナ", "🇯🇵👨‍👩‍👧‍👦", "tab\tnew\nline",
          "quote ' and \" and \\ and ?", String(repeating: "長い", count: 50_000),
        ]
        for (key, value) in values.enumerated() {
          try connection.run(
            "INSERT INTO t (k, s, v) VALUES (?, ?, ?)",
            [.integer(Int64(key)), .text(value), .text(String(value.prefix(100)))])
        }
        let read = try connection.query("SELECT s, v FROM t ORDER BY k") { row in
          (row.string(at: 0), row.value(at: 0), row.string(at: 1), row.isNull(at: 0))
        }
        #expect(read.map(\.0) == values)
        #expect(read.map(\.1) == values.map { .text($0) })
        #expect(read.map(\.2) == values.map { String($0.prefix(100)) })
        // The empty string stays a string, not NULL; é and e + combining accent stay apart.
        #expect(read[0].3 == false)
        #expect(read[2].0.utf8.count == 5 && read[3].0.utf8.count == 6)
      }

      @Test func bytesRoundTripExactly() throws {
        let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())
        try connection.execute("CREATE TABLE t (k integer, b bytea)")
        var generator = SystemRandomNumberGenerator()
        let large = Data((0..<3_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let values = [Data(), Data([0]), Data([0, 1, 0, 255]), large]
        for (key, value) in values.enumerated() {
          try connection.run(
            "INSERT INTO t (k, b) VALUES (?, ?)", [.integer(Int64(key)), .blob(value)])
        }
        let statement = try connection.prepare("INSERT INTO t (k, b) VALUES (?, ?)")
        try statement.bind(99, at: 1)
        try statement.bind(bytes: [9, 8, 7], at: 2)
        try statement.execute()
        let read = try connection.query("SELECT b FROM t ORDER BY k") { row in
          (row.data(at: 0), row.value(at: 0), row.isNull(at: 0))
        }
        #expect(read.map(\.0) == values + [Data([9, 8, 7])])
        #expect(read.map(\.1) == (values + [Data([9, 8, 7])]).map { .blob($0) })
        #expect(read[0].2 == false)
      }

      @Test func nullAndUnboundParametersAreNull() throws {
        let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())
        try connection.execute("CREATE TABLE t (a bigint, b text, c bytea, d double precision)")
        try connection.run("INSERT INTO t VALUES (?, ?, ?, ?)", [.null, .null, .null])
        let row = try #require(
          try connection.queryFirst("SELECT a, b, c, d FROM t") { row in
            (0..<4).map { row.value(at: $0) } + [
              .integer(row.int64(at: 0)), .text(row.string(at: 1)), .blob(row.data(at: 2)),
              .real(row.double(at: 3)),
            ]
          })
        #expect(
          row == [.null, .null, .null, .null, .integer(0), .text(""), .blob(Data()), .real(0)])
      }

      @Test func boundValuesAreConvertedToTheParameterType() throws {
        let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())
        try connection.execute(
          """
          CREATE TABLE t (i integer, s smallint, d double precision, r real, b boolean, t text,
            n numeric, day date, id uuid, j jsonb)
          """)
        try connection.run(
          "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          [
            .integer(7), .real(-3), .integer(1 << 40), .integer(2), .integer(1), .integer(12),
            .real(2.5), .text("2024-05-01"), .text("3F4D8393-6A1B-4C51-9A64-3C6B4D0B7E55"),
            .text("{\"a\": [1, 2]}"),
          ])
        let row = try #require(
          try connection.queryFirst("SELECT i, s, d, r, b, t, n, day, id, j FROM t") { row in
            (0..<10).map { row.value(at: $0) }
          })
        #expect(
          row == [
            .integer(7), .integer(-3), .real(1_099_511_627_776), .real(2), .integer(1), .text("12"),
            .text("2.5"), .text("2024-05-01"), .text("3f4d8393-6a1b-4c51-9a64-3c6b4d0b7e55"),
            .text("{\"a\": [1, 2]}"),
          ])
        // A query over columns read as text still reads numbers as numbers.
        let mixed = try #require(
          try connection.queryFirst("SELECT i, d, b, n FROM t") { row in
            (row.int64(at: 0), row.double(at: 1), row.int64(at: 2), row.double(at: 3))
          })
        #expect(mixed.0 == 7 && mixed.1 == 1_099_511_627_776 && mixed.2 == 1 && mixed.3 == 2.5)
      }

      @Test func valuesThatDoNotFitTheParameterTypeAreRefusedByName() throws {
        let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())
        try connection.execute("CREATE TABLE t (i integer, x bigint)")
        #expect {
          try connection.run("INSERT INTO t (i) VALUES (?)", [.integer(1 << 40)])
        } throws: { error in
          let error = error as? PostgresError
          return error?.sqlState == "22003"
            && error?.message == "value \"1099511627776\" is out of range for type integer"
        }
        #expect {
          try connection.run("INSERT INTO t (x) VALUES (?)", [.real(2.5)])
        } throws: { error in
          (error as? PostgresError)?.message == "invalid input syntax for type bigint: \"2.5\""
        }
        #expect {
          try connection.run("INSERT INTO t (x) VALUES (?)", [.blob(Data([1]))])
        } throws: { error in
          (error as? PostgresError)?.description
            == "PostgreSQL error in \(connection.location.description): can't bind"
            + " bytes to parameter 1, of type bigint; bind them to a bytea parameter — while"
            + " executing `INSERT INTO t (x) VALUES (?)`"
        }
        #expect {
          try connection.run("INSERT INTO t (x) VALUES (?)", [.integer(1), .integer(2)])
        } throws: { error in
          (error as? PostgresError)?.message
            == "parameter 2 is out of range: the statement has 1 parameter(s)"
        }
        // The failed statements left the connection usable.
        try connection.run("INSERT INTO t (x) VALUES (?)", [.real(3)])
        #expect(try connection.queryFirst("SELECT x FROM t") { $0.int64(at: 0) } == 3)
      }

      @Test func placeholdersAreRewrittenOutsideStringsAndComments() throws {
        let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())
        let row = try #require(
          try connection.queryFirst(
            "SELECT '?' || ?::text || ?2 || \"?\" -- ?\n FROM (SELECT 'q' AS \"?\") AS s",
            [.text("a"), .text("b")]
          ) { $0.string(at: 0) })
        #expect(row == "?abq")
        let statement = try connection.prepare("SELECT ?::bigint + ?3::bigint, ?2::text || ?::text")
        #expect(statement.parameterCount == 4)
        #expect(statement.columnCount == 2)
        #expect(statement.columnName(at: 0) == "?column?")
      }

      @Test func changesCountsRowsOfTheLastWrite() throws {
        let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())
        try connection.execute("CREATE TABLE t (a bigint)")
        try connection.execute("INSERT INTO t SELECT generate_series(1, 5)")
        #expect(connection.changes == 5)
        try connection.run("UPDATE t SET a = a + 1 WHERE a > ?", [.integer(2)])
        #expect(connection.changes == 3)
        _ = try connection.query("SELECT a FROM t") { $0.int64(at: 0) }
        #expect(connection.changes == 3)
        try connection.run("DELETE FROM t WHERE a > 100")
        #expect(connection.changes == 0)
      }

      @Test func aCachedQueryRunAgainInsideItsOwnRowsKeepsItsPlace() throws {
        let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())
        try connection.execute("CREATE TABLE t (a bigint); INSERT INTO t VALUES (1), (2), (3)")
        let sql = "SELECT a FROM t WHERE a >= ? ORDER BY a"
        let pairs = try connection.query(sql, [.integer(1)]) { outer in
          let a = outer.int64(at: 0)
          let inner = try connection.query(sql, [.integer(a)]) { $0.int64(at: 0) }
          return "\(a):\(inner.map(String.init).joined(separator: ","))"
        }
        #expect(pairs == ["1:1,2,3", "2:2,3", "3:3"])
      }

      @Test func transactionsCommitOrRollBackAndNestAsSavepoints() throws {
        let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())
        try connection.execute("CREATE TABLE t (a bigint UNIQUE)")
        try connection.transaction {
          #expect(connection.isInTransaction)
          try connection.run("INSERT INTO t VALUES (1)")
        }
        #expect(!connection.isInTransaction)
        struct Failure: Error {}
        #expect(throws: Failure.self) {
          try connection.transaction {
            try connection.run("INSERT INTO t VALUES (2)")
            throw Failure()
          }
        }
        #expect(!connection.isInTransaction)
        try connection.transaction(.serializable) {
          try connection.run("INSERT INTO t VALUES (3)")
          // A failed statement inside a savepoint undoes only the savepoint.
          #expect(throws: PostgresError.self) {
            try connection.savepoint {
              try connection.run("INSERT INTO t VALUES (4)")
              try connection.run("INSERT INTO t VALUES (1)")
            }
          }
          // Nested transactions are savepoints too.
          try? connection.transaction {
            try connection.run("INSERT INTO t VALUES (5)")
            throw Failure()
          }
          try connection.transaction { try connection.run("INSERT INTO t VALUES (6)") }
        }
        #expect(
          try connection.query("SELECT a FROM t ORDER BY a") { $0.int64(at: 0) } == [1, 3, 6])
      }

      @Test func aTransactionWhoseStatementFailedUnseenIsRolledBackAndReported() throws {
        let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())
        try connection.execute("CREATE TABLE t (a bigint UNIQUE); INSERT INTO t VALUES (1)")
        #expect {
          try connection.transaction {
            try connection.run("INSERT INTO t VALUES (2)")
            try? connection.run("INSERT INTO t VALUES (1)")
          }
        } throws: { error in
          (error as? PostgresError)?.description
            == "PostgreSQL error 25P02 in \(connection.location.description): the"
            + " transaction was rolled back, not committed: one of its statements failed and its"
            + " error was caught without a savepoint — while executing `COMMIT`"
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.query("SELECT a FROM t") { $0.int64(at: 0) } == [1])
      }

      @Test func constraintErrorsAreClassifiedWithoutTheirValues() throws {
        let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())
        try connection.execute(
          """
          CREATE TABLE parent (id bigint PRIMARY KEY);
          CREATE TABLE secret (value text UNIQUE, n bigint NOT NULL DEFAULT 0 CHECK (n >= 0),
            parent bigint REFERENCES parent (id));
          INSERT INTO secret (value) VALUES ('hunter2')
          """)
        func failure(_ sql: String, _ arguments: [DatabaseValue]) -> PostgresError? {
          do {
            try connection.run(sql, arguments)
          } catch let error as PostgresError {
            return error
          } catch {
            Issue.record("unexpected \(error)")
          }
          return nil
        }
        let unique = try #require(
          failure("INSERT INTO secret (value) VALUES (?)", [.text("hunter2")]))
        #expect(unique.code == .uniqueViolation)
        #expect(unique.sqlState == "23505")
        #expect(unique.constraint == "secret_value_key")
        #expect(unique.table == "secret")
        #expect(unique.detail?.contains("hunter2") == true)
        #expect(
          unique.description
            == "PostgreSQL error 23505 (unique violation) in \(connection.location.description):"
            + " duplicate key value violates unique constraint \"secret_value_key\" — while"
            + " executing `INSERT INTO secret (value) VALUES (?)`")
        let notNull = try #require(
          failure("INSERT INTO secret (value, n) VALUES (?, ?)", [.text("a"), .null]))
        #expect(notNull.code == .notNullViolation)
        #expect(notNull.column == "n")
        let check = try #require(
          failure("INSERT INTO secret (value, n) VALUES (?, ?)", [.text("b"), .integer(-1)]))
        #expect(check.code == .checkViolation)
        #expect(check.constraint == "secret_n_check")
        let foreign = try #require(
          failure("INSERT INTO secret (value, parent) VALUES (?, ?)", [.text("c"), .integer(9)]))
        #expect(foreign.code == .foreignKeyViolation)
        let missing = try #require(failure("SELECT * FROM nowhere", []))
        #expect(missing.code == .undefinedTable)
        #expect(missing.sqlState == "42P01")
        #expect(missing.message == "relation \"nowhere\" does not exist")
        for error in [unique, notNull, check, foreign, missing] {
          #expect(!error.description.contains("hunter2"))
          #expect(!error.isCommitOutcomeUnknown)
          #expect(!error.isRetryable)
        }
      }

      @Test func aMissingDatabaseIsNamedInTheError() throws {
        let cluster = try PostgresCluster.shared()
        let url = cluster.url(database: "no_such_database")
        #expect {
          try PostgresConnection(url)
        } throws: { error in
          (error as? PostgresError)?.code == .databaseMissing
            && (error as? PostgresError)?.sqlState == "3D000"
            && error.localizedDescription.isEmpty == false
            && "\(error)"
              == "Can't connect to PostgreSQL database `no_such_database` on socket"
              + " `\(cluster.folder)/.s.PGSQL.5432` as user `postgres`: database"
              + " \"no_such_database\" does not exist. Check the database name in the URL, or"
              + " create the database (createdb)."
        }
      }

      @Test func aWrongPasswordIsAnAuthenticationFailureThatNeverShowsIt() throws {
        let cluster = try PostgresCluster.shared()
        let url = cluster.url(
          database: "postgres", user: cluster.passwordRole, password: "wrong horse 123")
        var caught: PostgresError?
        do {
          _ = try PostgresConnection(url)
        } catch let error as PostgresError {
          caught = error
        }
        let error = try #require(caught)
        #expect(error.code == .authenticationFailed)
        #expect(error.sqlState == "28P01")
        #expect(
          error.description
            == "Can't connect to PostgreSQL database `postgres` on socket"
            + " `\(cluster.folder)/.s.PGSQL.5432` as user `kura_password_test`: password"
            + " authentication failed for user \"kura_password_test\". Check the user name and its"
            + " password (given in the URL, in the file PGPASSFILE names or in PGPASSWORD) and the"
            + " server's pg_hba.conf.")
        #expect(!"\(error)".contains("wrong horse"))
        #expect(!String(reflecting: error).contains("wrong horse"))
        // No password at all is an authentication failure too.
        #expect {
          try PostgresConnection(cluster.url(database: "postgres", user: cluster.passwordRole))
        } throws: { error in
          (error as? PostgresError)?.code == .authenticationFailed
        }
        // The right one, from the URL or from a password file, connects.
        let connection = try PostgresConnection(
          cluster.url(
            database: "postgres", user: cluster.passwordRole, password: cluster.passwordRolePassword
          ))
        #expect(
          try connection.queryFirst("SELECT current_user") { $0.string(at: 0) }
            == cluster.passwordRole)
        let folder = TemporaryDirectory()
        let passwordFile = folder.file("pgpass")
        try "*:*:*:\(cluster.passwordRole):\(cluster.passwordRolePassword)\n".write(
          to: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile.path, 0o600)
        let viaFile = try PostgresLocation(
          cluster.url(database: "postgres", user: cluster.passwordRole)
        )
        .setting("passfile", to: passwordFile.path)
        #expect(try PostgresConnection(location: viaFile).isConnected)
      }

      @Test func noServerAtTheSocketIsAConnectionFailure() throws {
        let folder = TemporaryDirectory()
        let url = "postgresql:///app?host=\(folder.url.path)"
        #expect {
          try PostgresConnection(url)
        } throws: { error in
          let error = error as? PostgresError
          return error?.code == .connectionFailed
            && error?.description.hasPrefix(
              "Can't connect to PostgreSQL database `app` on socket `\(folder.url.path)/.s.PGSQL.5432`"
            ) == true
            && error?.description.hasSuffix(
              "Check that the server is running and accepts connections there.") == true
            && error?.description.contains("?.") == false
        }
      }

      @Test func aConnectionLostMidTransactionSaysSoAndCommitsNothing() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.freshDatabaseURL()
        let connection = try PostgresConnection(url)
        try connection.execute("CREATE TABLE t (a bigint)")
        let insert = "INSERT INTO t VALUES (?)"
        var caught: PostgresError?
        do {
          try connection.transaction {
            try connection.run(insert, [.integer(1)])
            try cluster.terminateBackend(connection.processID)
            try connection.run(insert, [.integer(2)])
          }
        } catch let error as PostgresError {
          caught = error
        }
        let error = try #require(caught)
        #expect(error.code == .connectionLost)
        #expect(!error.isCommitOutcomeUnknown)
        #expect(
          error.description.hasPrefix(
            "Lost the connection to PostgreSQL \(connection.location.description): "))
        #expect(
          error.description.hasSuffix(
            ". Work not yet committed was not saved; connect again and retry it — while executing"
              + " `INSERT INTO t VALUES (?)`."))
        #expect(!connection.isConnected)
        #expect(!connection.isInTransaction)
        // Until it reconnects, nothing is sent.
        #expect {
          try connection.run(insert, [.integer(3)])
        } throws: { error in
          (error as? PostgresError)?.code == .connectionLost
            && (error as? PostgresError)?.isCommitOutcomeUnknown == false
        }
        try connection.reconnect()
        // The cached statement is prepared again on the new connection.
        try connection.run(insert, [.integer(4)])
        #expect(try connection.query("SELECT a FROM t") { $0.int64(at: 0) } == [4])
      }

      @Test func aConnectionLostDuringCommitLeavesTheOutcomeUnknown() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.freshDatabaseURL()
        let connection = try PostgresConnection(url)
        // A deferred trigger that waits for an advisory lock holds the COMMIT in flight.
        try connection.execute(
          """
          CREATE TABLE t (a bigint);
          CREATE FUNCTION wait_for_lock() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_advisory_lock(4242); RETURN NULL; END $$;
          CREATE CONSTRAINT TRIGGER t_wait AFTER INSERT ON t DEFERRABLE INITIALLY DEFERRED
            FOR EACH ROW EXECUTE FUNCTION wait_for_lock();
          """)
        let holder = try PostgresConnection(url)
        try holder.execute("SELECT pg_advisory_lock(4242)")
        let processID = connection.processID
        let outcome = PostgreSQLTests.background { () -> PostgresError? in
          do {
            try connection.transaction { try connection.run("INSERT INTO t VALUES (1)") }
          } catch let error as PostgresError {
            return error
          } catch {}
          return nil
        }
        // Wait (at most 60 s) until the COMMIT waits for the lock, then end its backend.
        var waiting = false
        for _ in 0..<6000 where !waiting {
          waiting =
            try holder.queryFirst(
              """
              SELECT pg_sleep(0.01), EXISTS (SELECT 1 FROM pg_stat_activity
                WHERE pid = ? AND query = 'COMMIT' AND wait_event_type = 'Lock')
              """, [.integer(Int64(processID))]
            ) { $0.int64(at: 1) } == 1
        }
        #expect(waiting)
        try cluster.terminateBackend(processID)
        let error = try #require(try outcome.value())
        #expect(error.code == .connectionLost)
        #expect(error.isCommitOutcomeUnknown)
        #expect(error.sql == "COMMIT")
        #expect(
          error.description.hasSuffix(
            ". The connection broke while the work was committing: it may or may not have been"
              + " saved; read it back to find out — while executing `COMMIT`."))
      }
    }
  }

  extension PostgreSQLTests {
    /// Runs `body` on a new thread; `value()` waits for its result.
    static func background<Value: Sendable>(
      _ body: @escaping @Sendable () -> Value
    ) -> BackgroundResult<Value> {
      let result = BackgroundResult<Value>()
      let thread = Thread { result.set(body()) }
      thread.start()
      return result
    }

    /// The result of a ``background(_:)`` body, awaited with a bound.
    final class BackgroundResult<Value: Sendable>: @unchecked Sendable {
      // Safety: `stored` is only touched with `condition` locked.
      private let condition = NSCondition()
      private var stored: Value?

      fileprivate func set(_ value: Value) {
        condition.lock()
        stored = value
        condition.broadcast()
        condition.unlock()
      }

      /// Waits (at most 60 s) for the value.
      func value() throws -> Value {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: 60)
        while stored == nil {
          if !condition.wait(until: deadline) { break }
        }
        return try #require(stored)
      }
    }
  }
#endif
