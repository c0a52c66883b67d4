import Foundation
import Kura
import KuraPostgreSQL
import KuraPostgresCluster
import KuraStudio
import KuraSync
import KuraSyncCore
import KuraSyncServer

/// A trip of the studio benchmark's 1,000,000-row model.
struct StudioBenchTrip: PersistentModel {
  var id: Int
  var name: String
  var start: Date
  var budget: Double?
  static var schema: Schema<StudioBenchTrip> { Schema(.index(\.name)) }
}

/// `kura-bench studio`: the time the studio takes to answer a page of rows (50, as JSON) on a
/// 1,000,000-row model, on the server (its request handling without the HTTP transport): the
/// first page and a next page by key, deep in the table, sorted by an indexed property, and
/// filtered; against the same rows read by one SQL statement through the SQLite layer.
/// Target (issue 40): first page and each next page ≤ 100 ms.
func runStudioBenchmarks() throws {
  let directory = benchmarkDirectory("studio")
  defer { try? FileManager.default.removeItem(at: directory) }
  let url = directory.appendingPathComponent("studio.store")
  let rows = 1_000_000
  do {
    var configuration = ModelConfiguration.url(url)
    configuration.historyRetention = .off
    let context = ModelContext(
      try ModelContainer(for: StudioBenchTrip.self, configurations: configuration))
    let words = ["Kyoto", "Nara", "Osaka", "Kobe", "Sapporo", "Naha", "Sendai", "Nikko"]
    try context.transaction {
      for id in 0..<rows {
        try context.insert(
          StudioBenchTrip(
            id: id, name: "\(words[id % words.count]) \(id % 9_973)",
            start: Date(timeIntervalSinceReferenceDate: Double(id) * 60),
            budget: id % 5 == 0 ? nil : Double(id % 10_000)))
      }
    }
  }
  print("rows: 1,000,000")
  let studio = try Studio(store: .url(url), storeName: "studio.store", secret: "bench")
  studio.port = 1
  func page(_ query: [String: String]) throws -> [String: Any] {
    let response = studio.respond(
      to: StudioRequest(
        method: "GET", path: "/api/rows", query: query,
        headers: ["Host": "127.0.0.1:1", "Cookie": "kura_studio_1=bench"]))
    guard response.status == 200,
      let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
    else {
      throw BenchmarkFailure(
        "studio answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
    }
    return object
  }
  let connection = try Connection(path: url.path, mode: .inspect)
  func baseline(_ sql: String, _ arguments: [DatabaseValue]) throws {
    _ = try connection.query(sql, arguments) { row in (row.int64(at: 0), row.string(at: 1)) }
  }
  func measure(
    _ name: String, _ query: [String: String], baselineSQL: String,
    _ arguments: [DatabaseValue]
  ) throws {
    let (kura, plain) = try medians(
      runs: 9, kura: { _ = try page(query) }, baseline: { try baseline(baselineSQL, arguments) })
    report(name, kura: kura, baseline: plain, baselineName: "SQL", target: nil)
    let met = seconds(kura) <= 0.1
    if !outputsJSON { print("  (target ≤ 100 ms on the server: \(met ? "met" : "MISSED"))") }
  }
  let columns = #""id", "name", "start", "budget""#
  try measure(
    "first page by key", ["model": "StudioBenchTrip", "limit": "50"],
    baselineSQL: "SELECT \(columns) FROM \"StudioBenchTrip\" ORDER BY \"id\" LIMIT 51", [])
  // Where the page before row 900,000 ended (as the studio's own cursor says it).
  let deep = RowCursor(sortValue: nil, key: .integer(899_999)).token
  try measure(
    "next page by key at row 900,000",
    ["model": "StudioBenchTrip", "limit": "50", "after": deep],
    baselineSQL:
      "SELECT \(columns) FROM \"StudioBenchTrip\" WHERE \"id\" > 900000 ORDER BY \"id\" LIMIT 51",
    [])
  let byName = ["model": "StudioBenchTrip", "limit": "50", "sort": "name"]
  try measure(
    "first page sorted by name (indexed)", byName,
    baselineSQL:
      "SELECT \(columns) FROM \"StudioBenchTrip\" ORDER BY \"name\" COLLATE kura_unicode, "
      + "\"id\" LIMIT 51", [])
  let second = try page(byName)["next"] as? String ?? ""
  try measure(
    "next page sorted by name", byName.merging(["after": second]) { $1 },
    baselineSQL:
      "SELECT \(columns) FROM \"StudioBenchTrip\" ORDER BY \"name\" COLLATE kura_unicode, "
      + "\"id\" LIMIT 51 OFFSET 50", [])
  try measure(
    "first page filtered (budget > 9000)",
    [
      "model": "StudioBenchTrip", "limit": "50",
      "f": #"[{"property":"budget","op":">","value":"9000"}]"#,
    ],
    baselineSQL:
      "SELECT \(columns) FROM \"StudioBenchTrip\" WHERE \"budget\" > 9000 ORDER BY \"id\" "
      + "LIMIT 51", [])
  #if canImport(CLibPQ)
    try runStudioPostgresBenchmarks()
  #endif
}

#if canImport(CLibPQ)
  /// The same pages on a PostgreSQL store (a throwaway cluster with `fsync` on): the rows made by
  /// one `INSERT … SELECT generate_series`, the baseline one SQL statement through libpq.
  func runStudioPostgresBenchmarks() throws {
    let cluster = try PostgresCluster.start(fsync: true)
    let url = try cluster.freshDatabaseURL("studio")
    guard let location = URL(string: url) else { throw BenchmarkFailure("bad cluster URL") }
    _ = try ModelContainer(for: StudioBenchTrip.self, configurations: .postgres(location))
    let connection = try PostgresConnection(url)
    try connection.execute(
      """
      INSERT INTO "StudioBenchTrip" ("id", "name", "start", "budget")
      SELECT i, (ARRAY['Kyoto','Nara','Osaka','Kobe','Sapporo','Naha','Sendai','Nikko'])[i % 8 + 1]
        || ' ' || (i % 9973), i * 60.0, CASE WHEN i % 5 = 0 THEN NULL ELSE (i % 10000)::float8 END
      FROM generate_series(0, 999999) AS i;
      ANALYZE "StudioBenchTrip"
      """)
    print("postgresql rows: 1,000,000")
    let studio = try Studio(store: .postgres(location), storeName: "studio", secret: "bench")
    studio.port = 1
    func page(_ query: [String: String]) throws -> [String: Any] {
      let response = studio.respond(
        to: StudioRequest(
          method: "GET", path: "/api/rows", query: query,
          headers: ["Host": "127.0.0.1:1", "Cookie": "kura_studio_1=bench"]))
      guard response.status == 200,
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
      else {
        throw BenchmarkFailure(
          "studio answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
      }
      return object
    }
    func measure(_ name: String, _ query: [String: String], baselineSQL: String) throws {
      let (kura, plain) = try medians(
        runs: 9, kura: { _ = try page(query) },
        baseline: {
          _ = try connection.query(baselineSQL) { row in (row.int64(at: 0), row.string(at: 1)) }
        })
      report(name, kura: kura, baseline: plain, baselineName: "SQL", target: nil)
      let met = seconds(kura) <= 0.1
      if !outputsJSON { print("  (target ≤ 100 ms on the server: \(met ? "met" : "MISSED"))") }
    }
    let columns = #""id", "name", "start", "budget""#
    try measure(
      "postgresql first page by key", ["model": "StudioBenchTrip", "limit": "50"],
      baselineSQL: "SELECT \(columns) FROM \"StudioBenchTrip\" ORDER BY \"id\" LIMIT 51")
    let deep = RowCursor(sortValue: nil, key: .integer(899_999)).token
    try measure(
      "postgresql next page by key at row 900,000",
      ["model": "StudioBenchTrip", "limit": "50", "after": deep],
      baselineSQL:
        "SELECT \(columns) FROM \"StudioBenchTrip\" WHERE \"id\" > 900000 ORDER BY \"id\" "
        + "LIMIT 51")
    let byName = ["model": "StudioBenchTrip", "limit": "50", "sort": "name"]
    try measure(
      "postgresql first page sorted by name (indexed)", byName,
      baselineSQL:
        "SELECT \(columns) FROM \"StudioBenchTrip\" ORDER BY kura_key(\"name\"), \"id\" LIMIT 51")
    let second = try page(byName)["next"] as? String ?? ""
    try measure(
      "postgresql next page sorted by name", byName.merging(["after": second]) { $1 },
      baselineSQL:
        "SELECT \(columns) FROM \"StudioBenchTrip\" ORDER BY kura_key(\"name\"), \"id\" "
        + "LIMIT 51 OFFSET 50")
    try measure(
      "postgresql first page filtered (budget > 9000)",
      [
        "model": "StudioBenchTrip", "limit": "50",
        "f": #"[{"property":"budget","op":">","value":"9000"}]"#,
      ],
      baselineSQL:
        "SELECT \(columns) FROM \"StudioBenchTrip\" WHERE \"budget\" > 9000 ORDER BY \"id\" "
        + "LIMIT 51")
  }
#endif

/// A benchmark that could not run as planned.
struct BenchmarkFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
