#if canImport(CLibPQ)
  import Foundation
  import Synchronization
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraSync

  import KuraSyncCore

  import KuraSyncServer

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  /// Replicas as separate processes (`kura-testhelper sync-replica`, each with its own store
  /// file) syncing through a real `kura sync serve` on a real PostgreSQL database; one is killed
  /// with SIGKILL after a save and started again.
  @Suite("Sync replica processes")
  struct SyncReplicaProcessTests {
    /// A replica process and the requests sent to it (SyncWorld.swift).
    private typealias Replica = SyncReplicaProcess

    @Test func replicaProcessesConvergeAndAKilledReplicaSendsItsSaveWhenStartedAgain() throws {
      let directory = TemporaryDirectory("sync-processes")
      let database = try PostgresCluster.shared().freshDatabaseURL()
      let token = try makeToken(space: "family")
      let tokens = directory.file("tokens")
      try "\(token.line)\n".write(to: tokens, atomically: true, encoding: .utf8)
      let server = try SyncTestServer(store: database, tokens: tokens, directory: directory)
      let storeA = directory.file("a.store")
      var a = try Replica(store: storeA, server: server.url, token: token, directory: directory)
      let b = try Replica(
        store: directory.file("b.store"), server: server.url, token: token, directory: directory)
      #expect(try a.ask("save 1 Kyoto 900") == "saved")
      #expect(try a.ask("sync") == "synced")
      #expect(try b.ask("sync") == "synced")
      #expect(try b.ask("trips") == "trips 1:Kyoto:900")
      // Offline edits of different properties of one trip, on both.
      #expect(try a.ask("save 1 Kyōto 900") == "saved")
      #expect(try b.ask("save 1 Kyoto 700") == "saved")
      for replica in [a, b, a] { #expect(try replica.ask("sync") == "synced") }
      #expect(try a.ask("trips") == "trips 1:Kyōto:700")
      #expect(try b.ask("trips") == "trips 1:Kyōto:700")
      // A saves and is killed before it syncs; started again, it still has the save to send.
      #expect(try a.ask("save 2 Nara 300") == "saved")
      a.process.send(SIGKILL)
      _ = a.process.waitForExit()
      a = try Replica(store: storeA, server: server.url, token: token, directory: directory)
      #expect(try a.ask("pending") == "pending 1")
      #expect(try a.ask("sync") == "synced")
      #expect(try a.ask("pending") == "pending 0")
      // B deletes Kyōto; A gets the delete.
      #expect(try b.ask("delete 1") == "deleted")
      #expect(try b.ask("sync") == "synced")
      #expect(try a.ask("sync") == "synced")
      #expect(try a.ask("trips") == "trips 2:Nara:300")
      #expect(try b.ask("trips") == "trips 2:Nara:300")
      let logged = try PostgresConnection(database).queryFirst(
        "SELECT count(*) FROM kura_sync_log WHERE space = 'family'"
      ) { $0.int64(at: 0) }
      #expect(logged == 5)
    }
  }
#endif
