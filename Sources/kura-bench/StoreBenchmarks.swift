import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import KuraSyncServer
import TerminalUI

#if canImport(CSQLite)
  import CSQLite
#else
  import SQLite3
#endif

// The model store against direct C API calls on the same data and the same pragmas (WAL,
// synchronous=NORMAL): `swift run -c release kura-bench store`.

/// The benchmark model: a typical row of six columns.
struct BenchTrip: PersistentModel, Equatable {
  var id: Int
  var name: String
  var score: Double
  var isFavorite: Bool
  var createdAt: Date
  var note: String?
}

/// The same row with an index on `name`, for the predicate fetch over 1,000,000 rows.
struct IndexedTrip: PersistentModel, Equatable {
  var id: Int
  var name: String
  var score: Double
  var isFavorite: Bool
  var createdAt: Date
  var note: String?
  static var schema: Schema<IndexedTrip> { Schema(.index(\.name)) }
}

/// How many of `ids` `context` finds, each fetched by id in its own read and checked to be the
/// model asked for (as the C and libpq sides check theirs). Every Kura lookup loop of the
/// benchmarks is this one call site, so a run outside a measured region also does its one-time
/// lookup of the type metadata it uses.
func lookUpAll(_ ids: ArraySlice<Int>, in context: ModelContext) throws -> Int {
  var found = 0
  for id in ids where try context.model(for: id, as: BenchTrip.self)?.id == id { found += 1 }
  return found
}

/// `count` trips with ids from `start`: every third a favourite, every other one with a note.
func makeTrips(_ count: Int, from start: Int = 0) -> [BenchTrip] {
  (start..<(start + count)).map { index in
    BenchTrip(
      id: index, name: "trip-\(index)", score: Double(index) * 0.5, isFavorite: index % 3 == 0,
      createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)),
      note: index % 2 == 0 ? nil : "note \(index)")
  }
}

private let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// The `models` text of every history row the baselines write (Kura's form: the names of the
/// changed models as a JSON array).
let feedModels: StaticString = "[\"BenchTrip\"]"

/// Calls `body` with the change set of a save inserting `trip`, in the compact form Kura writes
/// (a format byte; the model's name; the inserted ids, then no updated and no deleted ones;
/// lengths and counts as single bytes here), built as C builds it: in a buffer on the stack, the
/// id's digits written by hand.
func withFeedChanges<Result>(
  of trip: BenchTrip, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
) rethrows -> Result {
  try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
    var count = 0
    func put(_ byte: UInt8) {
      buffer[count] = byte
      count += 1
    }
    put(1)
    put(9)
    for byte in "BenchTrip".utf8 { put(byte) }
    put(1)
    let lengthAt = count
    put(0)
    let digitsStart = count
    var value = UInt64(trip.id)
    repeat {
      put(UInt8(ascii: "0") + UInt8(value % 10))
      value /= 10
    } while value > 0
    var low = digitsStart
    var high = count - 1
    while low < high {
      buffer.swapAt(low, high)
      low += 1
      high -= 1
    }
    buffer[lengthAt] = UInt8(count - digitsStart)
    put(0)
    put(0)
    return try body(UnsafeBufferPointer(rebasing: buffer[..<count]))
  }
}

/// The hand-written C API baseline on one connection, opened with the flags Kura's connections
/// use (`SQLITE_OPEN_NOMUTEX`), with prepared BEGIN IMMEDIATE and COMMIT statements, and dates
/// stored as Kura stores them (seconds since the reference date, REAL).
private final class RawStore {
  let handle: OpaquePointer
  private(set) var begin: OpaquePointer?
  private(set) var commit: OpaquePointer?

  init(path: String) throws {
    var handle: OpaquePointer?
    guard
      sqlite3_open_v2(
        path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        == SQLITE_OK,
      let handle
    else { throw CocoaError(.fileReadUnknown) }
    self.handle = handle
    exec("PRAGMA journal_mode = WAL")
    exec("PRAGMA synchronous = NORMAL")
    exec(
      "CREATE TABLE IF NOT EXISTS raw (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, "
        + "score REAL NOT NULL, isFavorite INTEGER NOT NULL, createdAt REAL NOT NULL, note TEXT)")
    exec(
      "CREATE TABLE IF NOT EXISTS history (token INTEGER PRIMARY KEY, time REAL NOT NULL, "
        + "models TEXT NOT NULL, changes TEXT NOT NULL)")
    begin = prepare("BEGIN IMMEDIATE")
    commit = prepare("COMMIT")
  }

  deinit {
    sqlite3_finalize(begin)
    sqlite3_finalize(commit)
    sqlite3_close_v2(handle)
  }

  func exec(_ sql: String) { sqlite3_exec(handle, sql, nil, nil, nil) }

  /// Runs a prepared statement that returns no rows (BEGIN, COMMIT).
  func run(_ statement: OpaquePointer?) {
    sqlite3_step(statement)
    sqlite3_reset(statement)
  }

  func prepare(_ sql: String) -> OpaquePointer? {
    var statement: OpaquePointer?
    sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    return statement
  }

  func bindText(_ statement: OpaquePointer?, _ index: Int32, _ text: String) {
    var text = text
    text.withUTF8 { buffer in
      buffer.withMemoryRebound(to: CChar.self) {
        _ = sqlite3_bind_text(
          statement, index, $0.baseAddress, Int32($0.count), transientDestructor)
      }
    }
  }

  func insert(_ trips: [BenchTrip], statement: OpaquePointer?) {
    for trip in trips { insert(trip, statement: statement) }
  }

  func insert(_ trip: BenchTrip, statement: OpaquePointer?) {
    sqlite3_bind_int64(statement, 1, Int64(trip.id))
    bindText(statement, 2, trip.name)
    sqlite3_bind_double(statement, 3, trip.score)
    sqlite3_bind_int64(statement, 4, trip.isFavorite ? 1 : 0)
    sqlite3_bind_double(statement, 5, trip.createdAt.timeIntervalSinceReferenceDate)
    if let note = trip.note {
      bindText(statement, 6, note)
    } else {
      sqlite3_bind_null(statement, 6)
    }
    sqlite3_step(statement)
    sqlite3_reset(statement)
  }

  /// Appends the row a change feed needs for a save of `trip` to the table `history` (the shape
  /// of Kura's `kura_history`: the token is the rowid; the time; the model names as a JSON
  /// array; the change set as bytes: the model's name and the inserted id, length-prefixed).
  /// What a C programmer writing the same feed by hand writes, for the line that shows what the
  /// feed's row costs any implementation; `statement` is ``historySQL`` prepared.
  func appendHistory(for trip: BenchTrip, statement: OpaquePointer?) {
    sqlite3_bind_double(statement, 1, Date().timeIntervalSince1970)
    feedModels.withUTF8Buffer { models in
      models.withMemoryRebound(to: CChar.self) {
        _ = sqlite3_bind_text(statement, 2, $0.baseAddress, Int32($0.count), nil)
      }
    }
    withFeedChanges(of: trip) { changes in
      _ = sqlite3_bind_blob(statement, 3, changes.baseAddress, Int32(changes.count), nil)
      sqlite3_step(statement)
      sqlite3_reset(statement)
    }
  }

  static let historySQL = "INSERT INTO history (time, models, changes) VALUES (?, ?, ?)"

  static let insertSQL =
    "INSERT INTO raw (id, name, score, isFavorite, createdAt, note) VALUES (?, ?, ?, ?, ?, ?) "
    + "ON CONFLICT (id) DO UPDATE SET name = excluded.name, score = excluded.score, "
    + "isFavorite = excluded.isFavorite, createdAt = excluded.createdAt, note = excluded.note"

  func readTrip(_ statement: OpaquePointer?) -> BenchTrip {
    func text(_ column: Int32) -> String {
      let bytes = sqlite3_column_text(statement, column)
      let count = Int(sqlite3_column_bytes(statement, column))
      return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
    return BenchTrip(
      id: Int(sqlite3_column_int64(statement, 0)), name: text(1),
      score: sqlite3_column_double(statement, 2),
      isFavorite: sqlite3_column_int64(statement, 3) != 0,
      createdAt: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 4)),
      note: sqlite3_column_type(statement, 5) == SQLITE_NULL ? nil : text(5))
  }

  func fetchAll() -> [BenchTrip] {
    let statement = prepare("SELECT id, name, score, isFavorite, createdAt, note FROM raw")
    defer { sqlite3_finalize(statement) }
    var trips: [BenchTrip] = []
    while sqlite3_step(statement) == SQLITE_ROW { trips.append(readTrip(statement)) }
    return trips
  }
}

/// The CPU time this thread has used, which other processes' load does not inflate.
func threadCPUTime() -> Duration {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
}

/// Medians of `runs` runs of Kura and the baseline, alternating which goes first, so both see
/// the same machine load: the median wall-clock time, and the fastest run's thread CPU time
/// (robust when other processes share the cores). `prepare` runs before each measured run,
/// outside the timer, with `true` before Kura's (closing the previous run's store, making the
/// next one).
private func interleaved(
  _ name: String, target: Double?, runs: Int, prepare: (_ kura: Bool) throws -> Void = { _ in },
  kuraName: String = "kura", baselineName: String = "C API",
  kura: () throws -> Void, baseline: () throws -> Void
) throws {
  let clock = ContinuousClock()
  var samples: [[Duration]] = [[], [], [], []]
  func measure(_ offset: Int, _ body: () throws -> Void) throws {
    try prepare(offset == 0)
    let cpu = threadCPUTime()
    samples[offset].append(try clock.measure(body))
    samples[offset + 2].append(threadCPUTime() - cpu)
  }
  for run in 0..<runs {
    if run.isMultiple(of: 2) {
      try measure(0, kura)
      try measure(1, baseline)
    } else {
      try measure(1, baseline)
      try measure(0, kura)
    }
  }
  let medians = samples.map { $0.sorted()[runs / 2] }
  let fastest = samples.map { $0.min() ?? .zero }
  report(
    name, kura: medians[0], baseline: medians[1], baselineName: baselineName, target: target,
    kuraName: kuraName)
  report(
    "  (fastest run, thread CPU time)", kura: fastest[2], baseline: fastest[3],
    baselineName: baselineName, target: target, kuraName: kuraName)
}

/// The options every suite shares: `--rows N` (the store and postgres suites; default 100,000)
/// and `--profile WORKLOAD SIDE`.
struct StoreBenchmarkOptions {
  var rows = 100_000
  /// Whether `--rows` was given (the 1,000,000-row predicate and streaming runs are then left out).
  var rowsGiven = false
  /// `--profile WORKLOAD kura|c`: runs that one workload of the named suite once, inside
  /// `profiledRegion` (for `valgrind --tool=callgrind --toggle-collect='*profiledRegion*'`).
  var profile: (workload: String, side: String)?
  /// What is wrong with the options, if anything (a usage error).
  var problem: String?

  /// The options in `arguments`, and the arguments that are not these options.
  static func parse(_ arguments: [String]) -> (StoreBenchmarkOptions, [String]) {
    var options = StoreBenchmarkOptions()
    var rest: [String] = []
    var index = 0
    func fail(_ problem: String) {
      if options.problem == nil { options.problem = problem }
    }
    while index < arguments.count {
      let argument = arguments[index]
      if argument == "--rows" {
        let value = index + 1 < arguments.count ? arguments[index + 1] : nil
        let digits = value.map { FullWidthDigits.ascii($0).filter { $0 != "_" && $0 != "," } }
        if let digits, let rows = Int(digits), rows >= 1_000 {
          options.rows = rows
          options.rowsGiven = true
        } else {
          fail(
            (value.map { "`--rows \($0)` is not" } ?? "`--rows` needs")
              + " a whole number of at least 1,000, such as `--rows 100000`")
        }
        index += value == nil ? 1 : 2
      } else if argument == "--profile" {
        let values = arguments[(index + 1)...].prefix(2).prefix { !$0.hasPrefix("-") }
        if values.count == 2 {
          options.profile = (values[values.startIndex], values[values.startIndex + 1])
        } else {
          fail(
            "`--profile` needs a workload and a side (`kura` or `c`), such as "
              + "`kura-bench store --profile lookups kura`")
        }
        index += 1 + values.count
      } else {
        rest.append(argument)
        index += 1
      }
    }
    return (options, rest)
  }
}

/// `count` with thousands separators: `100,000`.
func formatted(_ count: Int) -> String {
  let digits = Array(String(count))
  var text = ""
  for (index, digit) in digits.enumerated() {
    if index > 0 && (digits.count - index).isMultiple(of: 3) { text += "," }
    text.append(digit)
  }
  return text
}

func runStoreBenchmarks() throws {
  let (options, _) = StoreBenchmarkOptions.parse(Array(CommandLine.arguments.dropFirst()))
  let directory = benchmarkDirectory("store")
  defer { try? FileManager.default.removeItem(at: directory) }
  let rows = options.rows
  let trips = makeTrips(rows)
  let count = formatted(rows)
  var runNumber = 0
  func freshPaths() -> (kura: URL, raw: String) {
    runNumber += 1
    return (
      directory.appendingPathComponent("kura-\(runNumber).sqlite"),
      directory.appendingPathComponent("raw-\(runNumber).sqlite").path
    )
  }
  func historyOff(_ url: URL) -> ModelConfiguration {
    var configuration = ModelConfiguration.url(url)
    configuration.historyRetention = .off
    return configuration
  }
  print("rows: \(count)")

  // 1. Bulk insert in one transaction. Opening and closing each store happen outside the timer
  // on both sides (`prepare`); the timed run is the transaction.
  var context: ModelContext?
  var raw: RawStore?
  var lastFiles: [Bool: String] = [:]
  func freshStore(kura: Bool, _ configure: (URL) -> ModelConfiguration) throws {
    if kura {
      context = nil
    } else {
      raw = nil
    }
    for suffix in ["", "-wal", "-shm", "-changes"] {
      if let file = lastFiles[kura] { try? FileManager.default.removeItem(atPath: file + suffix) }
    }
    let paths = freshPaths()
    lastFiles[kura] = kura ? paths.kura.path : paths.raw
    if kura {
      let opened = try ModelContainer(for: BenchTrip.self, configurations: configure(paths.kura))
      context = ModelContext(opened)
    } else {
      raw = try RawStore(path: paths.raw)
    }
  }
  // Targets (issue 25): insert ≤ 1.2× without history, fetch ≤ 1.3×, saves ≤ 1.2× of C writing
  // the same history row, lookups ≤ 1.15×.
  func bulkInsert(
    _ name: String, target: Double?, _ configure: @escaping (URL) -> ModelConfiguration
  ) throws {
    try interleaved(
      name, target: target, runs: 5, prepare: { try freshStore(kura: $0, configure) },
      kura: {
        guard let context else { return }
        try context.transaction { for trip in trips { try context.insert(trip) } }
      },
      baseline: {
        guard let raw else { return }
        let statement = raw.prepare(RawStore.insertSQL)
        raw.run(raw.begin)
        raw.insert(trips, statement: statement)
        raw.run(raw.commit)
        sqlite3_finalize(statement)
      })
  }
  try bulkInsert("insert \(count) models, no history", target: 1.2, historyOff)
  try bulkInsert("insert \(count) models, one transaction", target: nil) { .url($0) }
  // The last run's stores stay: the next runs read them. Both are filled, whichever ran last.
  guard let context, let raw else { return }

  // 2. Fetch all.
  var fetchedCount = 0
  try interleaved(
    "fetch all \(count) models", target: 1.3, runs: 7,
    kura: { fetchedCount = try context.fetch(FetchDescriptor<BenchTrip>()).count },
    baseline: { fetchedCount = raw.fetchAll().count })
  precondition(fetchedCount == trips.count, "fetched \(fetchedCount) of \(trips.count)")

  // 3. 1,000 single-model saves, each its own transaction (prepared BEGIN/COMMIT on the C side).
  var batch = 0
  let rawStatement = raw.prepare(RawStore.insertSQL)
  let historyStatement = raw.prepare(RawStore.historySQL)
  func kuraSaves(_ context: ModelContext) throws {
    batch += 1
    for trip in makeTrips(1_000, from: 1_000_000 * batch + rows) {
      try context.insert(trip)
      try context.save()
    }
  }
  /// The C side's saves; with `history`, each also writes the change feed's row (prepared,
  /// nothing else: no retention check).
  func cSaves(history: OpaquePointer? = nil) {
    batch += 1
    for trip in makeTrips(1_000, from: 1_000_000 * batch + rows) {
      raw.run(raw.begin)
      raw.insert(trip, statement: rawStatement)
      if let history { raw.appendHistory(for: trip, statement: history) }
      raw.run(raw.commit)
    }
  }
  func singleSaves(_ name: String, target: Double?, context: ModelContext) throws {
    try interleaved(
      name, target: target, runs: 7, kura: { try kuraSaves(context) }, baseline: { cSaves() })
  }
  try singleSaves("1,000 single-model saves", target: nil, context: context)
  // What the change feed's row costs any implementation: the C side writing, in each save's
  // transaction, the same history row Kura writes.
  try interleaved(
    "  C API writing the same history row too", target: nil, runs: 7, kuraName: "C+row",
    kura: { cSaves(history: historyStatement) }, baseline: { cSaves() })
  try interleaved(
    "  kura against that C API + history row", target: 1.2, runs: 7, baselineName: "C+row",
    kura: { try kuraSaves(context) }, baseline: { cSaves(history: historyStatement) })
  sqlite3_finalize(historyStatement)
  // The same store without the change feed: what the feed itself costs.
  if let url = context.container.url {
    let quiet = try ModelContainer(for: BenchTrip.self, configurations: historyOff(url))
    try singleSaves(
      "1,000 single-model saves, no history", target: nil, context: ModelContext(quiet))
  }
  sqlite3_finalize(rawStatement)

  // 4. 1,000 fetches by id, each in its own read.
  let ids = (0..<1_000).map { ($0 * 97) % trips.count }
  var found = 0
  let select = raw.prepare(
    "SELECT id, name, score, isFavorite, createdAt, note FROM raw WHERE id = ?")
  try interleaved(
    "1,000 fetches by id, each its own read", target: 1.15, runs: 9,
    kura: {
      found += try lookUpAll(ids[...], in: context)
    },
    baseline: {
      for id in ids {
        sqlite3_bind_int64(select, 1, Int64(id))
        if sqlite3_step(select) == SQLITE_ROW, raw.readTrip(select).id == id { found += 1 }
        sqlite3_reset(select)
      }
    })
  sqlite3_finalize(select)

  if !options.rowsGiven { try runLargeStoreBenchmarks(directory: directory) }
}

/// `kura-bench store --profile WORKLOAD SIDE`: fills a store of `rows` models when the workload
/// reads, then runs the workload once inside `profiledRegion`. Returns the number of operations
/// the region ran.
func profileStore(_ workload: String, kura: Bool, rows: Int) throws -> Int {
  let directory = benchmarkDirectory("store-profile")
  defer { try? FileManager.default.removeItem(at: directory) }
  let trips = makeTrips(rows)
  let url = directory.appendingPathComponent("profile.sqlite")
  var configuration = ModelConfiguration.url(url)
  if workload.hasSuffix("-no-history") { configuration.historyRetention = .off }
  let container = try ModelContainer(for: BenchTrip.self, configurations: configuration)
  let context = ModelContext(container)
  let raw = try RawStore(path: directory.appendingPathComponent("profile-raw.sqlite").path)
  let statement = raw.prepare(RawStore.insertSQL)
  let history = raw.prepare(RawStore.historySQL)
  defer {
    sqlite3_finalize(statement)
    sqlite3_finalize(history)
  }
  if !workload.hasPrefix("insert") {
    if kura {
      try context.transaction { for trip in trips { try context.insert(trip) } }
    } else {
      raw.run(raw.begin)
      raw.insert(trips, statement: statement)
      raw.run(raw.commit)
    }
  }
  if workload.hasPrefix("insert") {
    // Kura's first insert builds the model's row plan and prepares its upsert, once per
    // process, as the C side prepares its statement above: outside the region, with one row
    // written before it on both sides (id -1: the region's rows, 0 and up, still append to
    // the table's B-tree, as they would to an empty one).
    let first = makeTrips(1, from: -1)
    if kura {
      try context.transaction { try context.insert(first[0]) }
    } else {
      raw.run(raw.begin)
      raw.insert(first, statement: statement)
      raw.run(raw.commit)
    }
  }
  let saves = makeTrips(1_000, from: 10_000_000)
  let ids = (0..<1_000).map { ($0 * 97) % trips.count }
  let select = raw.prepare(
    "SELECT id, name, score, isFavorite, createdAt, note FROM raw WHERE id = ?")
  defer { sqlite3_finalize(select) }
  var count = 0
  // Kura's reader connection opens, and prepares its statement, on first use: outside the
  // region, as the C side's are; so does the loop's one-time lookup of the type metadata it
  // uses (Swift's runtime finds it by name the first time a call site needs it).
  if workload == "lookups", kura { _ = try lookUpAll(ids[0..<1], in: context) }
  var operations = 0
  try profiledRegion {
    switch (workload, kura) {
    case ("insert", true), ("insert-no-history", true):
      try context.transaction { for trip in trips { try context.insert(trip) } }
      operations = trips.count
    case ("insert", false), ("insert-no-history", false):
      raw.run(raw.begin)
      raw.insert(trips, statement: statement)
      raw.run(raw.commit)
      operations = trips.count
    case ("fetch", true):
      count = try context.fetch(FetchDescriptor<BenchTrip>()).count
      operations = count
    case ("fetch", false):
      count = raw.fetchAll().count
      operations = count
    case ("saves", true), ("saves-no-history", true):
      for trip in saves {
        try context.insert(trip)
        try context.save()
      }
      operations = saves.count
    case ("saves", false), ("saves-no-history", false):
      // With history, C writes the change feed's row in each transaction as Kura does.
      let writesHistory = workload == "saves"
      for trip in saves {
        raw.run(raw.begin)
        raw.insert(trip, statement: statement)
        if writesHistory { raw.appendHistory(for: trip, statement: history) }
        raw.run(raw.commit)
      }
      operations = saves.count
    case ("lookups", true):
      count = try lookUpAll(ids[...], in: context)
      operations = ids.count
    case ("lookups", false):
      for id in ids {
        sqlite3_bind_int64(select, 1, Int64(id))
        if sqlite3_step(select) == SQLITE_ROW, raw.readTrip(select).id == id { count += 1 }
        sqlite3_reset(select)
      }
      operations = ids.count
    default: break
    }
  }
  keep(count)
  return operations
}

/// Predicate fetch and streaming over 1,000,000 rows (the rows are written with the C API).
private func runLargeStoreBenchmarks(directory: URL) throws {
  let url = directory.appendingPathComponent("million.sqlite")
  let container = try ModelContainer(for: IndexedTrip.self, configurations: .url(url))
  // Rows are written through Kura's SQLite layer (its connections know the string collation the
  // index uses); this setup is not measured.
  try container.writeRowsForBenchmark(count: 1_000_000)
  let context = ModelContext(container)
  var hits = 0
  let name = "trip-765432"
  let descriptor = FetchDescriptor<IndexedTrip>(
    predicate: #Predicate { $0.name == name }, allowsInMemoryFallback: false)
  let predicateFetch = try median(runs: 11) { hits = try context.fetch(descriptor).count }
  precondition(hits == 1, "predicate fetch found \(hits) rows")
  print(
    "predicate fetch on an indexed column, 1,000,000 rows".padding(
      toLength: 44, withPad: " ", startingAt: 0)
      + " kura \(milliseconds(predicateFetch))  (target ≤ 1 ms: "
      + "\(seconds(predicateFetch) <= 0.001 ? "met" : "MISSED"))")

  // Streaming runs in a child process of its own, so its peak memory is not the peak this
  // process reached earlier (100,000 models in memory, the bulk insert's pending log).
  let child = Process()
  child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  child.environment = ProcessInfo.processInfo.environment.merging(
    ["KURA_BENCH_CHILD": "store-streaming", "KURA_BENCH_STORE": url.path]) { $1 }
  let output = Pipe()
  child.standardOutput = output
  try child.run()
  let line = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  child.waitUntilExit()
  precondition(child.terminationStatus == 0, "the streaming child failed: \(line)")
  print(line, terminator: "")
}

/// The streaming benchmark's child process: opens the 1,000,000-row store at `path`, streams it
/// and prints the result line with this process's peak memory (the whole process, from launch).
func runStreamingChild(_ path: String) throws {
  let container = try ModelContainer(
    for: IndexedTrip.self, configurations: .url(URL(fileURLWithPath: path)))
  let context = ModelContext(container)
  let before = currentResidentBytes()
  var streamed = 0
  let streaming = try ContinuousClock().measure {
    try context.enumerate(FetchDescriptor<IndexedTrip>()) { _ in streamed += 1 }
  }
  precondition(streamed == 1_000_000, "streamed \(streamed) rows")
  let peak = peakResidentBytes()
  let growth = max(0, peak - before)
  print(
    "streaming 1,000,000 rows (own process)".padding(toLength: 44, withPad: " ", startingAt: 0)
      + " kura \(milliseconds(streaming))  peak memory \(mebibytes(peak)) "
      + "(\(mebibytes(before)) before streaming, growth \(mebibytes(growth)))"
      + "  (target < 50 MB: \(peak < 50_000_000 ? "met" : "MISSED"))")
}

private func mebibytes(_ bytes: Int) -> String {
  String(format: "%.1f MiB", Double(bytes) / 1_048_576)
}

/// Resident memory of this process now (VmRSS), in bytes; 0 where unknown.
private func currentResidentBytes() -> Int {
  #if os(Linux)
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      return 0
    }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
      return (Int(line.filter(\.isNumber)) ?? 0) * 1024
    }
  #endif
  return 0
}

extension ModelContainer {
  /// Writes `count` rows of `IndexedTrip` in one transaction, by hand-bound statements.
  fileprivate func writeRowsForBenchmark(count: Int) throws {
    guard let url else { return }
    let connection = try Connection(path: url.path)
    try connection.transaction {
      let statement = try connection.prepare(
        "INSERT INTO IndexedTrip (id, name, score, isFavorite, createdAt, note) "
          + "VALUES (?, ?, ?, ?, ?, ?)")
      for start in stride(from: 0, to: count, by: 100_000) {
        for trip in makeTrips(min(100_000, count - start), from: start) {
          statement.reset()
          try statement.bind(Int64(trip.id), at: 1)
          try statement.bind(trip.name, at: 2)
          try statement.bind(trip.score, at: 3)
          try statement.bind(value: trip.isFavorite, at: 4)
          try statement.bind(trip.createdAt.timeIntervalSinceReferenceDate, at: 5)
          try statement.bind(value: trip.note, at: 6)
          try statement.execute()
        }
      }
    }
  }
}
