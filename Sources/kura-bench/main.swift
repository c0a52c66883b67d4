import Foundation

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

let requested = Set(CommandLine.arguments.dropFirst())
let unknown = requested.subtracting(suites.map(\.name))
if !unknown.isEmpty {
  print(
    "kura-bench: unknown suite `\(unknown.sorted()[0])`; suites: \(suites.map(\.name).joined(separator: ", "))"
  )
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
