#if canImport(CLibPQ)
  import Foundation
  import Kura
  import KuraPostgreSQL
  import KuraPostgresCluster
  import KuraSync
  import KuraSyncCore
  import KuraSyncServer

  // The model store on PostgreSQL against the same statements through libpq's C API, on the
  // same server in the same run: `swift run -c release kura-bench postgres [--url <url>]`.

  /// The `postgres` suite's own option: `--url` (`--rows` is the store suite's).
  struct PostgresBenchmarkOptions {
    /// The server to measure on; `nil`: `KURA_BENCH_POSTGRES_URL`, else a cluster of its own.
    var url: String?
    /// The parts to run (`store`, `live`, `writers`); every part when empty.
    var parts: Set<String> = []
    /// Single saves per writer process in the `writers` part.
    var writerSaves = 300

    /// The parts `--part` takes.
    static let partNames = ["store", "live", "writers"]

    /// The options in `arguments`, the arguments that are not these options, and what is wrong
    /// with them, if anything.
    static func parse(_ arguments: [String]) -> (
      options: PostgresBenchmarkOptions, rest: [String], error: String?
    ) {
      var options = PostgresBenchmarkOptions()
      var rest: [String] = []
      var error: String?
      var index = 0
      while index < arguments.count {
        let argument = arguments[index]
        // The value of option `name` given as `name value` or `name=value` (empty when the
        // value is missing), past which `index` moves; `nil` for another argument.
        func valueOf(_ name: String) -> String? {
          if argument == name {
            index += 2
            return index - 1 < arguments.count ? arguments[index - 1] : ""
          }
          guard argument.hasPrefix(name + "=") else { return nil }
          index += 1
          return String(argument.dropFirst(name.count + 1))
        }
        if argument == "--url" {
          guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") else {
            error = "`--url` needs a value, such as `--url postgresql://user@host/database`"
            index += 1
            continue
          }
          options.url = arguments[index + 1]
          index += 2
        } else if let value = valueOf("--part") {
          guard partNames.contains(value) else {
            error =
              "`--part` takes one of \(partNames.map { "`\($0)`" }.joined(separator: ", ")), "
              + "such as `--part writers`; it was `\(value)`"
            continue
          }
          options.parts.insert(value)
        } else if let value = valueOf("--writer-saves") {
          guard let saves = Int(value), saves >= 50, saves <= 100_000 else {
            error =
              "`--writer-saves` takes a whole number from 50 to 100000, such as "
              + "`--writer-saves 1500`; it was `\(value)`"
            continue
          }
          options.writerSaves = saves
        } else if argument.hasPrefix("--url=") {
          options.url = String(argument.dropFirst("--url=".count))
          index += 1
        } else {
          rest.append(argument)
          index += 1
        }
      }
      if let url = options.url, error == nil {
        do {
          _ = try PostgresLocation(url)
        } catch {
          return (options, rest, "`--url` is not a PostgreSQL URL or connection string: \(error)")
        }
      }
      return (options, rest, error)
    }

    /// The suite's usage text (`kura-bench postgres --help`).
    static let usage = """
      OVERVIEW: Kura's model store on PostgreSQL against the same statements through libpq's
      C API, on the same server in the same run, each side on fresh databases; then
      cross-process live-query latency over LISTEN/NOTIFY and concurrent writer processes.

      USAGE: kura-bench postgres [--url <url>] [--rows <n>] [--part <part> ...]
                                 [--writer-saves <n>]

      OPTIONS:
        --url <url>         The server to measure on: a postgresql:// URL or a libpq
                            connection string; its role must be allowed to CREATE DATABASE
                            (each side of each run gets a database of its own, dropped at the
                            end). Default: KURA_BENCH_POSTGRES_URL, else a throwaway cluster
                            started for the run (initdb in /tmp, Unix socket only, fsync on),
                            removed when the benchmark exits.
        --rows <n>          Rows of the bulk insert and the fetch (default 100,000; at least
                            1,000).
        --part <part>       Runs only this part (repeatable): `store` (the four workloads),
                            `live` (the live query over NOTIFY), `writers` (1, 4 and 16
                            writer processes). Default: every part.
        --writer-saves <n>  Single saves of each writer process in `writers` (default
                            300, from 50 to 100,000). With 1,500, 16 writers' history
                            reaches the default retention's 10,000 saves and each round
                            ends trimming it: Kura's steady state.
        -h, --help          Shows this text.

      The lookups by id run with this process's measuring thread and both sides' server
      processes on one CPU (on the cluster the run starts itself; as root, or as the
      cluster's user), and their target is judged by the median of each Kura run's ratio to
      the libpq run beside it: where a client and its server process run decides most of a
      round trip's time, and the scheduler's choice, which lasts a while, falls on either side
      by chance.

      EXIT STATUS: 0 on success, 1 when the benchmark fails, 64 for a bad argument.
      Build with `-c release` for meaningful figures.
      """
  }

  /// Saves the child makes in the cross-process live-query measurement.
  private let liveQuerySaves = 50

  func runPostgresBenchmarks() throws {
    let arguments = Array(CommandLine.arguments.dropFirst())
    let rows = StoreBenchmarkOptions.parse(arguments).0.rows
    let options = PostgresBenchmarkOptions.parse(arguments).options
    let url = options.url ?? ProcessInfo.processInfo.environment["KURA_BENCH_POSTGRES_URL"]
    let server = try PostgresBenchmarkServer(url: url)
    defer { server.dropAll() }
    if let cluster = server.cluster {
      print("server: a throwaway cluster in \(cluster.folder) (Unix socket only, fsync on)")
    } else {
      print("server: \(server.label)")
    }
    print("settings: \(try server.settingsSummary())")
    printFlushLatency(server, "before")
    func runs(_ part: String) -> Bool { options.parts.isEmpty || options.parts.contains(part) }
    if runs("store") { try storeWorkloads(on: server, rows: rows) }
    if runs("live") { try crossProcessLiveQuery(on: server) }
    if runs("writers") { try concurrentWriters(on: server, savesPerWriter: options.writerSaves) }
    printFlushLatency(server, "after")
  }

  /// Prints what this machine's disk charges a commit now: the median of 50 writes of 8 kB,
  /// each followed by `fdatasync`, in the cluster's folder (only for a cluster of its own: a
  /// server elsewhere has disks of its own).
  private func printFlushLatency(_ server: PostgresBenchmarkServer, _ when: String) {
    guard let folder = server.cluster?.folder else { return }
    let path = folder + "/kura-bench-flush-probe"
    let file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard file >= 0 else { return }
    defer {
      close(file)
      unlink(path)
    }
    let block = [UInt8](repeating: 0x4B, count: 8192)
    let clock = ContinuousClock()
    var samples: [Duration] = []
    for _ in 0..<50 {
      samples.append(
        clock.measure {
          _ = block.withUnsafeBytes { pwrite(file, $0.baseAddress, $0.count, 0) }
          _ = fdatasync(file)
        })
    }
    samples.sort()
    print(
      "disk flush \(when) (8 kB write + fdatasync beside the cluster, median of 50):"
        + " \(milliseconds(samples[25]))  (max \(milliseconds(samples[49])))")
    fflush(nil)
  }

  /// A Kura configuration of `database`, with or without the change feed.
  private func kuraConfiguration(_ database: BenchmarkDatabase, history: Bool = true) throws
    -> ModelConfiguration
  {
    var configuration = try ModelConfiguration.postgres(
      connectionString: database.connectionString)
    if !history { configuration.historyRetention = .off }
    return configuration
  }

  // MARK: The four store workloads

  private func storeWorkloads(on server: PostgresBenchmarkServer, rows: Int) throws {
    let trips = makeTrips(rows)
    let count = formatted(rows)
    print("rows: \(count)")
    print(
      "bulk insert, in one transaction: Kura's save sends the rows with one binary COPY straight"
        + " into the table after a savepoint (its bulk path; rows already stored would go through"
        + " a staging table and one INSERT … SELECT … ON CONFLICT instead); the baseline"
        + " is libpq's COPY … FROM STDIN (FORMAT binary) of the same rows straight into the table"
        + " (BEGIN, COPY, COMMIT; the rows encoded by hand, inside the timer). Also shown: libpq"
        + " sending one prepared INSERT … ON CONFLICT per row (a round trip each)")
    print(
      "fetch: both sides send the same SELECT … ORDER BY id (Kura's engine names the row order"
        + " SQLite gives by itself), results in binary on both")
    print(
      "single saves: libpq sends BEGIN, the upsert, COMMIT; Kura sends what its engine sends"
        + " per save (its shared store lock, constraint checks, the history row with NOTIFY…); the"
        + " lock's share is measured apart, and so is libpq doing what Kura does (lock, upsert,"
        + " the feed's row with NOTIFY)")

    // 1. Bulk insert in one transaction, each run on fresh databases (made, and connected to,
    // outside the timer).
    var kuraDatabase: BenchmarkDatabase?
    var rawDatabase: BenchmarkDatabase?
    var context: ModelContext?
    var raw: RawPostgres?
    func freshKura(history: Bool) throws {
      context = nil
      if let kuraDatabase { server.drop(kuraDatabase) }
      let database = try server.freshDatabase("kura")
      kuraDatabase = database
      context = ModelContext(
        try ModelContainer(
          for: BenchTrip.self,
          configurations: kuraConfiguration(database, history: history)))
    }
    func freshRaw(asKura: Bool) throws {
      raw = nil
      if let rawDatabase { server.drop(rawDatabase) }
      let database = try server.freshDatabase("libpq")
      rawDatabase = database
      raw = try RawPostgres(
        database.connectionString, label: "database `\(database.name)`",
        table: asKura ? .createAsKura : .create)
    }
    func bulkInsert(_ name: String, history: Bool, withKuraStatementSide: Bool) throws {
      var sides = [
        MeasuredSide(
          name: "kura", prepare: { try freshKura(history: history) },
          run: {
            guard let context else { return }
            try context.transaction { for trip in trips { try context.insert(trip) } }
          }),
        MeasuredSide(
          name: "libpq-copy", prepare: { try freshRaw(asKura: false) },
          run: {
            guard let raw else { return }
            try raw.execute("BEGIN")
            try raw.copy(trips)
            try raw.execute("COMMIT")
          }),
        MeasuredSide(
          name: "libpq", prepare: { try freshRaw(asKura: false) },
          run: {
            guard let raw else { return }
            try raw.execute("BEGIN")
            for trip in trips { try raw.upsert(trip) }
            try raw.execute("COMMIT")
          }),
      ]
      if withKuraStatementSide {
        // The same on a table of Kura's shape (its hidden row number), with the statement
        // Kura's engine sends instead of `INSERT … ON CONFLICT`: the server's share.
        sides.append(
          MeasuredSide(
            name: "libpq+kura-sql", prepare: { try freshRaw(asKura: true) },
            run: {
              guard let raw else { return }
              try raw.execute("BEGIN")
              for trip in trips { try raw.upsert(trip, kuraStatement: true) }
              try raw.execute("COMMIT")
            }))
      }
      let samples = try alternatingSamples(runs: 5, sides)
      reportRanges(
        name, kura: samples[0], baseline: samples[1], baselineName: "libpq-copy", target: 1.5)
      reportRanges(
        "  against libpq upserting row by row", kura: samples[0], baseline: samples[2],
        baselineName: "libpq", target: nil)
      if withKuraStatementSide {
        reportRanges(
          "  libpq sending Kura's row-by-row upsert, Kura's table", kura: samples[3],
          baseline: samples[2], baselineName: "libpq", target: nil, kuraName: "libpq+kura-sql")
      }
    }
    try bulkInsert(
      "insert \(count) models, no history", history: false, withKuraStatementSide: false)
    try bulkInsert(
      "insert \(count) models, one transaction", history: true, withKuraStatementSide: true)
    // The last run's databases stay: the next workloads read them.
    guard let context, let raw, let kuraDatabase, let rawDatabase else { return }

    // Both sides hold the same rows.
    let byID: (BenchTrip, BenchTrip) -> Bool = { $0.id < $1.id }
    let stored = try context.fetch(FetchDescriptor<BenchTrip>()).sorted(by: byID)
    guard stored == trips, try raw.fetchAll().sorted(by: byID) == trips else {
      throw PostgresBenchmarkError(
        description: "the two sides' tables don't hold the rows the bulk insert wrote")
    }

    // 2. Fetch all into structs.
    var fetched = 0
    let fetch = try alternatingSamples(
      runs: 7,
      [
        MeasuredSide(
          name: "kura", run: { fetched = try context.fetch(FetchDescriptor<BenchTrip>()).count }),
        MeasuredSide(name: "libpq", run: { fetched = try raw.fetchAll().count }),
      ])
    guard fetched == rows else {
      throw PostgresBenchmarkError(description: "fetched \(fetched) of \(rows) rows")
    }
    reportRanges(
      "fetch all \(count) models", kura: fetch[0], baseline: fetch[1], baselineName: "libpq",
      target: 1.3)

    // 3. 1,000 single-model saves, each its own transaction. The baseline: BEGIN; the upsert;
    // COMMIT. A third side adds the statement Kura's engine runs in every write transaction
    // (the store lock it takes shared), to show that lock's share apart.
    var batch = 0
    func nextTrips() -> [BenchTrip] {
      batch += 1
      return makeTrips(1_000, from: 1_000_000 * batch + rows)
    }
    func singleSaves(_ name: String, context: ModelContext, withLockedSide: Bool) throws {
      var sides = [
        MeasuredSide(
          name: "kura",
          run: {
            for trip in nextTrips() {
              try context.insert(trip)
              try context.save()
            }
          }),
        MeasuredSide(
          name: "libpq",
          run: {
            for trip in nextTrips() {
              try raw.execute("BEGIN")
              try raw.upsert(trip)
              try raw.execute("COMMIT")
            }
          }),
      ]
      if withLockedSide {
        sides.append(
          MeasuredSide(
            name: "libpq+lock",
            run: {
              for trip in nextTrips() {
                try raw.execute("BEGIN")
                try raw.takeWriterLock()
                try raw.upsert(trip)
                try raw.execute("COMMIT")
              }
            }))
        // What the change feed costs any implementation: libpq doing what Kura's save does
        // (BEGIN and the shared store lock in one round trip, the upsert, the feed's row, COMMIT
        // and NOTIFY in one round trip), with the one-statement upsert and nothing else.
        sides.append(
          MeasuredSide(
            name: "libpq+feed",
            run: {
              for trip in nextTrips() {
                try raw.execute(RawPostgres.beginLockedSQL)
                try raw.upsert(trip)
                try raw.appendHistory(for: trip)
                try raw.execute(RawPostgres.commitAndNotifySQL)
              }
            }))
      }
      let samples = try alternatingSamples(runs: 5, sides)
      // The target is against libpq doing the same work, the feed's row included (the last
      // line); against a bare upsert the line shows what the feed and the lock cost.
      reportRanges(
        name, kura: samples[0], baseline: samples[1], baselineName: "libpq", target: nil)
      if withLockedSide {
        reportRanges(
          "  libpq + Kura's shared store-lock statement", kura: samples[2],
          baseline: samples[1], baselineName: "libpq", target: nil, kuraName: "libpq+lock")
        reportRanges(
          "  libpq doing the same with the feed's row", kura: samples[3],
          baseline: samples[1], baselineName: "libpq", target: nil, kuraName: "libpq+feed")
        reportRanges(
          "  kura against that libpq with the feed", kura: samples[0],
          baseline: samples[3], baselineName: "libpq+feed", target: 1.3)
      }
    }
    try singleSaves("1,000 single-model saves", context: context, withLockedSide: true)
    // The same store without the change feed: what the feed itself costs.
    let quiet = ModelContext(
      try ModelContainer(
        for: BenchTrip.self, configurations: kuraConfiguration(kuraDatabase, history: false)))
    try singleSaves("1,000 single-model saves, no history", context: quiet, withLockedSide: false)

    // 4. 1,000 fetches by id, each its own statement.
    let ids = (0..<1_000).map { ($0 * 97) % rows }
    var found = 0
    // 21 runs, the sides strictly taking turns, with this thread and both sides' server
    // processes on one CPU (`onOneCPU`): on the 2-core machine here a round trip takes ~20 µs
    // when the client and its server process share a CPU and up to ~70 µs when the scheduler
    // has placed them apart, which persists for a while and fell on one side or the other by
    // chance (a run of 1,000 took ~20 ms or ~70 ms, on both sides alike: `KURA_BENCH_SAMPLES=1`
    // prints every run in order). Each run's ratio to the libpq run beside it judges the
    // target (their median, `pairedRatio`); the ratio of the medians is printed too.
    // One lookup on each side first, so both sides' server processes exist when placed.
    found += try lookUpAll(ids[0..<1], in: context)
    if try raw.trip(id: ids[0])?.id == ids[0] { found += 1 }
    let (lookups, placement) = try onOneCPU(server, databases: [kuraDatabase, rawDatabase]) {
      try alternatingSamples(
        runs: 21, rotating: false,
        [
          MeasuredSide(
            name: "kura",
            run: { found += try lookUpAll(ids[...], in: context) }),
          MeasuredSide(
            name: "libpq",
            run: { for id in ids where try raw.trip(id: id)?.id == id { found += 1 } }),
        ])
    }
    guard found == 42 * ids.count + 2 else {
      throw PostgresBenchmarkError(
        description: "found \(found) of \(42 * ids.count + 2) lookups")
    }
    reportRanges(
      "1,000 fetches by id, each its own statement", kura: lookups[0], baseline: lookups[1],
      baselineName: "libpq", target: 1.3, judgingPairs: true)
    if !outputsJSON { print("  (\(placement))") }

    // 5. Saves of n models each, on both sides of the bulk path's thresholds (pipelined below
    // PostgresBulkUpsert.minimumCopiedRows, copied from it on, staged from minimumStagedRows).
    try printBatchSaves(context)
  }

  /// Prints the time per save and per row of saves of n new models, then of n stored ones, for
  /// n around the bulk path's thresholds: below ``PostgresBulkUpsert/minimumCopiedRows`` the
  /// row-by-row upserts go in one round trip (pipelined), from it on through COPY; updates
  /// that the copy meets go pipelined, or staged from ``PostgresBulkUpsert/minimumStagedRows``.
  private func printBatchSaves(_ context: ModelContext) throws {
    let threshold = PostgresBulkUpsert.minimumCopiedRows
    let staged = PostgresBulkUpsert.minimumStagedRows
    print(
      "saves of n new models (pipelined below n = \(threshold), copied from it on; updates "
        + "staged from n = \(staged)); median of 9 saves each:")
    var next = 50_000_000
    let sizes = Set([2, 4, 8, 16, 32, 48, 63, 64, 96, 128, 256]).sorted()
    for size in sizes {
      var samples: [Duration] = []
      let clock = ContinuousClock()
      for _ in 0..<9 {
        let trips = makeTrips(size, from: next)
        next += size
        samples.append(
          try clock.measure {
            for trip in trips { try context.insert(trip) }
            try context.save()
          })
      }
      printBatchSave(size: size, path: size >= threshold ? "copy" : "pipelined", samples)
    }
    // The same saves over stored rows: each model saved again with another name.
    print("saves of n stored models, each changed (updates); median of 9 saves each:")
    for size in sizes where size <= 128 {
      var samples: [Duration] = []
      let clock = ContinuousClock()
      for round in 0..<9 {
        let trips = makeTrips(size, from: next).map { trip -> BenchTrip in
          var trip = trip
          trip.name += " (\(round))"
          return trip
        }
        if round == 0 {
          for trip in trips { try context.insert(trip) }
          try context.save()
        }
        samples.append(
          try clock.measure {
            for trip in trips { try context.insert(trip) }
            try context.save()
          })
      }
      next += size
      let path =
        size >= staged
        ? "copy, then staged"
        : size >= threshold ? "pipelined; the first save's copy undone" : "pipelined"
      printBatchSave(size: size, path: path, samples)
    }
  }

  /// One line of ``printBatchSaves(_:)``: the median save and its time per row.
  private func printBatchSave(size: Int, path: String, _ samples: [Duration]) {
    let median = seconds(samples.sorted()[samples.count / 2])
    print(
      String(format: "  n = %3d", size) + " (\(path)): "
        + String(
          format: "%.2f ms per save, %.1f µs per row", median * 1000,
          median * 1_000_000 / Double(size)))
  }

  // MARK: Cross-process live queries

  /// From another process's save to this process's live query showing it: the child's save
  /// commits, NOTIFY wakes this process's listener, which reads the change feed and fetches.
  private func crossProcessLiveQuery(on server: PostgresBenchmarkServer) throws {
    let database = try server.freshDatabase("live")
    defer { server.drop(database) }
    let container = try ModelContainer(
      for: BenchPlace.self, configurations: kuraConfiguration(database))
    let query = try LiveQuery(
      FetchDescriptor<BenchPlace>(sortBy: [SortDescriptor(\.id, order: .reverse)], fetchLimit: 10),
      in: container)
    defer { query.cancel() }
    let waiter = UpdateWaiter(query)
    let child = try BenchmarkChild([
      "KURA_BENCH_CHILD": "postgres-live-writer", "KURA_BENCH_STORE": database.connectionString,
    ])
    defer { child.finish() }
    try child.expect("ready")
    var latencies: [UInt64] = []
    var saves: [UInt64] = []
    for _ in 0..<liveQuerySaves {
      child.send("go")
      guard waiter.wait(seconds: 30) else {
        throw PostgresBenchmarkError(
          description: "the live query did not see the other process's save within 30 s")
      }
      let received = monotonicNanoseconds()
      guard let line = child.readLine() else { break }
      let times = line.split(separator: " ").compactMap { UInt64($0) }
      guard times.count == 2 else { break }
      latencies.append(received - times[0])
      saves.append(times[1] - times[0])
    }
    latencies.sort()
    saves.sort()
    func ms(_ nanoseconds: UInt64) -> String {
      String(format: "%.3f ms", Double(nanoseconds) / 1e6)
    }
    let median = latencies.isEmpty ? 0 : latencies[latencies.count / 2]
    let p99 = latencies.isEmpty ? 0 : latencies[(latencies.count * 99 - 1) / 100]
    print(
      "live query: other process's save → results updated (NOTIFY)  median \(ms(median))"
        + "  p99 \(ms(p99))  max \(ms(latencies.last ?? 0))  (\(latencies.count) saves; from the child's"
        + " save() call, whose commit took median \(ms(saves.isEmpty ? 0 : saves[saves.count / 2])))"
    )
    fflush(nil)
  }

  // MARK: Concurrent writers

  /// A writer child of the concurrent-writers measurement: opens the store (Kura) or a
  /// connection (libpq), says `ready`, waits for `go`, makes its single saves and prints the
  /// monotonic times of its first save's start and its last save's end.
  func runPostgresWriterChild(_ environment: [String: String]) throws {
    let connectionString = environment["KURA_BENCH_STORE"] ?? ""
    let writer = Int(environment["KURA_BENCH_WRITER"] ?? "") ?? 0
    let saves = Int(environment["KURA_BENCH_SAVES"] ?? "") ?? 0
    let trips = makeTrips(saves, from: 10_000_000 * (writer + 1))
    func measure(_ body: () throws -> Void) throws {
      print("ready")
      fflush(nil)
      guard readLine() == "go" else { return }
      let cpu = processCPUMicroseconds()
      let start = monotonicNanoseconds()
      try body()
      let end = monotonicNanoseconds()
      print("\(start) \(end) \(processCPUMicroseconds() - cpu)")
      fflush(nil)
      // Connected until the parent has read the server's CPU time (it closes the input).
      _ = readLine()
    }
    if environment["KURA_BENCH_SIDE"] == "kura" {
      let context = ModelContext(
        try ModelContainer(
          for: BenchTrip.self,
          configurations: ModelConfiguration.postgres(connectionString: connectionString)))
      try measure {
        for trip in trips {
          try context.insert(trip)
          try context.save()
        }
      }
    } else if environment["KURA_BENCH_SIDE"] == "libpq+feed" {
      // What Kura's save does, by hand: BEGIN with the shared store lock (one round trip), the
      // upsert, the feed's row, then COMMIT and the NOTIFY in a transaction of its own, in one
      // round trip (as Kura sends them).
      let raw = try RawPostgres(connectionString, label: "the writers' database", table: .existing)
      try measure {
        for trip in trips {
          try raw.execute(RawPostgres.beginLockedSQL)
          try raw.upsert(trip)
          try raw.appendHistory(for: trip)
          try raw.execute(RawPostgres.commitAndNotifySQL)
        }
      }
    } else {
      let raw = try RawPostgres(connectionString, label: "the writers' database", table: .existing)
      try measure {
        for trip in trips {
          try raw.execute("BEGIN")
          try raw.upsert(trip)
          try raw.execute("COMMIT")
        }
      }
    }
  }

  /// Saves per second of `writers` processes each making `savesPerWriter` single saves at
  /// once, on a fresh database: from the first save's start to the last one's end.
  private func writerThroughput(
    side: String, writers: Int, savesPerWriter: Int, on server: PostgresBenchmarkServer
  ) throws -> WriterRound {
    let database = try server.freshDatabase(
      "\(side.replacingOccurrences(of: "+", with: "_"))_writers")
    defer { server.drop(database) }
    // The schema exists before the writers start.
    if side == "kura" {
      _ = try ModelContainer(for: BenchTrip.self, configurations: kuraConfiguration(database))
    } else {
      _ = try RawPostgres(
        database.connectionString, label: "database `\(database.name)`", table: .create)
    }
    let children = try (0..<writers).map { writer in
      try BenchmarkChild([
        "KURA_BENCH_CHILD": "postgres-writer", "KURA_BENCH_STORE": database.connectionString,
        "KURA_BENCH_SIDE": side, "KURA_BENCH_WRITER": String(writer),
        "KURA_BENCH_SAVES": String(savesPerWriter),
      ])
    }
    defer { for child in children { child.finish() } }
    for child in children { try child.expect("ready") }
    let serverCPU = server.cluster.flatMap { clusterCPUMicroseconds($0) }
    for child in children { child.send("go") }
    var first = UInt64.max
    var last = UInt64.min
    var clientCPU: UInt64 = 0
    for child in children {
      let times = (child.readLine() ?? "").split(separator: " ").compactMap { UInt64($0) }
      guard times.count == 3 else {
        throw PostgresBenchmarkError(description: "a \(side) writer process failed")
      }
      first = min(first, times[0])
      last = max(last, times[1])
      clientCPU += times[2]
    }
    let saves = Double(writers * savesPerWriter)
    // The server's CPU time from before `go` until every writer has reported (their
    // connections still open): its backends, and its WAL writer and other processes.
    var serverPerSave: Double?
    if let before = serverCPU, let after = server.cluster.flatMap({ clusterCPUMicroseconds($0) }) {
      serverPerSave = Double(after - before) / saves
    }
    return WriterRound(
      savesPerSecond: saves / (Double(last - first) / 1e9),
      clientCPUPerSave: Double(clientCPU) / saves, serverCPUPerSave: serverPerSave)
  }

  /// One round of ``writerThroughput(side:writers:savesPerWriter:on:)``: saves per second, and
  /// the CPU time a save took in the writer processes (user and system, from the first save to
  /// the last) and in the server (`nil` on a server this run didn't start).
  private struct WriterRound {
    var savesPerSecond: Double
    var clientCPUPerSave: Double
    var serverCPUPerSave: Double?
  }

  /// The CPU time (user and system, µs) this process has used.
  private func processCPUMicroseconds() -> UInt64 {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let seconds = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec
    let micro = usage.ru_utime.tv_usec + usage.ru_stime.tv_usec
    return UInt64(seconds) * 1_000_000 + UInt64(micro)
  }

  /// The CPU time (user and system, µs) of `cluster`'s postmaster and the processes it
  /// started (backends, WAL writer, checkpointer…), from `/proc`; `nil` when it can't be read.
  private func clusterCPUMicroseconds(_ cluster: PostgresCluster) -> UInt64? {
    guard
      let pidFile = try? String(
        contentsOfFile: cluster.folder + "/data/postmaster.pid", encoding: .utf8),
      let postmaster = pidFile.split(separator: "\n").first.flatMap({ Int($0) })
    else { return nil }
    let ticksPerSecond = UInt64(sysconf(Int32(_SC_CLK_TCK)))
    guard ticksPerSecond > 0,
      let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc")
    else { return nil }
    var ticks: UInt64 = 0
    for entry in entries {
      guard let pid = Int(entry),
        let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { continue }
      // After the command's closing parenthesis: state, ppid, … utime (11th), stime (12th).
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      guard fields.count > 12, pid == postmaster || Int(fields[1]) == postmaster else {
        continue
      }
      ticks += (UInt64(fields[11]) ?? 0) + (UInt64(fields[12]) ?? 0)
    }
    return ticks * 1_000_000 / ticksPerSecond
  }

  /// Single saves from 1, 4 and 16 processes at once: Kura, libpq with the feed's row (what
  /// Kura's save does, by hand) and plain libpq; 3 rounds.
  private func concurrentWriters(on server: PostgresBenchmarkServer, savesPerWriter: Int) throws {
    let sides = ["kura", "libpq+feed", "libpq"]
    let writerCounts = [1, 4, 16]
    let configurations = writerCounts.flatMap { writers in sides.map { ($0, writers) } }
    var rounds = Array(repeating: [WriterRound](), count: configurations.count)
    // Each round runs the three sides of a writer count in another order (Kura first, then
    // second, then last), so what the server still does from before (a checkpoint, the WAL
    // writer, autovacuum) falls on every side alike.
    for round in 0..<3 {
      for (count, writers) in writerCounts.enumerated() {
        for offset in 0..<sides.count {
          let place = (offset + sides.count - round) % sides.count
          rounds[count * sides.count + place].append(
            try writerThroughput(
              side: sides[place], writers: writers, savesPerWriter: savesPerWriter, on: server))
        }
      }
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    var medians: [String: Double] = [:]
    for (index, (side, writers)) in configurations.enumerated() {
      medians["\(side) \(writers)"] = median(rounds[index].map(\.savesPerSecond))
    }
    print(
      "concurrent writer processes, single saves (\(savesPerWriter) each; median of 3 rounds,"
        + " [slowest–fastest]; Kura's targets: 4 processes ≥ ×2.00 of 1, 16 processes ≥ ×0.90 of"
        + " libpq+feed; CPU a save: the writer processes' and the server's, median)")
    for (index, (side, writers)) in configurations.enumerated() {
      let sorted = rounds[index].map(\.savesPerSecond).sorted()
      let median = medians["\(side) \(writers)"] ?? 0
      var line =
        "  \(side.padding(toLength: 10, withPad: " ", startingAt: 0)) \(writers) process"
        + (writers == 1 ? "  " : "es") + String(format: "  %7.0f saves/s total", median)
        + String(format: " [%.0f–%.0f]", sorted[0], sorted[sorted.count - 1])
      if writers > 1, let one = medians["\(side) 1"] {
        line += String(format: "  ×%.2f of 1 process", median / one)
      }
      if side == "kura", let feed = medians["libpq+feed \(writers)"] {
        line += String(format: "  ×%.2f of libpq+feed", median / feed)
      }
      line += String(format: "  CPU %.0f µs", rounds[index].map(\.clientCPUPerSave).sorted()[1])
      let server = rounds[index].compactMap(\.serverCPUPerSave)
      if server.count == rounds[index].count {
        line += String(format: " + server %.0f µs", server.sorted()[server.count / 2])
      }
      print(line)
    }
    fflush(nil)
  }
#endif
