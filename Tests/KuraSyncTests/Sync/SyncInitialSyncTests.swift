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

  /// The model of the initial-sync tests: the shape and name of the `kura-testhelper
  /// sync-replica` processes' model, so both sync one space.
  private struct SyncedTrip: PersistentModel, Equatable {
    var id: Int
    var name: String
    var budget: Int
  }

  /// A new replica joining a space of 20,000 rows: its initial sync comes in pages, resumes
  /// after a SIGKILL from the last page it kept, and reaches its readers in one step.
  @Suite("Sync initial sync")
  struct SyncInitialSyncTests {
    static let rows = 20_000

    /// Fills the space with `rows` trips from a writer replica, 500 to a save (one push each).
    private static func fill(_ world: SyncSpaceWorld) async throws -> [SyncedTrip] {
      let (writer, sync) = try world.replica("writer", for: SyncedTrip.self)
      defer { sync.stop() }
      let context = ModelContext(writer)
      var trips: [SyncedTrip] = []
      for start in stride(from: 0, to: rows, by: 500) {
        for id in start..<(start + 500) {
          let trip = SyncedTrip(id: id, name: "Trip \(id)", budget: id * 7 % 1000)
          try context.insert(trip)
          trips.append(trip)
        }
        try context.save()
        try await sync.syncNow()
      }
      return trips
    }

    private static func trips(_ container: ModelContainer) throws -> [SyncedTrip] {
      try ModelContext(container).fetch(FetchDescriptor<SyncedTrip>(sortBy: [SortDescriptor(\.id)]))
    }

    @Test func aNewReplicasReadersSeeNoneOfTheInitialSyncThenAllOfIt() async throws {
      let world = try SyncSpaceWorld("sync-initial-atomic")
      let trips = try await Self.fill(world)
      let reader = try world.container("reader", for: SyncedTrip.self)
      // Watched before its engine starts: the lossless feed and a live query.
      let feed = try reader.changeSets()
      let live = try LiveQuery(FetchDescriptor<SyncedTrip>(), in: reader)
      let counts = Mutex<[Int]>([])
      let changeSets = Mutex<[Int]>([])
      let liveChanges = live.changes
      let started = ContinuousClock.now
      let sync = try SyncEngine(container: reader)
      defer { sync.stop() }
      try await sync.syncNow()
      let elapsed = ContinuousClock.now - started
      try await withinSeconds(60) {
        for try await changeSet in feed {
          let inserted = changeSet.changes["SyncedTrip"]?.inserted.count ?? 0
          let total = changeSets.withLock { sets in
            sets.append(inserted)
            return sets.reduce(0, +)
          }
          if total >= Self.rows { break }
        }
      }
      try await withinSeconds(60) {
        for await models in liveChanges {
          counts.withLock { $0.append(models.count) }
          if models.count >= Self.rows { break }
        }
      }
      // One change set with every row, and a live query that went from none to all.
      #expect(changeSets.withLock { $0 } == [Self.rows])
      #expect(counts.withLock { $0.allSatisfy { $0 == 0 || $0 == Self.rows } })
      #expect(counts.withLock { $0.last } == Self.rows)
      #expect(try Self.trips(reader) == trips)
      // Nothing staged is left behind.
      let staged = try reader.pool.read { try SyncInitialSync.stagedPages($0) }
      #expect(staged == 0)
      // A figure for people (not checked: timing belongs in kura-bench).
      let seconds =
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
      print("initial sync of \(Self.rows) rows: \(Int(Double(Self.rows) / seconds)) rows/s")
    }

    @Test func aReplicaKilledDuringItsInitialSyncResumesFromTheLastPageItKept() async throws {
      let world = try SyncSpaceWorld("sync-initial-kill")
      let trips = try await Self.fill(world)
      let store = world.directory.file("joiner.store")
      let (server, token, directory) = (world.server.url, world.token, world.directory)
      // The waits below (for the relay, the process's exit, its answers: minutes on a loaded
      // machine) block a thread of their own, never one of the cooperative threads that the
      // other suites' tests run on.
      let firstRun = try await onThreadOfItsOwn { () throws -> [Int64]? in
        // The joiner's pulls go through a relay that holds the third: two pages are kept then.
        let relay = try SyncHTTPRelay(to: server)
        defer { relay.stop() }
        relay.holdPulls(from: 3)
        let joiner = try SyncReplicaProcess(
          store: store, server: relay.url, token: token, directory: directory)
        guard relay.waitUntilHolding(timeout: 120) else { return nil }
        joiner.process.send(SIGKILL)
        _ = joiner.process.waitForExit()
        return relay.pulledAfter
      }
      let pulledFirst = try #require(firstRun, "the joiner's third pull never came")
      #expect(pulledFirst.count == 2)
      #expect(pulledFirst.first == 0)
      // What the killed replica kept: two staged pages, and none of them in its tables.
      let (stagedPages, stagedThrough, rowsBefore) = try Self.inspect(store)
      #expect(stagedPages == 2)
      let kept = try #require(stagedThrough)
      #expect(kept > 0)
      #expect(rowsBefore == 0)
      // Started again (through a relay that holds nothing), it asks for the page after the
      // last one it kept, never for the first again, and ends with the space's rows.
      let (synced, secondRun, held) = try await onThreadOfItsOwn {
        let relay = try SyncHTTPRelay(to: server)
        defer { relay.stop() }
        let joiner = try SyncReplicaProcess(
          store: store, server: relay.url, token: token, directory: directory)
        let synced = try joiner.ask("sync")
        let secondRun = relay.pulledAfter
        return (synced, secondRun, try joiner.ask("trips"))
      }
      #expect(synced == "synced")
      #expect(secondRun.first == kept)
      #expect(secondRun.allSatisfy { $0 >= kept })
      let expected =
        "trips "
        + trips.map { "\($0.id):\($0.name):\($0.budget)" }.joined(
          separator: ",")
      #expect(held == expected)
      let (stagedAfter, _, rowsAfter) = try Self.inspect(store)
      #expect(stagedAfter == 0)
      #expect(rowsAfter == Self.rows)
    }

    /// The staged pages, how far the staging got and the rows of the trips table of a replica's
    /// store file (read directly, read-only).
    private static func inspect(_ store: URL) throws -> (Int64, Int64?, Int64) {
      let connection = try Connection(path: store.path, mode: .readOnly)
      let pages =
        try connection.queryFirst("SELECT count(*) FROM kura_sync_staging") { $0.int64(at: 0) }
        ?? -1
      let through = try connection.queryFirst(
        "SELECT value FROM kura_sync_state WHERE key = 'stagedThrough'"
      ) { Int64($0.string(at: 0)) }
      let rows =
        try connection.queryFirst("SELECT count(*) FROM \"SyncedTrip\"") { $0.int64(at: 0) }
        ?? -1
      return (pages, through ?? nil, rows)
    }
  }
#endif
