#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  import KuraStoreCLI

  /// A model for the failover test.
  private struct FailoverMemo: PersistentModel, Equatable {
    var id: Int
    var text: String
  }

  extension PostgreSQLTests {
    /// A primary and a streaming standby of its own (two throwaway clusters on this machine,
    /// not the shared one): a multi-host URL follows the promotion.
    @Suite("PostgreSQL failover")
    struct PostgresFailoverTests {
      /// With a synchronous standby, the primary crashes and the standby is promoted: the same
      /// container (not reopened) saves on through the multi-host URL, and every save it saw
      /// acknowledged before the crash is on the new primary.
      @Test func writersContinueOnAPromotedSynchronousStandbyAndLoseNothingAcknowledged()
        throws
      {
        let primary = try PostgresCluster.start(fsync: false)
        let standby = try primary.startStandby(synchronous: true)
        try primary.runAsSuperuser("CREATE DATABASE kura_failover")
        let connectionString =
          "host=\(primary.folder),\(standby.folder) port=5432,5432 dbname=kura_failover"
          + " user=postgres target_session_attrs=read-write connect_timeout=10"
        let container = try ModelContainer(
          for: FailoverMemo.self,
          configurations: .postgres(connectionString: connectionString))
        let context = ModelContext(container)
        var acknowledged: [Int] = []
        for id in 1...20 {
          try context.insert(FailoverMemo(id: id, text: "before \(id)"))
          try context.save()
          acknowledged.append(id)
        }
        #expect(try context.fetchCount(FetchDescriptor<FailoverMemo>()) == 20)
        try primary.crash()
        try standby.promote()
        for id in 21...30 {
          try context.insert(FailoverMemo(id: id, text: "after \(id)"))
          try context.save()
          acknowledged.append(id)
        }
        let stored = try ModelContext(container).fetch(
          FetchDescriptor<FailoverMemo>(sortBy: [SortDescriptor(\.id)])
        ).map(\.id)
        #expect(stored == acknowledged)
        // Read on the promoted standby alone: the same rows, and it takes writes.
        let direct = try PostgresConnection(
          standby.url(database: "kura_failover"))
        #expect(
          try direct.queryFirst("SELECT pg_is_in_recovery()") { $0.string(at: 0) } == "f")
        #expect(try container.history(since: .start).count == 30)
      }

      /// An asynchronous standby stops receiving while the primary commits more saves, which a
      /// feed reader (`changeSets()` of another container) receives; the primary crashes and the
      /// standby, behind, is promoted. The saves made after the failover take tokens none seen
      /// before has, above every token the reader passed, and the reader, living through it,
      /// receives every one of them. (Before history branches, the new primary's saves took the
      /// tokens of the lost ones, below the reader's position, and the reader skipped them.)
      @Test func afterFailoverToALaggingStandbyTokensAreNewAndTheFeedSkipsNoSave() async throws {
        let primary = try PostgresCluster.start(fsync: false)
        let standby = try primary.startStandby(synchronous: false)
        try primary.runAsSuperuser("CREATE DATABASE kura_failover")
        try Self.saveMemos(1...5, url: primary.url(database: "kura_failover"))
        // Replayed on the standby, then the standby stops: later commits don't reach it.
        try Self.waitForHistory(count: 5, on: standby, database: "kura_failover")
        try standby.crash()
        try await Self.checkSavesAfterTakeOver(
          primary: primary, successor: standby.folder, database: "kura_failover"
        ) {
          try standby.restart()
          try standby.promote()
        }
      }

      /// A base backup is taken, the primary commits more saves (a feed reader receives them)
      /// and crashes, and the backup is restored with `recovery.signal` (a new timeline): the
      /// restored server's saves take new tokens, above the reader's position, and reach it.
      @Test func afterARestoreFromABaseBackupTokensAreNewAndTheFeedSkipsNoSave() async throws {
        let primary = try PostgresCluster.start(fsync: false)
        try primary.runAsSuperuser("CREATE DATABASE kura_restore")
        try Self.saveMemos(1...5, url: primary.url(database: "kura_restore"))
        let backup = try primary.takeBaseBackup()
        try await Self.checkSavesAfterTakeOver(
          primary: primary, successor: backup.folder, database: "kura_restore"
        ) {
          let restored = try backup.startRecovered()
          let timeline = try PostgresConnection(restored.url(database: "kura_restore"))
            .queryFirst("SELECT timeline_id FROM pg_control_checkpoint()") { $0.int64(at: 0) }
          #expect(timeline == 2)
        }
      }

      /// A restored backup (timeline 2) saves — its first save records its branch — while a
      /// feed reader follows, then crashes, and a backup of it taken before that first save is
      /// restored (timeline 3), without the branch's row: the new branch's tokens are still
      /// above every token the lost one handed out, and reach the reader.
      @Test func aBranchWhoseRowWasLostStillLiesBelowTheNextOne() async throws {
        let primary = try PostgresCluster.start(fsync: false)
        try primary.runAsSuperuser("CREATE DATABASE kura_twice")
        try Self.saveMemos(1...5, url: primary.url(database: "kura_twice"))
        let first = try primary.takeBaseBackup()
        try primary.crash()
        let restored = try first.startRecovered()
        let second = try restored.takeBaseBackup()
        try await Self.checkSavesAfterTakeOver(
          primary: restored, successor: second.folder, database: "kura_twice"
        ) {
          let again = try second.startRecovered()
          let timeline = try PostgresConnection(again.url(database: "kura_twice"))
            .queryFirst("SELECT timeline_id FROM pg_control_checkpoint()") { $0.int64(at: 0) }
          #expect(timeline == 3)
        }
      }

      /// Saves memos `ids` through a container of their own on `url`.
      private static func saveMemos(_ ids: ClosedRange<Int>, url: String) throws {
        let context = ModelContext(
          try ModelContainer(
            for: FailoverMemo.self, configurations: .postgres(connectionString: url)))
        for id in ids {
          try context.insert(FailoverMemo(id: id, text: "before \(id)"))
          try context.save()
        }
      }

      /// Waits up to a minute until `database` on `cluster` holds `count` history rows.
      private static func waitForHistory(count: Int, on cluster: PostgresCluster, database: String)
        throws
      {
        var connection: PostgresConnection?
        for _ in 0..<600 {
          // The database itself may not have reached the standby yet.
          if connection == nil {
            connection = try? PostgresConnection(cluster.url(database: database))
          }
          let rows = try? connection?.queryFirst("SELECT count(*) FROM kura_history") {
            $0.int64(at: 0)
          }
          if rows == Int64(count) { return }
          usleep(100_000)
        }
        Issue.record("\(database) on the standby did not reach \(count) history rows")
      }

      /// Through a multi-host URL (`primary`, then the server in `successor`): a writer saves
      /// memos 6–15 while another container's feed receives them; the primary crashes,
      /// `takeOver` brings up the successor, and the writer saves memos 16–25 there. Every
      /// one of those takes a token no save before the crash took, above the feed's position,
      /// in increasing order, and the feed and `history(since:)` deliver all ten.
      private static func checkSavesAfterTakeOver(
        primary: PostgresCluster, successor: String, database: String,
        takeOver: () throws -> Void
      ) async throws {
        let connectionString =
          "host=\(primary.folder),\(successor) port=5432,5432 dbname=\(database)"
          + " user=postgres target_session_attrs=read-write connect_timeout=10"
        let configuration = try ModelConfiguration.postgres(connectionString: connectionString)
        let writer = try ModelContainer(for: FailoverMemo.self, configurations: configuration)
        let reader = try ModelContainer(for: FailoverMemo.self, configurations: configuration)
        let feed = Inbox(try reader.changeSets())
        let context = ModelContext(writer)
        var tokensBefore = Set(try writer.history(since: .start).map(\.token))
        for id in 6...15 {
          try context.insert(FailoverMemo(id: id, text: "lost \(id)"))
          tokensBefore.insert(try context.save().token)
        }
        var position = HistoryToken.start
        for id in 6...15 {
          let set = try #require(await feed.next(within: .seconds(60)))
          #expect(set.changes["FailoverMemo"]?.inserted == ["\(id)"])
          tokensBefore.insert(set.token)
          position = set.token
        }
        try primary.crash()
        try takeOver()
        var tokensAfter: [HistoryToken] = []
        for id in 16...25 {
          try context.insert(FailoverMemo(id: id, text: "after \(id)"))
          tokensAfter.append(try context.save().token)
        }
        #expect(tokensBefore.isDisjoint(with: tokensAfter), "\(tokensAfter)")
        #expect(tokensAfter.allSatisfy { $0 > position }, "\(tokensAfter), \(position)")
        #expect(tokensAfter == tokensAfter.sorted())
        var delivered: [String] = []
        for _ in 16...25 {
          guard let set = await feed.next(within: .seconds(60)) else { break }
          delivered += set.changes["FailoverMemo"]?.inserted ?? []
        }
        #expect(delivered == (16...25).map(String.init))
        let history = try writer.history(since: position)
        #expect(history.map(\.token) == tokensAfter)
        // The saves the successor never received are gone (asynchronous replication).
        let stored = try ModelContext(writer).fetch(
          FetchDescriptor<FailoverMemo>(sortBy: [SortDescriptor(\.id)])
        ).map(\.id)
        #expect(stored == Array(1...5) + Array(16...25))
      }
    }
  }
#endif
