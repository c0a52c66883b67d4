import Dispatch
import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import KuraSyncServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Relationships, migrations and live queries: `swift run -c release kura-bench relations`.

struct BenchPlace: PersistentModel {
  var id: Int
  var name: String
  var score: Double
  static var schemaName: String { "Place" }
}

struct BenchPlaceV2: PersistentModel {
  var id: Int
  var name: String
  var score: Double
  var note: String?
  static var schemaName: String { "Place" }
}

/// `score` made optional: a change that copies every row into a rebuilt table.
struct BenchPlaceV3: PersistentModel {
  var id: Int
  var name: String
  var score: Double?
  static var schemaName: String { "Place" }
}

struct BenchTripR: PersistentModel {
  var id: Int
  var name: String
  static var schemaName: String { "Trip" }
}

struct BenchActivityR: PersistentModel {
  var id: Int
  var name: String
  var trip: Int
  static var schemaName: String { "Activity" }
  static var schema: Schema<BenchActivityR> {
    Schema(.reference(\.trip, to: BenchTripR.self, deleteRule: .cascade), .index(\.trip))
  }
}

/// Nanoseconds on the system-wide monotonic clock (comparable between processes).
func monotonicNanoseconds() -> UInt64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func runRelationsBenchmarks() throws {
  try liveQueryLatency()
  try crossProcessLiveQueryLatency()
  try cascadeDelete()
  try migration()
}

/// Waits for a live query's next result set.
final class UpdateWaiter: Sendable {
  private let semaphore = DispatchSemaphore(value: 0)
  private let task: Task<Void, Never>

  init(_ query: LiveQuery<BenchPlace>) {
    let updates = query.changes
    let semaphore = self.semaphore
    task = Task {
      for await _ in updates { semaphore.signal() }
    }
    semaphore.wait()  // the current results
  }

  func wait() { semaphore.wait() }

  /// Waits at most `seconds` for the next result set; whether it came.
  func wait(seconds: Double) -> Bool { semaphore.wait(timeout: .now() + seconds) == .success }

  deinit { task.cancel() }
}

private func liveQueryLatency() throws {
  let folder = benchmarkDirectory("live")
  defer { try? FileManager.default.removeItem(at: folder) }
  let container = try ModelContainer(
    for: BenchPlace.self, configurations: .url(folder.appendingPathComponent("live.store")))
  let query = try LiveQuery(FetchDescriptor<BenchPlace>(fetchLimit: 50), in: container)
  let waiter = UpdateWaiter(query)
  let context = ModelContext(container)
  // The baseline: the same save, then a fetch by hand, on a store nobody observes.
  let plainContext = ModelContext(
    try ModelContainer(
      for: BenchPlace.self, configurations: .url(folder.appendingPathComponent("plain.store"))))
  var next = 0
  let clock = ContinuousClock()
  var kura: [Duration] = []
  var baseline: [Duration] = []
  for _ in 0..<50 {
    kura.append(
      try clock.measure {
        next += 1
        try context.insert(BenchPlace(id: next, name: "p\(next)", score: 1))
        try context.save()
        waiter.wait()
      })
    baseline.append(
      try clock.measure {
        next += 1
        try plainContext.insert(BenchPlace(id: next, name: "p\(next)", score: 1))
        try plainContext.save()
        _ = try plainContext.fetch(FetchDescriptor<BenchPlace>(fetchLimit: 50))
      })
  }
  kura.sort()
  baseline.sort()
  report(
    "live query: save → results updated (1 proc)", kura: kura[kura.count / 2],
    baseline: baseline[baseline.count / 2], baselineName: "save+fetch", target: nil)
  query.cancel()
}

/// The writer child of the cross-process live-query measurements (this suite's and the postgres
/// suite's): saves one model per `go` line into the store `configuration` opens and prints the
/// monotonic times taken before and after each save.
func runLiveWriterChild(_ configuration: ModelConfiguration) throws {
  let context = ModelContext(
    try ModelContainer(for: BenchPlace.self, configurations: configuration))
  print("ready")
  fflush(nil)
  var next = 1_000_000
  while let line = readLine(), line == "go" {
    next += 1
    let start = monotonicNanoseconds()
    try context.insert(BenchPlace(id: next, name: "child", score: 2))
    try context.save()
    print("\(start) \(monotonicNanoseconds())")
    fflush(nil)
  }
}

private func crossProcessLiveQueryLatency() throws {
  let folder = benchmarkDirectory("live-child")
  defer { try? FileManager.default.removeItem(at: folder) }
  let url = folder.appendingPathComponent("live.store")
  let container = try ModelContainer(for: BenchPlace.self, configurations: .url(url))
  let query = try LiveQuery(FetchDescriptor<BenchPlace>(fetchLimit: 50), in: container)
  let waiter = UpdateWaiter(query)
  let child = try BenchmarkChild(["KURA_BENCH_CHILD": "live-writer", "KURA_BENCH_STORE": url.path])
  try child.expect("ready")
  var latencies: [UInt64] = []
  for _ in 0..<30 {
    child.send("go")
    waiter.wait()
    let received = monotonicNanoseconds()
    guard let line = child.readLine(), let start = line.split(separator: " ").first,
      let startTime = UInt64(start)
    else { break }
    latencies.append(received - startTime)
  }
  child.finish()
  latencies.sort()
  let median = latencies.isEmpty ? 0 : latencies[latencies.count / 2]
  let worst = latencies.last ?? 0
  print(
    "live query: other process's save → results updated  median "
      + String(format: "%.3f ms", Double(median) / 1e6) + "  max "
      + String(format: "%.3f ms", Double(worst) / 1e6) + "  (\(latencies.count) saves)")
  fflush(nil)
  query.cancel()
}

private func cascadeDelete() throws {
  let folder = benchmarkDirectory("cascade")
  defer { try? FileManager.default.removeItem(at: folder) }
  let url = folder.appendingPathComponent("cascade.store")
  let container = try ModelContainer(
    for: BenchTripR.self, BenchActivityR.self, configurations: .url(url))
  let context = ModelContext(container)
  let raw = try Connection(path: url.path)
  func populate(_ trip: Int) throws {
    try raw.transaction {
      try raw.run("INSERT INTO Trip (id, name) VALUES (?, 'trip')", [.integer(Int64(trip))])
      let insert = try raw.prepare("INSERT INTO Activity (id, name, trip) VALUES (?, 'a', ?)")
      for index in 0..<10_000 {
        insert.reset()
        try insert.bind([.integer(Int64(trip * 100_000 + index)), .integer(Int64(trip))])
        try insert.execute()
      }
    }
  }
  let clock = ContinuousClock()
  var kura: [Duration] = []
  var baseline: [Duration] = []
  for run in 0..<5 {
    try populate(run * 2)
    try populate(run * 2 + 1)
    kura.append(
      try clock.measure {
        try context.delete(BenchTripR(id: run * 2, name: ""))
        let changes = try context.save()
        precondition(changes.deleted(BenchActivityR.self).count == 10_000)
      })
    baseline.append(
      try clock.measure {
        try raw.transaction {
          try raw.run("DELETE FROM Trip WHERE id = ?", [.integer(Int64(run * 2 + 1))])
        }
      })
  }
  kura.sort()
  baseline.sort()
  report(
    "cascade-delete a trip with 10,000 activities", kura: kura[2], baseline: baseline[2],
    baselineName: "SQL ON DELETE CASCADE", target: nil)
}

private func migration() throws {
  let folder = benchmarkDirectory("migrate")
  defer { try? FileManager.default.removeItem(at: folder) }
  let seed = folder.appendingPathComponent("seed.store")
  // The same rows with random 63-bit ids (snowflake-like): copying is paged by key, so it
  // should take as long as with dense ids.
  let sparseSeed = folder.appendingPathComponent("sparse-seed.store")
  var generator = SystemRandomNumberGenerator()
  for (url, sparse) in [(seed, false), (sparseSeed, true)] {
    _ = try ModelContainer(for: BenchPlace.self, configurations: .url(url))
    let raw = try Connection(path: url.path)
    try raw.transaction {
      let insert = try raw.prepare("INSERT INTO Place (id, name, score) VALUES (?, ?, ?)")
      var used = Set<Int64>()
      for index in 0..<1_000_000 {
        var id = Int64(index)
        if sparse {
          repeat {
            id = Int64.random(in: 0...Int64.max, using: &generator)
          } while !used
            .insert(id).inserted
        }
        insert.reset()
        try insert.bind([.integer(id), .text("place-\(index)"), .real(Double(index))])
        try insert.execute()
      }
    }
    try raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
  }
  let clock = ContinuousClock()
  func fresh(_ name: String, from source: URL? = nil) throws -> URL {
    let url = folder.appendingPathComponent(name)
    for suffix in ["", "-wal", "-shm", "-changes"] {
      try? FileManager.default.removeItem(atPath: url.path + suffix)
    }
    try FileManager.default.copyItem(at: source ?? seed, to: url)
    return url
  }
  var added: [Duration] = []
  var addedBaseline: [Duration] = []
  var removed: [Duration] = []
  var removedBaseline: [Duration] = []
  var sparseRebuilt: [Duration] = []
  for _ in 0..<3 {
    let a = try fresh("a.store")
    added.append(
      try clock.measure { _ = try ModelContainer(for: BenchPlaceV2.self, configurations: .url(a)) })
    let b = try fresh("b.store")
    addedBaseline.append(
      try clock.measure {
        let raw = try Connection(path: b.path)
        try raw.transaction { try raw.execute("ALTER TABLE Place ADD COLUMN note TEXT") }
      })
    let c = try fresh("c.store")
    removed.append(
      try clock.measure { _ = try ModelContainer(for: BenchPlaceV3.self, configurations: .url(c)) })
    let d = try fresh("d.store")
    removedBaseline.append(
      try clock.measure {
        let raw = try Connection(path: d.path)
        try raw.transaction {
          try raw.execute(
            "CREATE TABLE n (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, score REAL); "
              + "INSERT INTO n (rowid, id, name, score) SELECT rowid, id, name, score FROM Place; "
              + "DROP TABLE Place; ALTER TABLE n RENAME TO Place")
        }
      })
    let e = try fresh("e.store", from: sparseSeed)
    sparseRebuilt.append(
      try clock.measure { _ = try ModelContainer(for: BenchPlaceV3.self, configurations: .url(e)) })
  }
  report(
    "migrate 1,000,000 rows: added optional column", kura: added.sorted()[1],
    baseline: addedBaseline.sorted()[1], baselineName: "raw ALTER TABLE", target: nil)
  report(
    "migrate 1,000,000 rows: rebuilt table (column made optional)", kura: removed.sorted()[1],
    baseline: removedBaseline.sorted()[1], baselineName: "raw table copy", target: nil)
  report(
    "migrate 1,000,000 rows with random 63-bit ids: rebuilt table", kura: sparseRebuilt.sorted()[1],
    baseline: removed.sorted()[1], baselineName: "same with dense ids", target: nil)
}
