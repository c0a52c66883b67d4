import CBenchSupport
import Foundation

// `kura-bench <suite> --profile <workload> kura|c`: one workload of one suite, run once inside
// `profiledRegion` by Kura or by its baseline, for
// `valgrind --tool=callgrind --toggle-collect='*profiledRegion*'` (scripts/check-speed counts
// the instructions of both sides and compares their ratio with the recorded one).

/// One `--profile` request: the suite, the workload and the side.
struct ProfileRequest {
  /// The suite whose workload runs (`sqlite`, `store`, …).
  var suite: String
  /// The workload's name, one of ``profileWorkloads``' for the suite.
  var workload: String
  /// Whether Kura runs it (`kura`); otherwise the baseline (`c`).
  var kura: Bool
}

/// The workloads each suite can run under `--profile`, and what one operation of each is.
let profileWorkloads: KeyValuePairs<String, KeyValuePairs<String, String>> = [
  "sqlite": [
    "insert": "a row inserted, 10,000 in one transaction",
    "fetch": "a row read into a struct, 10,000 in one query",
    "commits": "a single-row commit",
    "lookups": "a primary-key lookup, each its own read",
  ],
  "store": [
    "insert": "a model inserted, all in one transaction (history on)",
    "insert-no-history": "a model inserted, all in one transaction (history off)",
    "fetch": "a model fetched, all in one fetch",
    "saves": "a single-model save with its change-feed row (C writes the same row)",
    "saves-no-history": "a single-model save, history off (C writes no history row)",
    "lookups": "a fetch by id, each its own read",
  ],
  "preferences": [
    "read": "a read of an Int key (C: a prepared SELECT of the stored row)",
    "set": "a durable set of an Int key (one write transaction)",
  ],
  "documents": [
    "append": "a durable append of one entry to a document's journal"
  ],
  "sync": [
    "saves": "a single-model insert saved with sync on (C: the same save with sync off)",
    "edits": "a save changing one property, sync on (C: the same save with sync off)",
    "pull": "a row of an initial sync's page applied (C: inserted with sync off, one transaction)",
  ],
  "postgres": [
    "saves": "a single-model save with its change-feed row, client side only",
    "lookups": "a fetch by id, client side only",
    "fetch": "a model of a 10,000-row fetch in one query, client side only",
    "bulk": "a model of a 10,000-row bulk insert in one transaction, history off, client side"
      + " only (libpq: the same rows by one binary COPY)",
  ],
]

/// The workloads of `suite` for `--profile`, `nil` for a suite without any.
func profileWorkloads(of suite: String) -> KeyValuePairs<String, String>? {
  profileWorkloads.first { $0.key == suite }?.value
}

/// The text of the suite help's `--profile` section: each workload and what one operation is.
func profileHelp(of suite: String) -> String {
  guard let workloads = profileWorkloads(of: suite) else { return "" }
  let width = (workloads.map(\.key.count).max() ?? 0) + 2
  return workloads.map {
    "  " + $0.key.padding(toLength: width, withPad: " ", startingAt: 0) + $0.value
  }.joined(separator: "\n")
}

/// The region `--profile` measures: callgrind's instrumentation runs only inside it (for
/// `valgrind --tool=callgrind --instr-atstart=no`, which runs the setup around it several times
/// faster), and it is not inlined, so `--toggle-collect='*profiledRegion*'` collects inside it
/// alone.
@inline(never)
func profiledRegion(_ body: () throws -> Void) rethrows {
  kura_bench_start_instrumentation()
  defer { kura_bench_stop_instrumentation() }
  try body()
}

/// Runs the profile `request` names and prints how many operations its region ran, which
/// scripts/check-speed divides the region's instruction count by.
func runProfile(_ request: ProfileRequest, rows: Int) throws {
  let operations: Int
  switch request.suite {
  case "sqlite": operations = try profileSQLite(request.workload, kura: request.kura)
  case "store":
    operations = try profileStore(request.workload, kura: request.kura, rows: rows)
  case "preferences": operations = try profilePreferences(request.workload, kura: request.kura)
  case "documents": operations = try profileDocuments(request.workload, kura: request.kura)
  case "sync": operations = try profileSync(request.workload, kura: request.kura)
  #if canImport(CLibPQ)
    case "postgres": operations = try profilePostgres(request.workload, kura: request.kura)
  #endif
  default: operations = 0
  }
  let side = request.kura ? "kura" : "c"
  if outputsJSON {
    emitJSON([
      "suite": .string(request.suite), "workload": .string(request.workload),
      "side": .string(side), "operations": .integer(operations),
    ])
  } else {
    print("profiled \(request.suite) \(request.workload) on \(side): \(operations) operations")
  }
}
