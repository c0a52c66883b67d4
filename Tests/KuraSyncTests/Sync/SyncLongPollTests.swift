#if canImport(CLibPQ)
  import Foundation
  import Glibc
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

  /// Pulls that wait on the server for the space's next push (long polls), woken through
  /// PostgreSQL `LISTEN/NOTIFY`: real `kura sync serve` processes on one real database.
  @Suite("Sync long poll")
  struct SyncLongPollTests {
    private static let pusher = UUID(uuid: (9, 9, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    private static let puller = UUID(uuid: (7, 7, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))

    private static func pushBody(_ name: String) throws -> Data {
      let stamp = SyncStamp(
        wall: UInt64(Date().timeIntervalSince1970 * 1000), counter: 0, replica: pusher)
      let save = SyncSave(
        sequence: 1,
        changes: [
          .set("Trip", id: "t1", incarnation: 1, property: "name", to: .text(name), stamp: stamp)
        ])
      return try JSONEncoder().encode(
        SyncPushRequest(replica: SyncStamp.hex(pusher), saves: [save]))
    }

    /// Pushes one save and blocks until it is answered; returns the status.
    private static func push(_ name: String, through server: URL, token: SyncToken) throws
      -> Int
    {
      try PendingRequest(
        "POST", server.appendingPathComponent("v1/spaces/family/push"), token: token.token,
        body: pushBody(name)
      ).wait(timeout: 60).status
    }

    /// Starts a pull that may wait `seconds` for a push.
    private static func waitingPull(
      from server: URL, token: SyncToken, seconds: Int, done: DispatchSemaphore? = nil
    ) throws -> PendingRequest {
      let query = "after=0&replica=\(SyncStamp.hex(puller))&settled=0&wait=\(seconds)"
      guard let url = URL(string: "\(server)/v1/spaces/family/changes?\(query)") else {
        throw URLError(.badURL)
      }
      return PendingRequest("GET", url, token: token.token, done: done)
    }

    /// Blocks (checking every 10 ms, at most ~60 s) until the server recorded the puller's
    /// pull: the pull is then past its bookkeeping, reading the log or parked (a push before
    /// it parks is seen all the same: the park finds the space's mark moved).
    private static func pullArrived(_ database: String) throws -> Bool {
      let connection = try PostgresConnection(database)
      for _ in 0..<6_000 {
        let count = try connection.queryFirst(
          "SELECT count(*) FROM kura_sync_replicas WHERE replica = ?",
          [.text(SyncStamp.hex(puller))]
        ) { $0.int64(at: 0) }
        if count == 1 { return true }
        usleep(10_000)
      }
      return false
    }

    // The pulls wait 20 s, and the push must come within them: each test's steps run on a
    // thread of its own, as in a client, not on the cooperative threads, which other suites'
    // blocking work (child processes, clusters starting) held for over 20 s in full runs.

    @Test func aPullWaitingOnOneServerIsAnsweredByAPushThroughAnother() async throws {
      let world = try SyncSpaceWorld("sync-long-poll-two")
      let second = try SyncTestServer(
        store: world.database, tokens: world.tokensFile, directory: world.directory)
      let (first, token, database) = (world.server.url, world.token, world.database)
      let (arrived, pushed, answer) = try await onThreadOfItsOwn {
        // 20 s: an answer without the push would come empty, after the whole wait.
        let pull = try Self.waitingPull(from: first, token: token, seconds: 20)
        let arrived = try Self.pullArrived(database)
        let pushed = try Self.push("Kyoto", through: second.url, token: token)
        return (arrived, pushed, try pull.wait(timeout: 60))
      }
      #expect(arrived)
      #expect(pushed == 200)
      #expect(answer.status == 200)
      let page = try JSONDecoder().decode(SyncPullResponse.self, from: answer.body)
      #expect(page.longPoll == true)
      #expect(page.head == 1)
      #expect(page.saves.map(\.position) == [1])
      #expect(page.saves.first?.changes.count == 1)
    }

    @Test func aPullBeyondTheServersWaitingLimitIsAnswered503AtOnce() async throws {
      let world = try SyncSpaceWorld(
        "sync-long-poll-limit", serverArguments: ["--waiting-pulls", "1"])
      let (url, token) = (world.server.url, world.token)
      // Two waiting pulls at once: whichever the server parks first holds its one place, the
      // other is refused at once (it would otherwise wait 20 s, and then be empty).
      let (refused, pushed, answer) = try await onThreadOfItsOwn {
        let done = DispatchSemaphore(value: 0)
        let pulls = try (0..<2).map { _ in
          try Self.waitingPull(from: url, token: token, seconds: 20, done: done)
        }
        guard done.wait(timeout: .now() + 60) == .success else { throw URLError(.timedOut) }
        let (first, other) = pulls[0].isAnswered ? (pulls[0], pulls[1]) : (pulls[1], pulls[0])
        let refused = try first.wait(timeout: 0)
        let pushed = try Self.push("Kyoto", through: url, token: token)
        return (refused, pushed, try other.wait(timeout: 60))
      }
      #expect(refused.status == 503)
      #expect(errorCode(refused.body) == "busy")
      #expect(pushed == 200)
      let page = try JSONDecoder().decode(SyncPullResponse.self, from: answer.body)
      #expect(answer.status == 200)
      #expect(page.saves.map(\.position) == [1])
    }

    @Test func aWaitingPullWithNoPushIsAnsweredEmptyAtItsDeadline() async throws {
      let world = try SyncSpaceWorld("sync-long-poll-deadline")
      let (url, token) = (world.server.url, world.token)
      let answer = try await onThreadOfItsOwn {
        try Self.waitingPull(from: url, token: token, seconds: 1).wait(timeout: 60)
      }
      #expect(answer.status == 200)
      let page = try JSONDecoder().decode(SyncPullResponse.self, from: answer.body)
      #expect(page.longPoll == true)
      #expect(page.saves.isEmpty)
      // A bad wait is refused.
      let badWait = try #require(
        URL(string: "\(world.server.url)/v1/spaces/family/changes?after=0&wait=-1"))
      let refused = try await send("GET", badWait, token: world.token.token)
      #expect(refused.status == 400)
    }

    @Test func aSaveOnOneReplicaReachesAnotherReplicasLiveQueryWithoutAPoll() async throws {
      let world = try SyncSpaceWorld("sync-long-poll-engines")
      func replica(_ name: String) throws -> (ModelContainer, SyncEngine) {
        var configuration = ModelConfiguration.url(world.directory.file("\(name).store"))
        var settings = SyncSettings(
          server: world.server.url, space: "family", token: world.token.token)
        // No poll in the test's time: only the waiting pull can bring the save.
        settings.pollInterval = .seconds(3600)
        configuration.sync = settings
        let container = try ModelContainer(for: SyncTrip.self, configurations: configuration)
        return (container, try SyncEngine(container: container))
      }
      let (a, syncA) = try replica("a")
      defer { syncA.stop() }
      let (b, syncB) = try replica("b")
      defer { syncB.stop() }
      try await syncA.syncNow()
      try await syncB.syncNow()
      let live = try LiveQuery(FetchDescriptor<SyncTrip>(), in: b)
      let changes = live.changes
      let id = UUID()
      // No syncNow: A's engine pushes when the save lands; B hears of it from the server.
      let context = ModelContext(a)
      try context.insert(SyncTrip(id: id, name: "Kyoto", budget: 3, rating: 4.5))
      try context.save()
      let seen = Mutex(false)
      try await withinSeconds(60) {
        for await trips in changes where trips.contains(where: { $0.id == id }) {
          seen.withLock { $0 = true }
          break
        }
      }
      #expect(seen.withLock { $0 })
      #expect(try SyncWorld.trips(b).map(\.name) == ["Kyoto"])
    }
  }
#endif
