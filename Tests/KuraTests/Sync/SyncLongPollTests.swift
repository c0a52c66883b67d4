#if canImport(CLibPQ)
  import Foundation
  import Glibc
  import Synchronization
  import Testing

  @testable import Kura

  /// Pulls that wait on the server for the space's next push (long polls), woken through
  /// PostgreSQL `LISTEN/NOTIFY`: real `kura sync serve` processes on one real database.
  @Suite("Sync long poll")
  struct SyncLongPollTests {
    private static let pusher = UUID(uuid: (9, 9, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    private static let puller = UUID(uuid: (7, 7, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))

    private static func push(_ name: String, through server: URL, token: SyncToken) async throws
      -> Int
    {
      let stamp = SyncStamp(
        wall: UInt64(Date().timeIntervalSince1970 * 1000), counter: 0, replica: pusher)
      let save = SyncSave(
        sequence: 1,
        changes: [
          .set("Trip", id: "t1", incarnation: 1, property: "name", to: .text(name), stamp: stamp)
        ])
      let body = try JSONEncoder().encode(
        SyncPushRequest(replica: SyncStamp.hex(pusher), saves: [save]))
      return try await send(
        "POST", server.appendingPathComponent("v1/spaces/family/push"), token: token.token,
        body: body
      ).status
    }

    private static func waitingPull(from server: URL, token: SyncToken, seconds: Int)
      async throws -> (status: Int, body: Data)
    {
      let query = "after=0&replica=\(SyncStamp.hex(puller))&settled=0&wait=\(seconds)"
      let url = try #require(URL(string: "\(server)/v1/spaces/family/changes?\(query)"))
      return try await send("GET", url, token: token.token)
    }

    /// Waits (checking every 10 ms, at most ~60 s) until the server recorded the puller's
    /// pull: the pull is then past its bookkeeping, reading the log or parked. It sleeps
    /// between checks instead of blocking its thread: the pull it waits for needs one of the
    /// few cooperative threads (other suites run alongside) to be sent at all.
    private static func pullArrived(_ database: String) async throws -> Bool {
      let connection = try PostgresConnection(database)
      for _ in 0..<6_000 {
        let count = try connection.queryFirst(
          "SELECT count(*) FROM kura_sync_replicas WHERE replica = ?",
          [.text(SyncStamp.hex(puller))]
        ) { $0.int64(at: 0) }
        if count == 1 { return true }
        try await Task.sleep(for: .milliseconds(10))
      }
      return false
    }

    @Test func aPullWaitingOnOneServerIsAnsweredByAPushThroughAnother() async throws {
      let world = try SyncSpaceWorld("sync-long-poll-two")
      let second = try SyncTestServer(
        store: world.database, tokens: world.tokensFile, directory: world.directory)
      // 20 s: an answer without the push would come empty, after the whole wait.
      async let pulled = Self.waitingPull(from: world.server.url, token: world.token, seconds: 20)
      #expect(try await Self.pullArrived(world.database))
      #expect(try await Self.push("Kyoto", through: second.url, token: world.token) == 200)
      let answer = try await pulled
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
      let url = world.server.url
      let token = world.token
      // Two waiting pulls at once: whichever the server parks first holds its one place, the
      // other is refused at once (it would otherwise wait 20 s, and then be empty).
      let answers = try await withThrowingTaskGroup(of: (status: Int, body: Data).self) { group in
        for _ in 0..<2 {
          group.addTask { try await Self.waitingPull(from: url, token: token, seconds: 20) }
        }
        var answers: [(status: Int, body: Data)] = []
        for try await answer in group {
          answers.append(answer)
          if answers.count == 1 {
            #expect(answer.status == 503)
            #expect(errorCode(answer.body) == "busy")
            #expect(try await Self.push("Kyoto", through: url, token: token) == 200)
          }
        }
        return answers
      }
      let page = try JSONDecoder().decode(SyncPullResponse.self, from: answers[1].body)
      #expect(answers[1].status == 200)
      #expect(page.saves.map(\.position) == [1])
    }

    @Test func aWaitingPullWithNoPushIsAnsweredEmptyAtItsDeadline() async throws {
      let world = try SyncSpaceWorld("sync-long-poll-deadline")
      let answer = try await Self.waitingPull(
        from: world.server.url, token: world.token, seconds: 1)
      #expect(answer.status == 200)
      let page = try JSONDecoder().decode(SyncPullResponse.self, from: answer.body)
      #expect(page.longPoll == true)
      #expect(page.saves.isEmpty)
      // A bad wait is refused.
      let url = try #require(
        URL(string: "\(world.server.url)/v1/spaces/family/changes?after=0&wait=-1"))
      let refused = try await send("GET", url, token: world.token.token)
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
