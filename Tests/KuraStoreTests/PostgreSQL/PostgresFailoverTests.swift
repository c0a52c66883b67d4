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
    }
  }
#endif
