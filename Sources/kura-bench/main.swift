import Foundation
import Kura

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

var remaining = StoreBenchmarkOptions.parse(Array(CommandLine.arguments.dropFirst())).1
#if canImport(CLibPQ)
  let postgresArguments = PostgresBenchmarkOptions.parse(remaining)
  remaining = postgresArguments.rest
  if postgresArguments.options.url != nil, !remaining.isEmpty,
    !remaining.contains("postgres"), !remaining.contains("--help"), !remaining.contains("-h")
  {
    usageError("`--url` is an option of the postgres suite, which is not among the suites named")
  }
#endif
let requested = Set(remaining)
#if canImport(CLibPQ)
  if requested.contains("postgres") && (requested.contains("--help") || requested.contains("-h")) {
    print(PostgresBenchmarkOptions.usage)
    exit(0)
  }
#endif
if requested.contains("--help") || requested.contains("-h") {
  print(
    """
    OVERVIEW: Measures Kura against plain baselines and prints each workload's medians and ratio.

    USAGE: kura-bench [<suite> …] [--rows <n>] [--profile <workload> <side>] [--url <url>]

    OPTIONS (store suite):
      --rows <n>          Rows of the store workloads (default 100,000; the 1,000,000-row
                          predicate and streaming runs then are left out).
      --profile <workload> kura|c
                          Runs one workload (insert, fetch, saves, saves-no-history, lookups)
                          once inside `profiledRegion`, for
                          `valgrind --tool=callgrind --toggle-collect='*profiledRegion*'`.

    OPTIONS (postgres suite; see `kura-bench postgres --help`):
      --url <url>         The PostgreSQL server to measure on (default: KURA_BENCH_POSTGRES_URL,
                          else a throwaway cluster of its own, fsync on).

    SUITES (all when none is named):
    \(suites.map { "  " + $0.name }.joined(separator: "\n"))

    EXIT STATUS: 0 on success, 1 when a suite fails, 64 for an unknown suite or option.
    Build with `-c release` for meaningful figures.
    """)
  exit(0)
}
if requested.contains("--version") {
  print("kura-bench \(KuraLibrary.version)")
  exit(0)
}
if requested.contains("--rows") {
  usageError("`--rows` needs a whole number of at least 1,000, such as `--rows 100000`")
}
#if canImport(CLibPQ)
  if let problem = postgresArguments.error {
    usageError(problem, help: "kura-bench postgres --help")
  }
#endif
let unknown = requested.subtracting(suites.map(\.name))
if !unknown.isEmpty {
  FileHandle.standardError.write(
    Data(
      ("kura-bench: error: unknown suite `\(unknown.sorted()[0])`; suites: "
        + "\(suites.map(\.name).joined(separator: ", ")). See `kura-bench --help`.\n").utf8))
  exit(64)
}
for suite in suites where requested.isEmpty || requested.contains(suite.name) {
  print("== \(suite.name)")
  do {
    try suite.run()
  } catch {
    print("kura-bench: suite `\(suite.name)` failed: \(error)")
    exit(1)
  }
}
print("peak memory: \(peakResidentBytes() / 1_048_576) MiB")
