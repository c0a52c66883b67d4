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

      /// A store made before commit markers (no `kura_commits`) opens, gets the table with the
      /// first save of a container, and keeps its history; each container has one row, whose
      /// commit id changes with every commit.
      @Test func aStoreMadeBeforeCommitMarkersGetsThemAndKeepsItsHistory() throws {
        let store = try freshStore(.postgres)
        let connection = try PostgresConnection(store.argument)
        do {
          let context = ModelContext(
            try ModelContainer(for: CrashMemo.self, configurations: store.configuration))
          try context.insert(CrashMemo(id: 1, text: "one"))
          try context.save()
        }
        // The shape the previous version made.
        try connection.execute("DROP TABLE kura_commits")
        let container = try ModelContainer(for: CrashMemo.self, configurations: store.configuration)
        let context = ModelContext(container)
        try context.insert(CrashMemo(id: 2, text: "two"))
        try context.save()
        let first = try connection.query("SELECT writer, commit_id FROM kura_commits") {
          [$0.string(at: 0), $0.string(at: 1)]
        }
        #expect(first.count == 1)
        try context.insert(CrashMemo(id: 3, text: "three"))
        try context.save()
        let second = try connection.query("SELECT writer, commit_id FROM kura_commits") {
          [$0.string(at: 0), $0.string(at: 1)]
        }
        #expect(second.count == 1)
        #expect(second.first?.first == first.first?.first)
        #expect(second.first?.last != first.first?.last)
        let history = try container.history(since: .start)
        #expect(history.map { $0.changes["CrashMemo"]?.inserted } == [["1"], ["2"], ["3"]])
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
