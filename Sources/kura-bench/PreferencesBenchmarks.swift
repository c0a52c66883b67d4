import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import KuraSyncServer

#if canImport(CSQLite)
  import CSQLite
#else
  import SQLite3
#endif

// Preferences against Foundation's UserDefaults, measured in the same run.

/// Keeps a value alive so the optimizer can't drop the work that produced it.
@inline(never)
func keep<Value>(_ value: Value) { withExtendedLifetime(value) {} }

/// Microseconds per operation.
private func microseconds(_ duration: Duration, per count: Int) -> Double {
  seconds(duration) * 1e6 / Double(count)
}

private func line(_ text: String) {
  print(text)
  fflush(nil)
}

private func perOperation(
  _ name: String, kura: Duration, baseline: Duration, count: Int, baselineName: String,
  target: Double?
) {
  let k = microseconds(kura, per: count)
  let b = microseconds(baseline, per: count)
  if outputsJSON {
    return emitJSON([
      "workload": .string(name), "side": .string("kura"), "operations": .integer(count),
      "kura_ns": .integer(nanoseconds(kura)), "baseline": .string(baselineName),
      "baseline_ns": .integer(nanoseconds(baseline)), "ratio": .number(k / b),
      "target_us_per_operation": target.map { .number($0) } ?? .null,
    ])
  }
  var text =
    "\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) kura \(String(format: "%.3f", k)) µs"
    + "  \(baselineName) \(String(format: "%.3f", b)) µs  ratio \(String(format: "%.2f", k / b))×"
  if let target {
    text += "  (target ≤ \(target) µs: \(k <= target ? "met" : "MISSED"))"
  }
  line(text)
}

func runPreferencesBenchmarks() throws {
  // Absolute times depend on what else the machine runs; the same-run ratios are what compare.
  let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
    .split(separator: " ").prefix(3).joined(separator: " ")
  line(
    "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, "
      + "load average \(load ?? "unknown")")
  let folder = benchmarkDirectory("preferences")
  defer { try? FileManager.default.removeItem(at: folder) }
  let suite = "kura-bench-\(UUID().uuidString.prefix(8))"
  guard let defaults = UserDefaults(suiteName: suite) else {
    line("UserDefaults(suiteName:) returned nil; skipping")
    return
  }
  defer { defaults.removePersistentDomain(forName: suite) }
  let preferences = try Preferences(fileURL: folder.appendingPathComponent("bench.sqlite"))
  let key = Preferences.Key<Int>("launchCount", default: 0)
  try preferences.set(7, for: key)
  defaults.set(7, forKey: "launchCount")

  // 1. Reading an Int key (served from memory after one atomic load of the change counter).
  let reads = 1_000_000
  let kuraRead = median {
    var sum = 0
    for _ in 0..<reads { sum &+= preferences[key] }
    keep(sum)
  }
  let defaultsRead = median {
    var sum = 0
    for _ in 0..<reads { sum &+= defaults.integer(forKey: "launchCount") }
    keep(sum)
  }
  perOperation(
    "read an Int key", kura: kuraRead, baseline: defaultsRead, count: reads,
    baselineName: "UserDefaults", target: 0.2)

  // 2. A crash-durable set (a committed WAL transaction) against UserDefaults' memory-only set.
  let writes = 2_000
  var counter = 0
  let kuraSet = try median {
    for _ in 0..<writes {
      counter += 1
      try preferences.set(counter, for: key)
    }
  }
  let defaultsSet = median {
    for _ in 0..<writes {
      counter += 1
      defaults.set(counter, forKey: "launchCount")
    }
  }
  perOperation(
    "durable set of an Int key", kura: kuraSet, baseline: defaultsSet, count: writes,
    baselineName: "UserDefaults", target: 30)
  line("  (UserDefaults' set is memory-only: on Linux it is lost unless synchronize() follows)")
  // The floor: one bare write transaction of the SQLite layer on the same file system.
  let raw = try DatabasePool(path: folder.appendingPathComponent("raw.sqlite").path)
  try raw.write { db in try db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v)") }
  let rawSet = try median {
    for index in 0..<writes {
      try raw.write { db in
        try db.run("INSERT OR REPLACE INTO t (k, v) VALUES ('k', ?)", [.integer(Int64(index))])
      }
    }
  }
  line(
    "  floor: a bare DatabasePool write transaction: "
      + "\(String(format: "%.1f", microseconds(rawSet, per: writes))) µs")
  let bare = bareCommitFloor(
    path: folder.appendingPathComponent("bare.sqlite").path, count: writes)
  line(
    "  floor: a bare single-row SQLite commit (C API, same pragmas): "
      + "\(String(format: "%.1f", microseconds(bare, per: writes))) µs; durable set = "
      + "\(String(format: "%.2f", seconds(kuraSet) / max(seconds(bare), 1e-12)))× it"
      + " (target ≤ 1.2× or ≤ 30 µs)")
  let synchronized = median(runs: 3) {
    for _ in 0..<200 {
      counter += 1
      defaults.set(counter, forKey: "launchCount")
      defaults.synchronize()
    }
  }
  line(
    "  UserDefaults set + synchronize(): \(String(format: "%.1f", microseconds(synchronized, per: 200))) µs"
  )
  let unwatched = try Preferences(fileURL: folder.appendingPathComponent("unwatched.sqlite"))
  let unwatchedSet = try median {
    for _ in 0..<writes {
      counter += 1
      try unwatched.set(counter, for: key)
    }
  }
  line(
    "  set on a suite no one reads here (no file-watch thread woken by each write): "
      + "\(String(format: "%.1f", microseconds(unwatchedSet, per: writes))) µs")
  let kuraUpdate = try median {
    for _ in 0..<writes { try preferences.update(key) { $0 + 1 } }
  }
  line(
    "  Kura update(_:) (atomic read-modify-write): "
      + "\(String(format: "%.1f", microseconds(kuraUpdate, per: writes))) µs")

  // 3. Many distinct keys: time per key must stay flat (linear total).
  for count in [2_500, 5_000, 10_000] {
    let manyKuraURL = folder.appendingPathComponent("many-\(count).sqlite")
    let many = try Preferences(fileURL: manyKuraURL)
    let kuraTime = try ContinuousClock().measure {
      try many.batch { batch in
        for index in 0..<count { try batch.setValue(.integer(Int64(index)), forKey: "key\(index)") }
      }
    }
    let manyDefaults = UserDefaults(suiteName: "\(suite)-\(count)") ?? defaults
    let defaultsTime = ContinuousClock().measure {
      for index in 0..<count { manyDefaults.set(index, forKey: "key\(index)") }
    }
    manyDefaults.removePersistentDomain(forName: "\(suite)-\(count)")
    perOperation(
      "\(count) distinct keys, per key", kura: kuraTime, baseline: defaultsTime, count: count,
      baselineName: "UserDefaults", target: nil)
  }
  // 100,000 keys, one transaction each, timed by quarter: flat quarters mean linear growth.
  let many = try Preferences(fileURL: folder.appendingPathComponent("many-100000.sqlite"))
  var quarters: [String] = []
  var total = Duration.zero
  for quarter in 0..<4 {
    let range = (quarter * 25_000)..<((quarter + 1) * 25_000)
    let time = try ContinuousClock().measure {
      for index in range { try many.setValue(.integer(Int64(index)), forKey: "key\(index)") }
    }
    total += time
    quarters.append(String(format: "%.1f", microseconds(time, per: range.count)))
  }
  let readTime = ContinuousClock().measure {
    var sum = 0
    for index in 0..<100_000 { sum &+= many[Preferences.Key<Int>("key\(index)", default: 0)] }
    keep(sum)
  }
  line(
    "100000 keys, one transaction each: set µs/key by quarter \(quarters.joined(separator: " / "))"
      + " (total \(milliseconds(total))); first read of each key "
      + "\(String(format: "%.2f", microseconds(readTime, per: 100_000))) µs")

  // 4. Change latency: from a set in one instance to the observer of another (inotify wake-up).
  let url = folder.appendingPathComponent("latency.sqlite")
  let writer = try Preferences(fileURL: url)
  let observed = try Preferences(fileURL: url)
  let signal = DispatchSemaphore(value: 0)
  let changes = observed.changedKeys
  let observation = Task { for await _ in changes { signal.signal() } }
  var samples: [Duration] = []
  for index in 0..<200 {
    let start = ContinuousClock.now
    try writer.set(index, for: key)
    _ = signal.wait(timeout: .now() + 1)
    samples.append(ContinuousClock.now - start)
  }
  observation.cancel()
  samples.sort()
  line(
    "change latency, other instance (set → observer)  median \(milliseconds(samples[100]))"
      + "  max \(milliseconds(samples[199]))  (target ≤ 100 ms)")
  try crossProcessLatency(folder: folder, key: key)
  line("  (UserDefaults never notifies another process of a change)")
}

/// Latency from a set here to a line printed by `kura defaults watch` in another process.
private func crossProcessLatency(folder: URL, key: Preferences.Key<Int>) throws {
  let kuraURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("kura")
  guard FileManager.default.isExecutableFile(atPath: kuraURL.path) else {
    line("change latency across processes: build `kura` in this configuration to measure it")
    return
  }
  var environment = ProcessInfo.processInfo.environment
  environment["KURA_HOME"] = folder.appendingPathComponent("home").path
  let shared = try Preferences(suite: "group.kura.bench", environment: environment)
  try shared.set(0, for: key)
  let process = Process()
  process.executableURL = kuraURL
  process.arguments = ["defaults", "watch", "group.kura.bench", key.name]
  process.environment = environment
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  defer {
    process.terminate()
    process.waitUntilExit()
  }
  _ = errors.fileHandleForReading.availableData  // "Watching …": the watcher is ready
  var samples: [Duration] = []
  var pending = Data()
  for index in 1...100 {
    let start = ContinuousClock.now
    try shared.set(index, for: key)
    let expected = Data("\(key.name) = \(index)\n".utf8)
    while pending.range(of: expected) == nil {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { return line("change latency across processes: the watcher stopped") }
      pending.append(chunk)
    }
    pending.removeAll()
    samples.append(ContinuousClock.now - start)
  }
  samples.sort()
  line(
    "change latency, other process (set → watch line) median \(milliseconds(samples[50]))"
      + "  max \(milliseconds(samples[99]))  (target ≤ 100 ms)")
}

/// `kura-bench preferences --profile WORKLOAD SIDE`: reading an Int key, or a durable set of
/// it, by Kura or by a C API program on a table of the same shape (`kura_preference`: key,
/// type, value, version). C reads the stored row with a prepared SELECT on its own
/// connection; it sets a value as Kura does, in one `BEGIN IMMEDIATE` transaction that reads
/// the highest version and upserts the row with the next one. Returns the number of
/// operations the region ran.
func profilePreferences(_ workload: String, kura: Bool) throws -> Int {
  let folder = benchmarkDirectory("preferences-profile")
  defer { try? FileManager.default.removeItem(at: folder) }
  let key = Preferences.Key<Int>("launchCount", default: 0)
  let reads = 10_000
  let writes = 200
  var sum = 0
  var operations = 0
  if kura {
    let preferences = try Preferences(fileURL: folder.appendingPathComponent("bench.sqlite"))
    try preferences.set(7, for: key)
    sum &+= preferences[key]
    try profiledRegion {
      if workload == "read" {
        for _ in 0..<reads { sum &+= preferences[key] }
        operations = reads
      } else if workload == "set" {
        for value in 0..<writes { try preferences.set(value, for: key) }
        operations = writes
      }
    }
  } else {
    let table = RawPreferences(path: folder.appendingPathComponent("raw.sqlite").path)
    table.set(7, key: key.name)
    sum &+= Int(table.integer(key: key.name))
    profiledRegion {
      if workload == "read" {
        for _ in 0..<reads { sum &+= Int(table.integer(key: key.name)) }
        operations = reads
      } else if workload == "set" {
        for value in 0..<writes { table.set(Int64(value), key: key.name) }
        operations = writes
      }
    }
  }
  keep(sum)
  return operations
}

/// A preference table written and read through the C API alone, with Kura's pragmas (WAL,
/// synchronous=NORMAL) and prepared statements.
private final class RawPreferences {
  private let db: OpaquePointer
  private var statements: [OpaquePointer?] = []
  private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  init(path: String) {
    var handle: OpaquePointer?
    sqlite3_open_v2(
      path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
    guard let handle else { fatalError("cannot open \(path)") }
    db = handle
    sqlite3_exec(
      db,
      """
      PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
      CREATE TABLE kura_preference (key TEXT NOT NULL PRIMARY KEY, type TEXT, value,
        version INTEGER NOT NULL) WITHOUT ROWID;
      CREATE INDEX kura_preference_version ON kura_preference (version);
      """, nil, nil, nil)
    for sql in [
      "BEGIN IMMEDIATE", "SELECT max(version) FROM kura_preference",
      "INSERT INTO kura_preference (key, type, value, version) VALUES (?, 'integer', ?, ?) "
        + "ON CONFLICT (key) DO UPDATE SET type = excluded.type, value = excluded.value, "
        + "version = excluded.version",
      "COMMIT",
      "SELECT type, value FROM kura_preference WHERE key = ? AND type IS NOT NULL",
    ] {
      var statement: OpaquePointer?
      sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
      statements.append(statement)
    }
  }

  deinit {
    for statement in statements { sqlite3_finalize(statement) }
    sqlite3_close_v2(db)
  }

  private func bind(_ key: String, to statement: OpaquePointer?) {
    var key = key
    key.withUTF8 { buffer in
      buffer.withMemoryRebound(to: CChar.self) {
        _ = sqlite3_bind_text(statement, 1, $0.baseAddress, Int32($0.count), transient)
      }
    }
  }

  /// Stores `value` under `key` durably: one write transaction, the row's version one above
  /// the highest.
  func set(_ value: Int64, key: String) {
    sqlite3_step(statements[0])
    sqlite3_reset(statements[0])
    sqlite3_step(statements[1])
    let latest = sqlite3_column_int64(statements[1], 0)
    sqlite3_reset(statements[1])
    bind(key, to: statements[2])
    sqlite3_bind_int64(statements[2], 2, value)
    sqlite3_bind_int64(statements[2], 3, latest + 1)
    sqlite3_step(statements[2])
    sqlite3_reset(statements[2])
    sqlite3_step(statements[3])
    sqlite3_reset(statements[3])
  }

  /// The integer stored under `key` (0 when none), read from the file.
  func integer(key: String) -> Int64 {
    bind(key, to: statements[4])
    var value: Int64 = 0
    if sqlite3_step(statements[4]) == SQLITE_ROW {
      let type = sqlite3_column_text(statements[4], 0)
      if let type, strcmp(type, "integer") == 0 { value = sqlite3_column_int64(statements[4], 1) }
    }
    sqlite3_reset(statements[4])
    return value
  }
}
