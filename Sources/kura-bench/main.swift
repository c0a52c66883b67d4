import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import KuraSyncServer

// `swift run -c release kura-bench [suite …]`: runs the named suites (all when none is named)
// and prints, for each workload, Kura's median, the baseline's median and their ratio.
// Each area adds its suite in a file of its own and lists it here.

var suites: [(name: String, run: () throws -> Void)] = [
  ("sqlite", runSQLiteBenchmarks),
  ("documents", runDocumentBenchmarks),
  ("store", runStoreBenchmarks),
  ("preferences", runPreferencesBenchmarks),
  ("relations", runRelationsBenchmarks),
  ("terminal", runTerminalBenchmarks),
  ("watchers", runWatcherBenchmarks),
  ("sync", runSyncBenchmarks),
  ("studio", runStudioBenchmarks),
]
#if canImport(CLibPQ)
  // The model store on PostgreSQL (PostgresBenchmarks.swift), where libpq is.
  suites.insert(("postgres", runPostgresBenchmarks), at: 3)
#endif

// The writer child of the cross-process live-query benchmark (RelationsBenchmarks.swift).
if ProcessInfo.processInfo.environment["KURA_BENCH_CHILD"] == "store-streaming" {
  try runStreamingChild(ProcessInfo.processInfo.environment["KURA_BENCH_STORE"] ?? "")
  exit(0)
}
if ProcessInfo.processInfo.environment["KURA_BENCH_CHILD"] == "live-writer" {
  try runLiveWriterChild(
    .url(URL(fileURLWithPath: ProcessInfo.processInfo.environment["KURA_BENCH_STORE"] ?? "")))
  exit(0)
}

#if canImport(CLibPQ)
  // The children of the postgres suite's cross-process measurements (PostgresBenchmarks.swift).
  if ProcessInfo.processInfo.environment["KURA_BENCH_CHILD"] == "postgres-live-writer" {
    try runLiveWriterChild(
      .postgres(connectionString: ProcessInfo.processInfo.environment["KURA_BENCH_STORE"] ?? ""))
    exit(0)
  }
  if ProcessInfo.processInfo.environment["KURA_BENCH_CHILD"] == "postgres-writer" {
    try runPostgresWriterChild(ProcessInfo.processInfo.environment)
    exit(0)
  }
#endif

/// Writes `kura-bench: error: <message>` to standard error and exits with status 64.
func usageError(_ message: String, help: String = "kura-bench --help") -> Never {
  FileHandle.standardError.write(Data("kura-bench: error: \(message). See `\(help)`.\n".utf8))
  exit(64)
}

/// What each suite measures, for `kura-bench --help` and `kura-bench <suite> --help`.
let suiteOverviews: [String: String] = [
  "sqlite": """
  The SQLite layer (DatabasePool, Connection, Statement) against direct C API calls on the
  same rows and pragmas: a 100,000-row bulk insert, fetching them all into structs, 1,000
  single-row commits and 1,000 primary-key lookups, each its own read.
  """,
  "documents": """
  DocumentStore: 10,000 durable appends (and the seed's load-append-rewrite on 1,000),
  appends durable against power loss, loading a 10,000-entry document, and the delay before
  another store sees a change.
  """,
  "store": """
  The model store on SQLite against the C API on the same rows and pragmas: bulk insert,
  fetch all, 1,000 single saves (with the change feed's row on both sides, and without
  history), 1,000 fetches by id; then a predicate fetch and streaming over 1,000,000 rows
  (left out when --rows is given).
  """,
  "preferences": """
  Preferences against Foundation's UserDefaults: reading a key, a durable set (with the
  floor of a bare SQLite commit), many keys, and change latency to another instance and to
  another process.
  """,
  "relations": """
  Relationships, migrations and live queries: cascade deletes, 1,000,000-row migrations,
  live-query latency across processes.
  """,
  "terminal": """
  The terminal app's redraw per keystroke: only the changed cells against the whole screen.
  """,
  "watchers": """
  The CPU an idle process spends observing 1,000 preference suites and 1,000 documents, and
  how quickly a change to the last one reaches its observer.
  """,
  "sync": """
  Sync: 1,000 single saves with sync on against sync off (target ≤ 1.3×); with PostgreSQL,
  a real sync server on loopback (fsync on): initial sync rows/s, a save on one replica
  until another replica's live query shows it (median, p99), changes/s with 4 replicas.
  """,
  "studio": """
  Kura Studio on a 1,000,000-row model, on SQLite and on PostgreSQL (a throwaway cluster): the
  server's time to answer a page of 50 rows (first page, a next page deep in the table, sorted
  by an indexed property, filtered), target ≤ 100 ms each, against the same rows read by one
  SQL statement.
  """,
  "postgres": """
  The model store on PostgreSQL against the same statements through libpq's C API
  (`kura-bench postgres --help` says more).
  """,
]

/// `kura-bench <suite> --help`.
func suiteHelp(_ suite: String) -> String {
  let profiles = profileWorkloads(of: suite) != nil
  var text = """
    OVERVIEW: \(suiteOverviews[suite] ?? suite)

    USAGE: kura-bench \(suite)\(suite == "store" ? " [--rows <n>]" : "")\(suite == "sync" ? " [--sync-rows <n>] [--devices <n> [--servers <n>] [--seconds <s>]]" : "") [--json]
    """
  if profiles { text += "\n       kura-bench \(suite) --profile <workload> kura|c" }
  text += "\n\nOPTIONS:\n"
  if suite == "store" {
    text += """
        --rows <n>          Rows of the workloads (default 100,000, at least 1,000; full-width
                            digits are accepted). The 1,000,000-row runs are then left out.

      """
  }
  if suite == "sync" {
    text += """
        --sync-rows <n>     Rows of the initial sync (default 100,000, at least 10), saved 10
                            per save on one replica, pushed, then pulled by a new one.
        --devices <n>       Instead: n simulated devices (raw HTTP clients, each with a token
                            and replica of its own) in n/10 spaces pushing one-change saves to
                            two `kura sync serve` processes (the `kura` built next to
                            kura-bench) on one PostgreSQL: saves/s, push p50/p99, memory.
        --servers <n>       How many `kura sync serve` processes (default 2).
        --seconds <s>       How long the devices push (default 10).

      """
  }
  if profiles {
    text += """
        --profile <workload> kura|c
                            Runs one workload once, by Kura (`kura`) or by the baseline (`c`),
                            inside a region that turns callgrind's instrumentation on and off
                            (`valgrind --tool=callgrind --instr-atstart=no`), and prints how many
                            operations it ran (scripts/check-speed divides by it).

      """
  }
  text += """
      --json              Writes each line as a JSON object (JSON Lines).
      -h, --help          Shows this text.


    """
  if profiles {
    text += """
      WORKLOADS (--profile; what one operation is):
      \(profileHelp(of: suite))


      """
  }
  text += """
    EXIT STATUS: 0 on success, 1 when the suite fails, 64 for a bad argument.
    Build with `-c release` for meaningful figures.
    """
  return text
}

var arguments = Array(CommandLine.arguments.dropFirst())
// `--sync-rows <n>`: the sync suite's initial-sync rows (SyncServerBenchmarks.swift).
if let at = arguments.firstIndex(of: "--sync-rows") {
  guard at + 1 < arguments.count, let rows = Int(arguments[at + 1]), rows >= 10 else {
    usageError("`--sync-rows` takes a number of rows, 10 or more", help: "kura-bench sync --help")
  }
  #if canImport(CLibPQ)
    syncBenchmarkRows = rows
  #endif
  arguments.removeSubrange(at...(at + 1))
}
// `--devices <n>`, `--servers <n>` and `--seconds <s>`: the sync suite's simulated devices
// instead of its usual workloads (SyncDevicesBenchmark.swift).
for (option, least) in [("--devices", 2), ("--seconds", 1), ("--servers", 1)] {
  guard let at = arguments.firstIndex(of: option) else { continue }
  guard at + 1 < arguments.count, let value = Int(arguments[at + 1]), value >= least else {
    usageError("`\(option)` takes a number, \(least) or more", help: "kura-bench sync --help")
  }
  #if canImport(CLibPQ) && canImport(Glibc)
    switch option {
    case "--devices": syncBenchmarkDevices = value
    case "--servers": syncBenchmarkDeviceServers = value
    default: syncBenchmarkDeviceSeconds = value
    }
  #endif
  arguments.removeSubrange(at...(at + 1))
}
var (storeOptions, remaining) = StoreBenchmarkOptions.parse(arguments)
#if canImport(CLibPQ)
  let (postgresOptions, postgresRest, postgresError) = PostgresBenchmarkOptions.parse(remaining)
  remaining = postgresRest
#endif
let wantsHelp = remaining.contains("--help") || remaining.contains("-h")
remaining.removeAll { $0 == "--help" || $0 == "-h" || $0 == "--json" }
if remaining.contains("--version") {
  print("kura-bench \(KuraLibrary.version)")
  exit(0)
}
if let option = remaining.first(where: { $0.hasPrefix("-") }) {
  usageError("unknown option `\(option)`")
}
let suiteNames = suites.map(\.name)
if let unknown = remaining.first(where: { !suiteNames.contains($0) }) {
  usageError(
    "unknown suite `\(unknown)`; suites: \(suiteNames.joined(separator: ", "))")
}
let requested = Set(remaining)
if wantsHelp, requested.count == 1, let suite = requested.first {
  #if canImport(CLibPQ)
    if suite == "postgres" {
      print(PostgresBenchmarkOptions.usage)
      exit(0)
    }
  #endif
  print(suiteHelp(suite))
  exit(0)
}
if wantsHelp {
  print(
    """
    OVERVIEW: Measures Kura against plain baselines and prints each workload's medians and ratio.

    USAGE: kura-bench [<suite> …] [--rows <n>] [--url <url>] [--json]
           kura-bench <suite> --profile <workload> kura|c

    OPTIONS:
      --rows <n>          Rows of the store (and postgres) workloads (default 100,000, at least
                          1,000, full-width digits accepted; the 1,000,000-row predicate and
                          streaming runs then are left out).
      --profile <workload> kura|c
                          Runs one workload of one suite once, by Kura or by its baseline,
                          inside a region that turns callgrind's instrumentation on and off
                          (`valgrind --tool=callgrind --instr-atstart=no`; scripts/check-speed);
                          `kura-bench <suite> --help` lists the suite's workloads.
      --url <url>         The PostgreSQL server of the postgres suite (default:
                          KURA_BENCH_POSTGRES_URL, else a throwaway cluster of its own, fsync on).
      --json              Writes each line as a JSON object (JSON Lines): a measurement with
                          its exact figures (medians in nanoseconds, the ratio, the target), a
                          note with its text.
      -h, --help          Shows this text; `kura-bench <suite> --help` shows a suite's.
      --version           Shows the version.

    SUITES (all when none is named):
    \(suiteNames.map { "  " + $0 }.joined(separator: "\n"))

    ENVIRONMENT:
      KURA_BENCH_SAMPLES=1  Also prints every run's wall time of each compared pair, in ms
                          (to tell a side's own cost from the machine's noise).

    EXIT STATUS: 0 on success, 1 when a suite fails, 64 for an unknown suite or a bad argument.
    Build with `-c release` for meaningful figures.
    """)
  exit(0)
}
if let problem = storeOptions.problem {
  usageError(problem)
}
#if canImport(CLibPQ)
  if let problem = postgresError {
    usageError(problem, help: "kura-bench postgres --help")
  }
  if postgresOptions.url != nil, !requested.isEmpty, !requested.contains("postgres") {
    usageError("`--url` is an option of the postgres suite, which is not among the suites named")
  }
#endif
if let (workload, side) = storeOptions.profile {
  guard requested.count == 1, let suite = requested.first else {
    usageError(
      "`--profile` runs one workload of one suite: name the suite, such as "
        + "`kura-bench store --profile lookups kura`")
  }
  guard let workloads = profileWorkloads(of: suite) else {
    usageError(
      "the \(suite) suite has no workloads to profile; suites that have: "
        + profileWorkloads.map(\.key).joined(separator: ", "))
  }
  guard workloads.contains(where: { $0.key == workload }) else {
    usageError(
      "unknown profile workload `\(workload)` of the \(suite) suite; workloads: "
        + workloads.map(\.key).joined(separator: ", "), help: "kura-bench \(suite) --help")
  }
  guard side == "kura" || side == "c" else {
    usageError(
      "unknown profile side `\(side)`: `kura` (Kura) or `c` (the baseline)",
      help: "kura-bench \(suite) --help")
  }
  do {
    try runProfile(
      ProfileRequest(suite: suite, workload: workload, kura: side == "kura"),
      rows: storeOptions.rowsGiven ? storeOptions.rows : 10_000)
  } catch {
    print("kura-bench: profile `\(suite) \(workload) \(side)` failed: \(error)")
    exit(1)
  }
  exit(0)
}
for suite in suites where requested.isEmpty || requested.contains(suite.name) {
  runningSuite.withLock { $0 = suite.name }
  if !outputsJSON { print("== \(suite.name)") }
  do {
    try suite.run()
  } catch {
    print("kura-bench: suite `\(suite.name)` failed: \(error)")
    exit(1)
  }
}
print("peak memory: \(peakResidentBytes() / 1_048_576) MiB")
