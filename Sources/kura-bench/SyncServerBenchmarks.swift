#if canImport(CLibPQ)
  import Dispatch
  import Foundation
  import Kura
  import KuraPostgresCluster
  import KuraSyncServer
  import Synchronization

  /// The sync suite's rows for the initial sync (`--sync-rows`, 100,000 by default).
  nonisolated(unsafe) var syncBenchmarkRows = 100_000

  /// A sync server in this process (the `kura sync serve` service and its libmicrohttpd
  /// transport) on a fresh database of a throwaway cluster with fsync on, with a space (and
  /// its token) per workload, so one workload's replicas don't pull another's saves.
  final class SyncBenchmarkServer {
    static let spaces = ["initial", "latency", "sustained", "flood", "quiet"]
    let cluster: PostgresCluster
    let server: SyncHTTPServer
    let url: URL
    let tokens: [String: SyncToken]
    let database: String
    let directory: URL

    init(_ name: String) throws {
      directory = benchmarkDirectory("sync-\(name)")
      cluster = try PostgresCluster.start(fsync: true)
      database = try cluster.freshDatabaseURL(name)
      var tokens: [String: SyncToken] = [:]
      for space in Self.spaces { tokens[space] = try SyncToken(space: space, expires: nil) }
      self.tokens = tokens
      let file = directory.appendingPathComponent("tokens")
      try tokens.values.map { $0.line + "\n" }.joined().write(
        to: file, atomically: true, encoding: .utf8)
      let tokensFile = file
      let service = try SyncService(store: PostgresLocation(database), tokens: tokensFile)
      server = try SyncHTTPServer(service: service, host: "127.0.0.1", port: 0, threads: 4)
      url = URL(string: "http://127.0.0.1:\(server.port)") ?? URL(fileURLWithPath: "/")
    }

    /// A replica of `space`: a store file of its own, with sync settings and its engine
    /// (polling every `pollInterval`).
    func replica(_ name: String, space: String, pollInterval: Duration = .seconds(3600)) throws
      -> (ModelContainer, SyncEngine)
    {
      var configuration = ModelConfiguration.url(directory.appendingPathComponent("\(name).store"))
      var settings = SyncSettings(
        server: url, space: space, token: tokens[space]?.token ?? "")
      settings.pollInterval = pollInterval
      configuration.sync = settings
      let container = try ModelContainer(for: SyncBenchTrip.self, configurations: configuration)
      return (container, try SyncEngine(container: container))
    }

    /// The saves in the server's log of `space`.
    func loggedSaves(_ space: String) throws -> Int64 {
      try PostgresConnection(database).queryFirst(
        "SELECT count(*) FROM kura_sync_log WHERE space = ?", [.text(space)]
      ) { $0.int64(at: 0) } ?? 0
    }

    deinit { server.stop() }
  }

  /// Waits for an async call from synchronous code.
  func waitFor(_ body: @escaping @Sendable () async throws -> Void) throws {
    let failure = Mutex<(any Error)?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
      do { try await body() } catch { failure.withLock { $0 = error } }
      done.signal()
    }
    done.wait()
    if let error = failure.withLock({ $0 }) { throw error }
  }

  func runSyncServerBenchmarks() throws {
    let bench = try SyncBenchmarkServer("bench")
    print("  server in this process on \(bench.url.absoluteString), PostgreSQL fsync on")
    fflush(nil)
    try runInitialSyncBenchmark(bench)
    try runSyncLatencyBenchmark(bench)
    try runSustainedSyncBenchmark(bench)
    #if canImport(Glibc)
      try runSyncFairnessBenchmark(bench)
      try runSyncDrippingBenchmark(bench)
    #endif
  }

  /// Rows saved on one replica (10 per save), pushed, then pulled by a new replica: the pull
  /// is the initial sync.
  func runInitialSyncBenchmark(_ bench: SyncBenchmarkServer) throws {
    let rows = syncBenchmarkRows
    let clock = ContinuousClock()
    let (seeder, seederSync) = try bench.replica("seeder", space: "initial")
    defer { seederSync.stop() }
    let context = ModelContext(seeder)
    let saving = try clock.measure {
      for start in stride(from: 0, to: rows, by: 10) {
        for trip in makeSyncTrips(min(10, rows - start), from: start) { try context.insert(trip) }
        try context.save()
      }
    }
    let pushing = try clock.measure { try waitFor { try await seederSync.syncNow() } }
    // From the open: a new engine starts exchanging at once.
    let pullStart = clock.now
    let (fresh, freshSync) = try bench.replica("fresh", space: "initial")
    defer { freshSync.stop() }
    try waitFor { try await freshSync.syncNow() }
    let pulling = clock.now - pullStart
    let pulled = try ModelContext(fresh).fetchCount(FetchDescriptor<SyncBenchTrip>())
    guard pulled == rows else {
      throw SyncBenchmarkError(description: "the initial sync brought \(pulled) of \(rows) rows")
    }
    func rate(_ duration: Duration) -> String {
      String(format: "%.0f rows/s", Double(rows) / max(seconds(duration), 1e-9))
    }
    let anchor = 20_000.0
    let pullRate = Double(rows) / max(seconds(pulling), 1e-9)
    print(
      "initial sync of \(rows) rows (\(rows / 10) saves)".padding(
        toLength: 44, withPad: " ", startingAt: 0)
        + " \(rate(pulling)) (\(milliseconds(pulling)))  anchor ≥ 20,000 rows/s: "
        + (pullRate >= anchor ? "met" : "MISSED"))
    fflush(nil)
    print(
      "  the same rows saved locally with sync on: \(rate(saving)); pushed: \(rate(pushing))")
    if outputsJSON {
      emitJSON([
        "workload": .string("initial sync"), "rows": .integer(rows),
        "rows_per_second": .number(pullRate), "anchor": .number(anchor),
        "push_rows_per_second": .number(Double(rows) / max(seconds(pushing), 1e-9)),
      ])
    }
  }

  /// One save on replica A until replica B's live query shows it, with nothing but the
  /// engines at work: A's engine pushes when the save lands, the server's NOTIFY wakes B's
  /// waiting pull (SyncSettings.waitForChanges), B applies it and its live query updates.
  func runSyncLatencyBenchmark(_ bench: SyncBenchmarkServer) throws {
    let (a, syncA) = try bench.replica("latency-a", space: "latency")
    let (b, syncB) = try bench.replica("latency-b", space: "latency")
    defer {
      syncA.stop()
      syncB.stop()
    }
    try waitFor { try await syncB.syncNow() }
    let query = try LiveQuery(
      FetchDescriptor<SyncBenchTrip>(predicate: #Predicate { $0.budget == 7_777_777 }), in: b)
    let expected = Mutex(-1)
    let seen = DispatchSemaphore(value: 0)
    let watcher = Task.detached {
      for await trips in query.changes {
        let wanted = expected.withLock { $0 }
        if trips.contains(where: { $0.id == wanted }) { seen.signal() }
      }
    }
    defer { watcher.cancel() }
    let context = ModelContext(a)
    let clock = ContinuousClock()
    var samples: [Duration] = []
    for index in 0..<200 {
      let id = 50_000_000 + index
      expected.withLock { $0 = id }
      let start = clock.now
      try context.insert(SyncBenchTrip(id: id, name: "live-\(index)", budget: 7_777_777, score: 0))
      try context.save()
      guard seen.wait(timeout: .now() + 30) == .success else {
        throw SyncBenchmarkError(description: "B's live query never showed save \(index)")
      }
      samples.append(clock.now - start)
    }
    samples.sort()
    let median = samples[samples.count / 2]
    let p99 = samples[samples.count * 99 / 100]
    print(
      "save on A → live query on B (200 runs)".padding(
        toLength: 44, withPad: " ", startingAt: 0)
        + " median \(milliseconds(median))  p99 \(milliseconds(p99))  "
        + "(anchors: ElectricSQL ~6 ms, Kura's NOTIFY path 0.5 ms; no syncNow, no poll: "
        + "B's pull waits on the server)")
    fflush(nil)
    if outputsJSON {
      emitJSON([
        "workload": .string("write to live query"), "median_ns": .integer(nanoseconds(median)),
        "p99_ns": .integer(nanoseconds(p99)),
      ])
    }
  }

  /// Four replicas saving single trips as fast as they can for 5 seconds, their engines
  /// pushing in the background; changes/s is the saves the server acknowledged over the time
  /// until it had them all.
  func runSustainedSyncBenchmark(_ bench: SyncBenchmarkServer) throws {
    let replicas = try (0..<4).map { try bench.replica("writer-\($0)", space: "sustained") }
    defer { for (_, sync) in replicas { sync.stop() } }
    let before = try bench.loggedSaves("sustained")
    let clock = ContinuousClock()
    let start = clock.now
    let counts = Mutex([Int](repeating: 0, count: replicas.count))
    let failures = Mutex<[String]>([])
    let writers = DispatchGroup()
    // A thread per replica (not concurrentPerform, which runs as many at once as there are
    // cores).
    for (index, replica) in replicas.enumerated() {
      writers.enter()
      let container = replica.0
      Thread {
        let context = ModelContext(container)
        var saved = 0
        while clock.now - start < .seconds(5) {
          let id = 60_000_000 + index * 1_000_000 + saved
          do {
            try context.insert(SyncBenchTrip(id: id, name: "w\(index)", budget: saved, score: 1))
            try context.save()
          } catch {
            failures.withLock { $0.append("writer \(index): \(error)") }
            break
          }
          saved += 1
        }
        counts.withLock { $0[index] = saved }
        writers.leave()
      }.start()
    }
    writers.wait()
    if let failure = failures.withLock({ $0.first }) {
      throw SyncBenchmarkError(description: failure)
    }
    let saving = clock.now - start
    let loggedBySaveEnd = try bench.loggedSaves("sustained") - before
    for (_, sync) in replicas { try waitFor { try await sync.syncNow() } }
    let elapsed = clock.now - start
    let total = counts.withLock { $0.reduce(0, +) }
    let logged = try bench.loggedSaves("sustained") - before
    guard logged == Int64(total) else {
      throw SyncBenchmarkError(description: "the server has \(logged) of \(total) saves")
    }
    let rate = Double(total) / max(seconds(elapsed), 1e-9)
    print(
      "4 replicas saving for 5 s, all on the server".padding(
        toLength: 44, withPad: " ", startingAt: 0)
        + String(format: " %.0f changes/s", rate)
        + " (\(total) saves of 4 properties in \(milliseconds(elapsed)); anchors: ElectricSQL "
        + "4–6k, PowerSync 2–20k per client)")
    // What limits it: the local saves (sync on), or the pushes keeping up with them.
    print(
      "  saved locally: \(total) in \(milliseconds(saving)) "
        + String(format: "(%.0f saves/s)", Double(total) / max(seconds(saving), 1e-9))
        + "; on the server when the saving stopped: \(loggedBySaveEnd); the rest pushed in "
        + "\(milliseconds(elapsed - saving))")
    fflush(nil)
    if outputsJSON {
      emitJSON([
        "workload": .string("4 replicas writing"), "saves": .integer(total),
        "changes_per_second": .number(rate),
      ])
    }
  }

  /// A sync benchmark that did not get the result it checks.
  struct SyncBenchmarkError: Error, CustomStringConvertible {
    var description: String
  }
#endif
