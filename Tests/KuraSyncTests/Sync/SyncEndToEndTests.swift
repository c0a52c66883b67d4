#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraSync

  import KuraSyncCore

  import KuraSyncServer

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  /// Two replica stores (separate SQLite files, each with its sync engine) syncing through a
  /// real `kura sync serve` process on a real PostgreSQL database (SyncWorld.swift).
  @Suite("Sync end to end")
  struct SyncEndToEndTests {
    private static func trips(_ container: ModelContainer) throws -> [SyncTrip] {
      try SyncWorld.trips(container)
    }

    /// Runs `body` with replica `a` talking to the server and `b` through a relay, stopping
    /// both engines and the relay afterwards.
    private static func withRelayedReplica(
      name: String = #function,
      _ body: (
        _ world: SyncWorld, _ a: ModelContainer, _ syncA: SyncEngine, _ relay: SyncHTTPRelay,
        _ b: ModelContainer, _ syncB: SyncEngine
      ) async throws -> Void
    ) async throws {
      let world = try SyncWorld(name: name)
      let (a, syncA) = try world.replica("a")
      defer { syncA.stop() }
      let relay = try SyncHTTPRelay(to: world.server.url)
      defer { relay.stop() }
      let (b, syncB) = try world.replica("b", server: relay.url)
      defer { syncB.stop() }
      try await body(world, a, syncA, relay, b, syncB)
    }

    @Test func editsOnEachReplicaConvergeAndOfflineEditsOfDifferentPropertiesBothStay()
      async throws
    {
      let world = try SyncWorld()
      try await world.withTwoReplicas { (a, b) in
        let ((a, syncA), (b, syncB)) = (a, b)
        let kyoto = SyncTrip(id: UUID(), name: "Kyoto", budget: 900, rating: 0.1 + 0.2)
        let nara = SyncTrip(id: UUID(), name: "Nara", budget: 300, rating: -0.0)
        let contextA = ModelContext(a)
        try contextA.insert(kyoto)
        try contextA.insert(nara)
        try contextA.save()
        #expect(syncA.status.pending >= 0)
        try await syncA.syncNow()
        #expect(syncA.status.pending == 0)
        #expect(syncA.status.phase == .idle)
        try await syncB.syncNow()
        #expect(try Self.trips(b) == [kyoto, nara])
        #expect(try Self.trips(b)[1].rating.sign == .minus)  // -0.0 kept bit-exactly
        // B pulled, and has nothing to send back.
        #expect(syncB.status.pending == 0)
        #expect(try world.loggedSaves() == 1)
        // Offline: A renames Kyoto, B changes its budget; neither syncs in between.
        var renamed = kyoto
        renamed.name = "Kyōto"
        try contextA.insert(renamed)
        try contextA.save()
        let contextB = ModelContext(b)
        var cheaper = kyoto
        cheaper.budget = 700
        try contextB.insert(cheaper)
        try contextB.save()
        // B also deletes Nara.
        try contextB.delete(nara)
        try contextB.save()
        try await syncA.syncNow()
        try await syncB.syncNow()
        try await syncA.syncNow()
        let expected = [SyncTrip(id: kyoto.id, name: "Kyōto", budget: 700, rating: kyoto.rating)]
        #expect(try Self.trips(a) == expected)
        #expect(try Self.trips(b) == expected)
        #expect(try world.loggedSaves() == 4)
        // Nara inserted again (same id) after its delete lives everywhere.
        try contextA.insert(nara)
        try contextA.save()
        try await syncA.syncNow()
        try await syncB.syncNow()
        #expect(try Self.trips(b).map(\.name) == ["Kyōto", "Nara"])
        #expect(try Self.trips(a) == Self.trips(b))
        // Neither lost a value it had not sent: no conflicts.
        #expect(try syncA.conflicts().isEmpty)
        #expect(try syncB.conflicts().isEmpty)
      }
    }

    /// Pulled saves go through the store: the change feed and history see them, like a local
    /// save, and the saves are not sent back.
    @Test func pulledSavesReachTheChangeFeedAndAreNotSentBack() async throws {
      let world = try SyncWorld()
      try await world.withTwoReplicas { (a, b) in
        let ((a, syncA), (b, syncB)) = (a, b)
        let before = try b.currentHistoryToken()
        let trip = SyncTrip(id: UUID(), name: "Osaka", budget: 1, rating: 2)
        let contextA = ModelContext(a)
        try contextA.insert(trip)
        try contextA.save()
        try await syncA.syncNow()
        try await syncB.syncNow()
        let history = try b.history(since: before)
        #expect(history.map { $0.inserted(SyncTrip.self) } == [[trip.id]])
        try await syncB.syncNow()
        #expect(syncB.status.pending == 0)
        #expect(try world.loggedSaves() == 1)
      }
    }

    /// A replica that applied pulled saves sends nothing because of them: its own writes wake
    /// the engine only when they put something in the outbox (once, each page received was
    /// followed by one more pull, answered empty). Its next local save is sent as before.
    @Test func applyingPulledSavesStartsNoFurtherExchange() async throws {
      try await Self.withRelayedReplica { world, a, syncA, relay, b, syncB in
        try await syncB.syncNow()
        let kyoto = SyncTrip(id: UUID(), name: "Kyoto", budget: 900, rating: 1)
        let contextA = ModelContext(a)
        try contextA.insert(kyoto)
        try contextA.save()
        try await syncA.syncNow()
        try await syncB.syncNow()
        #expect(try Self.trips(b) == [kyoto])
        let pulls = relay.pulledAfter.count
        // Bounded (5 s) wait for a request that must not come; the one the bug sent came within
        // milliseconds of the page's apply.
        let extra = try await onThreadOfItsOwn { () -> Bool in
          for _ in 0..<50 {
            if relay.pulledAfter.count > pulls { return true }
            Thread.sleep(forTimeInterval: 0.1)
          }
          return false
        }
        #expect(!extra, "requests after the pulled page: \(relay.targets.suffix(3))")
        // A local save still starts an exchange by itself (no syncNow): A receives it.
        let nara = SyncTrip(id: UUID(), name: "Nara", budget: 300, rating: 2)
        let contextB = ModelContext(b)
        try contextB.insert(nara)
        try contextB.save()
        var sent = false
        for _ in 0..<600 where !sent {
          sent = try world.loggedSaves() == 2
          if !sent { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(sent)
        try await syncA.syncNow()
        #expect(Set(try Self.trips(a).map(\.id)) == [kyoto.id, nara.id])
      }
    }

    /// A push never goes on a kept-alive connection, so one that died as it was reused can't
    /// hold the push until its timeout. On Linux, curl sends a request again on a new
    /// connection when a reused one dies before the answer, rewinding the body first, and
    /// Foundation can't rewind an in-memory body: the push went out with its headers and no
    /// body, and waited 30 seconds (`kura sync soak` lost 30 s to it on most cut connections).
    /// The relay here cuts every connection on its second request; pulls are sent again by
    /// curl and go through.
    @Test func aPushNeverGoesOnAReusedConnectionSoOneThatDiedCantHoldIt() async throws {
      try await Self.withRelayedReplica { world, a, syncA, relay, b, syncB in
        // A pull leaves its connection open for the next request.
        try await syncB.syncNow()
        relay.cutReusedConnections()
        let context = ModelContext(b)
        var sent: [SyncTrip] = []
        for number in 0..<3 {
          let trip = SyncTrip(id: UUID(), name: "Trip \(number)", budget: number, rating: 1)
          try context.insert(trip)
          try context.save()
          try await syncB.syncNow()
          sent.append(trip)
          #expect(syncB.status.pending == 0)
        }
        let pushes = relay.requests.filter { $0.method == "POST" }
        #expect(pushes.count == 3)
        #expect(pushes.allSatisfy { $0.index == 0 && $0.forwarded }, "\(pushes)")
        // The relay did cut pulls on reused connections, and they were sent again.
        #expect(relay.requests.contains { $0.index > 0 && !$0.forwarded })
        #expect(try world.loggedSaves() == 3)
        try await syncA.syncNow()
        #expect(try Self.trips(a) == sent)
      }
    }

    /// With the server stopped, saves stay in the outbox and the status says offline; a server
    /// started again on the same port gets them, once.
    @Test func savesMadeWhileTheServerIsDownAreSentWhenItIsBack() async throws {
      let world = try SyncWorld()
      let (a, syncA) = try world.replica("a")
      defer { syncA.stop() }
      let port = try #require(world.server.url.port)
      world.server.process.send(SIGKILL)
      _ = world.server.process.waitForExit()
      let context = ModelContext(a)
      try context.insert(SyncTrip(id: UUID(), name: "Kobe", budget: 5, rating: 1))
      try context.save()
      await #expect(throws: SyncError.self) { try await syncA.syncNow() }
      #expect(syncA.status.phase == .offline)
      #expect(syncA.status.pending == 1)
      let again = try SyncTestServer(
        store: world.database, tokens: world.tokensFile, directory: world.directory, port: port)
      #expect(again.url.port == port)  // the same server again
      try await syncA.syncNow()
      #expect(syncA.status.pending == 0)
      #expect(syncA.status.phase == .idle)
      #expect(try world.loggedSaves() == 1)
      withExtendedLifetime(again) {}  // the server runs until here
    }

    /// A replica holding the `work` token syncs space `family`: refused, its save kept.
    @Test func aWrongSpaceTokenCantReadAndKeepsTheOutbox() async throws {
      let world = try SyncWorld()
      let (a, syncA) = try world.replica("a")
      defer { syncA.stop() }
      let contextA = ModelContext(a)
      try contextA.insert(SyncTrip(id: UUID(), name: "Secret", budget: 1, rating: 1))
      try contextA.save()
      try await syncA.syncNow()
      let (c, syncC) = try world.replica("c", token: world.work)
      defer { syncC.stop() }
      let context = ModelContext(c)
      try context.insert(SyncTrip(id: UUID(), name: "Mine", budget: 1, rating: 1))
      try context.save()
      do {
        try await syncC.syncNow()
        Issue.record("synced with another space's token")
      } catch let error as SyncError {
        #expect(error.code == .unauthorized)
        #expect(error.status == 403)
      }
      guard case .failing(let reason) = syncC.status.phase else {
        Issue.record("status \(syncC.status.phase)")
        return
      }
      #expect(reason.contains("does not grant space `family`"))
      #expect(syncC.status.pending == 1)
      #expect(try Self.trips(c).map(\.name) == ["Mine"])
      #expect(try world.loggedSaves() == 1)
    }
  }
#endif
