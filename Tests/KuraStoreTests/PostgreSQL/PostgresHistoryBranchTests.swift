#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraPostgresCluster

  /// A model whose saves take history tokens.
  private struct BranchNote: PersistentModel, Equatable {
    var id: Int
    var text: String
  }

  extension PostgreSQLTests {
    /// History branches (`kura_history_branches`): the offset each cluster and timeline adds to
    /// transaction ids before they become tokens. Failover and restores from a base backup are
    /// in ``PostgresFailoverTests``.
    @Suite("PostgreSQL history branches")
    struct PostgresHistoryBranchTests {
      /// A store made before history branches (no `kura_history_branches`, functions of the
      /// previous version, tokens the transaction id times 65,536) opens and saves: its branch
      /// is recorded with offset 0, so tokens go on growing from where they were, and the
      /// history reads every save in order.
      @Test func aStoreMadeBeforeBranchesKeepsItsTokensGrowing() throws {
        let store = try freshStore(.postgres)
        let connection = try PostgresConnection(store.argument)
        do {
          let context = ModelContext(
            try ModelContainer(for: BranchNote.self, configurations: store.configuration))
          try context.insert(BranchNote(id: 1, text: "one"))
          try context.save()
        }
        // The shape the previous version left, and a save of it (a token without offset).
        try connection.execute(
          "DROP TABLE kura_history_branches; DROP FUNCTION kura_history_offset(); "
            + "COMMENT ON FUNCTION kura_key(text) IS 'kura functions 5'")
        let oldToken = try #require(
          try connection.queryFirst(
            "INSERT INTO kura_history (token, time, models, changes) SELECT txid_current() * "
              + "65536, time, models, changes FROM kura_history RETURNING token"
          ) { $0.int64(at: 0) })
        let container = try ModelContainer(
          for: BranchNote.self, configurations: store.configuration)
        let context = ModelContext(container)
        try context.insert(BranchNote(id: 2, text: "two"))
        let token = try context.save().token.rawValue
        let current = try #require(
          try connection.queryFirst("SELECT txid_current()") { $0.int64(at: 0) })
        #expect(token > oldToken)
        #expect(token / PostgresStoreEngine.tokensPerTransaction < current)
        #expect(
          try connection.query("SELECT xid_offset FROM kura_history_branches") { $0.int64(at: 0) }
            == [0])
        let history = try container.history(since: .start)
        #expect(history.count == 3)
        #expect(history.map(\.token.rawValue).last == token)
        #expect(history.map(\.token) == history.map(\.token).sorted())
      }

      /// A store whose branches and history came from another cluster (as a logical dump
      /// restored elsewhere brings them: another system identifier, and tokens far above this
      /// cluster's transaction ids): the first save here starts a branch whose tokens are above
      /// every token of the history.
      @Test func aStoreFromAnotherClusterTakesTokensAboveItsHistory() throws {
        let store = try freshStore(.postgres)
        let connection = try PostgresConnection(store.argument)
        do {
          let context = ModelContext(
            try ModelContainer(for: BranchNote.self, configurations: store.configuration))
          try context.insert(BranchNote(id: 1, text: "one"))
          try context.save()
        }
        // The other cluster's: its id, and a save of a transaction id far above this one's.
        let far: Int64 = 1 << 40
        try connection.execute(
          "UPDATE kura_history_branches SET system_identifier = system_identifier + 1; "
            + "UPDATE kura_history SET token = token + \(far)")
        let container = try ModelContainer(
          for: BranchNote.self, configurations: store.configuration)
        let context = ModelContext(container)
        try context.insert(BranchNote(id: 2, text: "two"))
        let token = try context.save().token.rawValue
        #expect(token > far + (Int64(1) << 32) * PostgresStoreEngine.tokensPerTransaction)
        let offsets = try connection.query(
          "SELECT xid_offset FROM kura_history_branches ORDER BY xid_offset"
        ) { $0.int64(at: 0) }
        #expect(offsets.count == 2)
        #expect(offsets.first == 0)
        let history = try container.history(since: .start)
        #expect(history.map { $0.changes["BranchNote"]?.inserted } == [["1"], ["2"]])
      }

      /// A store dumped with `pg_dump` (its cluster having handed out more transaction ids
      /// than a new cluster has) and restored into a new cluster: the restored store's saves
      /// take tokens above every token of its history, and a reader continuing from the last
      /// token it read before the move receives each of them.
      @Test func aStoreDumpedIntoAnotherClusterTakesTokensAboveItsHistory() throws {
        let source = try PostgresCluster.start(fsync: false)
        try source.runAsSuperuser("CREATE DATABASE kura_dumped")
        let sourceURL = source.url(database: "kura_dumped")
        // More ids than the new cluster will have handed out when it saves.
        let burner = try PostgresConnection(sourceURL)
        for _ in 0..<1_500 { try burner.execute("SELECT txid_current()") }
        var lastRead = HistoryToken.start
        do {
          let container = try ModelContainer(
            for: BranchNote.self,
            configurations: try ModelConfiguration.postgres(connectionString: sourceURL))
          let context = ModelContext(container)
          for id in 1...3 {
            try context.insert(BranchNote(id: id, text: "dumped \(id)"))
            try context.save()
          }
          lastRead = try #require(try container.history(since: .start).last?.token)
        }
        let target = try PostgresCluster.start(fsync: false)
        try target.runAsSuperuser("CREATE DATABASE kura_restored")
        let targetURL = target.url(database: "kura_restored")
        var environment = ProcessInfo.processInfo.environment
        environment["PSQLRC"] = "/dev/null"
        let dump = try run(
          URL(fileURLWithPath: "/usr/bin/pg_dump"), [sourceURL], environment: environment)
        #expect(dump.status == 0, "\(dump.stderr)")
        let restore = try run(
          URL(fileURLWithPath: "/usr/bin/psql"),
          [targetURL, "-X", "-q", "-v", "ON_ERROR_STOP=1"], environment: environment,
          input: dump.stdout)
        #expect(restore.status == 0, "\(restore.stderr)")
        let container = try ModelContainer(
          for: BranchNote.self,
          configurations: try ModelConfiguration.postgres(connectionString: targetURL))
        let context = ModelContext(container)
        var tokens: [HistoryToken] = []
        for id in 4...6 {
          try context.insert(BranchNote(id: id, text: "restored \(id)"))
          tokens.append(try context.save().token)
        }
        #expect(tokens.allSatisfy { $0 > lastRead }, "\(tokens), \(lastRead)")
        let history = try container.history(since: lastRead)
        #expect(history.map(\.token) == tokens)
        #expect(history.map { $0.changes["BranchNote"]?.inserted } == [["4"], ["5"], ["6"]])
      }

      /// A role without superuser, owning its database, makes a store and saves: the functions
      /// that name the branch (`pg_control_system()`, `pg_walfile_name()`) are everyone's.
      @Test func aRoleWithoutSuperuserSaves() throws {
        let cluster = try PostgresCluster.shared()
        try cluster.runAsSuperuser("CREATE ROLE kura_branch_writer LOGIN NOSUPERUSER")
        try cluster.runAsSuperuser("CREATE DATABASE kura_branch_plain OWNER kura_branch_writer")
        let url = cluster.url(database: "kura_branch_plain", user: "kura_branch_writer")
        let configuration = try ModelConfiguration.postgres(connectionString: url)
        let container = try ModelContainer(for: BranchNote.self, configurations: configuration)
        let context = ModelContext(container)
        var tokens: [HistoryToken] = []
        for id in 1...3 {
          try context.insert(BranchNote(id: id, text: "plain \(id)"))
          tokens.append(try context.save().token)
        }
        #expect(try container.history(since: .start).map(\.token) == tokens)
        let connection = try PostgresConnection(url)
        #expect(
          try connection.queryFirst(
            "SELECT rolsuper::text FROM pg_roles WHERE rolname = current_user"
          ) { $0.string(at: 0) } == "false")
        #expect(
          try connection.query("SELECT xid_offset FROM kura_history_branches") { $0.int64(at: 0) }
            == [0])
      }

      /// A save whose commit answer was lost waits for the backend that ran it, named by its
      /// process id, its transaction id and the start of the server run that handed the id
      /// out: on another run (a restart, a promoted standby, a restored backup), a backend
      /// with the same process and transaction ids is another's, and is not waited for nor
      /// ended.
      @Test func theBackendOfALostCommitIsLookedForOnlyOnTheServerRunThatRanIt() throws {
        let store = try freshStore(.postgres)
        let running = try PostgresConnection(store.argument)
        let watcher = try PostgresConnection(store.argument)
        try running.execute("BEGIN")
        let id = try #require(
          try running.queryFirst("SELECT " + PostgresStorePool.transactionIDSQL) {
            $0.int64(at: 0)
          })
        // The server's start, read once when the session connected, is the server's.
        #expect(!running.session.serverStart.isEmpty)
        #expect(
          try watcher.queryFirst("SELECT " + PostgresSession.serverStartSQL) { $0.string(at: 0) }
            == running.session.serverStart)
        let pending = PostgresStorePool.PendingTransaction(
          id: id, serverStart: running.session.serverStart, backend: running.processID,
          commitID: UUID())
        func found(_ pending: PostgresStorePool.PendingTransaction) throws -> Int64? {
          try watcher.queryFirst(
            "SELECT count(*) FROM pg_stat_activity WHERE "
              + PostgresStorePool.pendingBackendCondition,
            PostgresStorePool.pendingBackendParameters(pending)
          ) { $0.int64(at: 0) }
        }
        #expect(try found(pending) == 1)
        var elsewhere = pending
        elsewhere.serverStart = "0"
        #expect(try found(elsewhere) == 0)
        try running.execute("ROLLBACK")
        #expect(try found(pending) == 0)
      }
    }
  }
#endif
