#if canImport(CLibPQ)
  import Foundation
  import Synchronization
  import Testing

  @testable import Kura
  import KuraPostgreSQL
  import KuraTestSupport
  import KuraEngineTestSupport
  import KuraCLI
  import KuraStoreCLI

  /// A model for the crash tests.
  private struct CrashMemo: PersistentModel, Equatable {
    var id: Int
    var text: String
  }

  /// A second model, which a schema change adds.
  private struct CrashNote: PersistentModel, Equatable {
    var id: Int
    var text: String
  }

  extension PostgreSQLTests {
    /// Server crashes (`pg_ctl stop -m immediate`) on a throwaway cluster of the test's own.
    @Suite("PostgreSQL crashes")
    struct PostgresCrashTests {
      /// A cluster whose WAL is flushed by commits only (the WAL writer waits 10 s, the
      /// background writer writes no pages, no autovacuum): a transaction's records stay in
      /// the server's memory until a commit flushes them, so a crash before its own commit
      /// forgets its transaction id, which the restarted server then hands out again.
      private func clusterFlushingOnlyAtCommits(database: String) throws -> (
        PostgresCluster, URL
      ) {
        let cluster = try PostgresCluster.start(fsync: false)
        for setting in [
          "wal_writer_delay = '10s'", "wal_writer_flush_after = '1GB'",
          "bgwriter_lru_maxpages = 0", "autovacuum = off",
        ] {
          try cluster.runAsSuperuser("ALTER SYSTEM SET " + setting)
        }
        try cluster.runAsSuperuser("SELECT pg_reload_conf()")
        try cluster.runAsSuperuser("CREATE DATABASE " + database)
        return (cluster, try #require(URL(string: cluster.url(database: database))))
      }

      /// A lost commit answer is decided by the save's own history row, which carries its
      /// commit id: committed while the row is there, also after a trim deleted it (by this
      /// version or, as here, a plain DELETE as earlier versions trim: the trigger moves the id
      /// to `kura_commits`), and not committed for another id at the same token (a transaction
      /// id handed out again after a crash).
      @Test func aLostCommitIsDecidedByItsHistoryRowAlsoAfterATrim() throws {
        let store = try freshStore(.postgres)
        let connection = try PostgresConnection(store.argument)
        let container = try ModelContainer(for: CrashMemo.self, configurations: store.configuration)
        let context = ModelContext(container)
        try context.insert(CrashMemo(id: 1, text: "one"))
        let token = try context.save().token
        let pool = try #require(container.pool as? PostgresStorePool)
        let writer = try #require(pool.writer)
        let pending = try #require(writer.pendingTransaction)
        #expect(pending.historyToken == token.rawValue)
        let lost = PostgresError(
          code: .connectionLost, message: "the answer to COMMIT was lost", server: "test",
          sql: "COMMIT")
        #expect(try pool.committed(writer, after: lost))
        var other = pending
        other.commitID = pool.commitIDs.next()
        writer.pendingTransaction = other
        #expect(try !pool.committed(writer, after: lost))
        try connection.run("DELETE FROM kura_history WHERE token <= ?", [.integer(token.rawValue)])
        writer.pendingTransaction = pending
        #expect(try pool.committed(writer, after: lost))
        writer.pendingTransaction = other
        #expect(try !pool.committed(writer, after: lost))
        // The store still saves, and its history goes on.
        try context.insert(CrashMemo(id: 2, text: "two"))
        let next = try context.save().token
        #expect(try container.history(since: token).map(\.token) == [next])
      }

      /// A schema change of a store that has its commit markers doesn't lock the history: a
      /// reader with a transaction open on `kura_history` (a change-feed reader) doesn't hold
      /// it up (adding the history's `commit_id` again would wait for that reader).
      @Test func aSchemaChangeDoesNotWaitForHistoryReaders() throws {
        let store = try freshStore(.postgres)
        let container = try ModelContainer(for: CrashMemo.self, configurations: store.configuration)
        let context = ModelContext(container)
        try context.insert(CrashMemo(id: 1, text: "one"))
        try context.save()
        let reader = try PostgresConnection(store.argument)
        try reader.execute("SET lock_timeout = '60s'")
        try reader.execute("BEGIN")
        #expect(try reader.queryFirst("SELECT count(*) FROM kura_history") { $0.int64(at: 0) } == 1)
        // Adds CrashNote's table: a schema change, which would fail after its lock timeout
        // (30 s).
        let wider = try ModelContainer(
          for: CrashMemo.self, CrashNote.self, configurations: store.configuration)
        try reader.execute("ROLLBACK")
        let notes = ModelContext(wider)
        try notes.insert(CrashNote(id: 1, text: "added"))
        try notes.save()
        #expect(try notes.fetch(FetchDescriptor<CrashNote>()) == [CrashNote(id: 1, text: "added")])
      }

      /// A pool's commit ids, which decide a lost commit answer, never repeat: none twice in a
      /// pool, none shared by two pools (each starts at its own random point).
      @Test func commitIDsNeverRepeat() {
        let first = CommitIDSource()
        let second = CommitIDSource()
        let ids = (0..<10_000).map { _ in first.next() }
        let others = (0..<10_000).map { _ in second.next() }
        #expect(Set(ids).count == ids.count)
        #expect(Set(ids).isDisjoint(with: others))
        // Counting up from a random start: consecutive, not the same prefix in two pools.
        #expect(ids[0].uuidString.prefix(18) != others[0].uuidString.prefix(18))
      }

      /// A connection knows the run of the server it lives on (read once, when it connects):
      /// after a crash and a restart, connecting again reads the new run's start, which the
      /// server reports, and which differs from the old one — so a transaction id the new run
      /// hands out again is never taken for the old run's.
      @Test func aConnectionKnowsTheServerRunItLivesOnAlsoAfterACrash() throws {
        let cluster = try PostgresCluster.start(fsync: false)
        let connection = try PostgresConnection(try cluster.freshDatabaseURL())
        func reported() throws -> String? {
          try connection.queryFirst("SELECT " + PostgresSession.serverStartSQL) {
            $0.string(at: 0)
          }
        }
        let before = connection.session.serverStart
        #expect(try reported() == before)
        try cluster.crash()
        try cluster.restart()
        try connection.reconnect()
        #expect(connection.session.serverStart != before)
        #expect(try reported() == connection.session.serverStart)
      }

      /// The server crashes while a `write` is about to commit, and after the restart another
      /// transaction commits with the very transaction id the write had (its WAL was never
      /// flushed, so the id was handed out again). The write's commit answer is lost: it must
      /// not be reported committed — its rows are not there. (Deciding by `txid_status` of the
      /// id, as Kura did, reported it committed.)
      @Test func aSaveWhoseTransactionIdIsHandedOutAgainAfterACrashIsNotReportedCommitted()
        throws
      {
        let (cluster, url) = try clusterFlushingOnlyAtCommits(database: "kura_reuse")
        let container = try ModelContainer(for: CrashMemo.self, configurations: .postgres(url))
        let context = ModelContext(container)
        try context.insert(CrashMemo(id: 1, text: "before"))
        try context.save()

        var reused = false
        var handedOut: [Int64] = []
        let outcome = Result<Void, any Error> {
          try container.write { context in
            try context.insert(CrashMemo(id: 2, text: "lost in the crash"))
            let saved = try context.save()
            let transaction = saved.token.rawValue / PostgresStoreEngine.tokensPerTransaction
            try cluster.crash()
            try cluster.restart()
            // Transactions that commit (each flushes its id) until the write's id comes again.
            let other = try PostgresConnection(url.absoluteString)
            for _ in 0..<100_000 {
              let id = try #require(
                try other.queryFirst("SELECT txid_current()") { $0.int64(at: 0) })
              handedOut.append(id)
              if id >= transaction {
                reused = id == transaction
                break
              }
            }
          }
        }
        // Else the scenario did not happen (the write's id reached the WAL before the crash).
        #expect(reused, "ids handed out after the restart: \(handedOut)")
        guard reused else { return }
        let error = try #require(throws: StoreError.self) { try outcome.get() }
        #expect(error.code == .connectionLost)
        #expect(error.message.contains("did not commit"))
        let stored = try ModelContext(container).fetch(
          FetchDescriptor<CrashMemo>(sortBy: [SortDescriptor(\.id)]))
        #expect(stored == [CrashMemo(id: 1, text: "before")])
      }

      /// A store made before commit markers (no `kura_commits`, no `commit_id` in its history)
      /// opens and gets them with the first save of a container, and keeps its history; each
      /// history row the container appends carries its commit's id (the container's first 64
      /// bits, then counting up), and a trim moves the newest deleted one to the container's
      /// trimmed row of `kura_commits`.
      @Test func aStoreMadeBeforeCommitMarkersGetsThemAndKeepsItsHistory() throws {
        let store = try freshStore(.postgres)
        let connection = try PostgresConnection(store.argument)
        do {
          let context = ModelContext(
            try ModelContainer(for: CrashMemo.self, configurations: store.configuration))
          try context.insert(CrashMemo(id: 1, text: "one"))
          try context.save()
        }
        // The shape the previous versions made.
        try connection.execute(
          "DROP TABLE kura_commits; DROP TRIGGER kura_history_keep_commits ON kura_history; "
            + "ALTER TABLE kura_history DROP COLUMN commit_id")
        let container = try ModelContainer(for: CrashMemo.self, configurations: store.configuration)
        let context = ModelContext(container)
        try context.insert(CrashMemo(id: 2, text: "two"))
        try context.save()
        try context.insert(CrashMemo(id: 3, text: "three"))
        let third = try context.save().token
        let ids = try connection.query(
          "SELECT CAST(commit_id AS text) FROM kura_history ORDER BY token"
        ) { $0.isNull(at: 0) ? nil : $0.string(at: 0) }
        #expect(ids.count == 3)
        #expect(ids[0] == nil)
        let second = try #require(ids[1])
        let newest = try #require(ids[2])
        #expect(second.prefix(18) == newest.prefix(18))
        #expect(second < newest)
        // The container's rows of `kura_commits`: its own (the schema change that made the
        // table wrote no history row, so its commit marked it), none yet for trimmed rows.
        func markers() throws -> [[String]] {
          try connection.query(
            "SELECT CAST(writer AS text), CAST(commit_id AS text) FROM kura_commits ORDER BY 1"
          ) { [$0.string(at: 0), $0.string(at: 1)] }
        }
        let writer = String(second.prefix(19))
        #expect(try markers().map(\.[0]) == [writer + "0000-000000000000"])
        let history = try container.history(since: .start)
        #expect(history.map { $0.changes["CrashMemo"]?.inserted } == [["1"], ["2"], ["3"]])
        try container.trimHistory(through: HistoryToken(rawValue: third.rawValue - 1))
        // The trim moved the newest deleted commit id (the first row has none).
        #expect(try markers().last == [writer + "0000-000000000001", second])
      }

      /// What a writer's saves came to across crashes, by memo id.
      private struct Outcomes {
        var acknowledged: [Int: Int64] = [:]
        var notSaved: [Int] = []
        var unknown: [Int] = []
      }

      /// Two writers save while a feed reader (`changeSets()`, another container) lives through
      /// two server crashes (`pg_ctl stop -m immediate`, then a start): every acknowledged save
      /// is in the table and arrives in the feed exactly once, in token order, with the token
      /// its save returned; every save reported not saved is in neither.
      @Test func aFeedReaderLivingThroughCrashesGetsEveryAcknowledgedSaveOnce() async throws {
        let cluster = try PostgresCluster.start(fsync: false)
        try cluster.runAsSuperuser("CREATE DATABASE kura_feed_crash")
        let url = try #require(URL(string: cluster.url(database: "kura_feed_crash")))
        var configuration = ModelConfiguration.postgres(url)
        configuration.postgresSettings.commitOutcomeWait = .seconds(30)
        let reader = try ModelContainer(for: CrashMemo.self, configurations: configuration)
        let feed = Inbox(try reader.changeSets())
        let writers = 2
        let perWriter = 150
        let outcomes = Mutex(Outcomes())
        let progress = Atomic<Int>(0)
        // Two crashes, each once the writers have made a third of their saves more.
        let crashPoints = [writers * perWriter / 3, writers * perWriter * 2 / 3]
        let reached = DispatchSemaphore(value: 0)
        let writing = DispatchGroup()
        for writer in 0..<writers {
          let container = try ModelContainer(for: CrashMemo.self, configurations: configuration)
          DispatchQueue.global().async(group: writing) {
            let context = ModelContext(container)
            for number in 0..<perWriter {
              let id = writer * perWriter + number
              do {
                try context.insert(CrashMemo(id: id, text: "w\(writer)"))
                let saved = try context.save()
                outcomes.withLock { $0.acknowledged[id] = saved.token.rawValue }
              } catch let error as StoreError where error.code == .commitOutcomeUnknown {
                context.rollback()
                outcomes.withLock { $0.unknown.append(id) }
              } catch {
                context.rollback()
                outcomes.withLock { $0.notSaved.append(id) }
              }
              let made = progress.add(1, ordering: .relaxed).newValue
              if crashPoints.contains(made) { reached.signal() }
            }
          }
        }
        for _ in crashPoints {
          try #require(reached.wait(timeout: .now() + 120) == .success)
          try cluster.crash()
          try cluster.restart()
        }
        writing.wait()
        let result = outcomes.withLock { $0 }
        #expect(result.unknown == [])
        #expect(result.acknowledged.count + result.notSaved.count == writers * perWriter)
        var delivered: [(token: Int64, id: Int)] = []
        while Set(delivered.map(\.id)).isSuperset(of: result.acknowledged.keys) == false {
          guard let set = await feed.next(within: .seconds(60)) else { break }
          for id in set.inserted(CrashMemo.self) {
            delivered.append((set.token.rawValue, id))
          }
        }
        let tokens = delivered.map(\.token)
        #expect(tokens == tokens.sorted())
        #expect(Set(tokens).count == tokens.count)
        #expect(delivered.count == Set(delivered.map(\.id)).count)
        for (token, id) in delivered {
          #expect(result.acknowledged[id] == token, "memo \(id)")
        }
        #expect(Set(delivered.map(\.id)) == Set(result.acknowledged.keys))
        let stored = try ModelContext(reader).fetch(FetchDescriptor<CrashMemo>()).map(\.id)
        #expect(Set(stored) == Set(result.acknowledged.keys))
        #expect(stored.count == result.acknowledged.count)
      }
    }
  }
#endif
