import Foundation
import Kura

// `swift run -c release kura-bench [suite …]`: runs the named suites (all when none is named)
// and prints, for each workload, Kura's median, the baseline's median and their ratio.
// Each area adds its suite in a file of its own and lists it here.

let suites: [(name: String, run: () throws -> Void)] = [
  ("sqlite", runSQLiteBenchmarks),
  ("documents", runDocumentBenchmarks),
  ("store", runStoreBenchmarks),
  ("preferences", runPreferencesBenchmarks),
  ("relations", runRelationsBenchmarks),
  ("terminal", runTerminalBenchmarks),
  ("watchers", runWatcherBenchmarks),
]

// The writer child of the cross-process live-query benchmark (RelationsBenchmarks.swift).
if ProcessInfo.processInfo.environment["KURA_BENCH_CHILD"] == "store-streaming" {
  try runStreamingChild(ProcessInfo.processInfo.environment["KURA_BENCH_STORE"] ?? "")
  exit(0)
}
if ProcessInfo.processInfo.environment["KURA_BENCH_CHILD"] == "live-writer" {
  try runLiveQueryWriterChild(ProcessInfo.processInfo.environment["KURA_BENCH_STORE"] ?? "")
  exit(0)
}

let requested = Set(StoreBenchmarkOptions.parse(Array(CommandLine.arguments.dropFirst())).1)
if requested.contains("--help") || requested.contains("-h") {
  print(
    """
    OVERVIEW: Measures Kura against plain baselines and prints each workload's medians and ratio.

    USAGE: kura-bench [<suite> …] [--rows <n>] [--profile <workload> <side>]

    OPTIONS (store suite):
      --rows <n>          Rows of the store workloads (default 100,000; the 1,000,000-row
                          predicate and streaming runs then are left out).
      --profile <workload> kura|c
                          Runs one workload (insert, fetch, saves, saves-no-history, lookups)
                          once inside `profiledRegion`, for
                          `valgrind --tool=callgrind --toggle-collect='*profiledRegion*'`.

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
