#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

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
    }
  }
#endif
