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

// The SQLite layer against direct C API calls from Swift, on the same workload and the same
// pragmas (WAL, synchronous=NORMAL), each on a fresh file of its own.

/// One row of the workload: text id, text, real, text, integer.
struct BenchRow {
  var id: String
  var name: String
  var price: Double
  var note: String
  var count: Int64
}

private let createSQL =
  "CREATE TABLE item (id TEXT PRIMARY KEY, name TEXT NOT NULL, price REAL NOT NULL, note TEXT NOT NULL, count INTEGER NOT NULL)"
private let insertSQL = "INSERT INTO item (id, name, price, note, count) VALUES (?, ?, ?, ?, ?)"
private let selectAllSQL = "SELECT id, name, price, note, count FROM item"
private let selectOneSQL = "SELECT id, name, price, note, count FROM item WHERE id = ?"

func benchRows(_ count: Int) -> [BenchRow] {
  (0..<count).map { index in
    BenchRow(
      id: String(format: "%08d-item", index), name: "name \(index)", price: Double(index) * 1.25,
      note: "note for item number \(index)", count: Int64(index))
  }
}

/// The baseline: a careful C-API user with prepared statements, kept in variables (not looked
/// up by their SQL), on a connection opened with Kura's flags and pragmas. Creates the table
/// when it is missing.
final class DirectSQLite {
  let db: OpaquePointer
  let begin: OpaquePointer
  let commit: OpaquePointer
  let insertStatement: OpaquePointer
  let selectAll: OpaquePointer
  let selectOne: OpaquePointer
  private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  init(path: String) {
    var handle: OpaquePointer?
    sqlite3_open_v2(
      path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
    guard let handle else { fatalError("cannot open \(path)") }
    db = handle
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", nil, nil, nil)
    sqlite3_exec(
      db, createSQL.replacingOccurrences(of: "CREATE TABLE", with: "CREATE TABLE IF NOT EXISTS"),
      nil, nil, nil)
    func prepare(_ sql: String) -> OpaquePointer {
      var statement: OpaquePointer?
      sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
      guard let statement else { fatalError("cannot prepare \(sql)") }
      return statement
    }
    begin = prepare("BEGIN IMMEDIATE")
    commit = prepare("COMMIT")
    insertStatement = prepare(insertSQL)
    selectAll = prepare(selectAllSQL)
    selectOne = prepare(selectOneSQL)
  }

  deinit {
    for statement in [begin, commit, insertStatement, selectAll, selectOne] {
      sqlite3_finalize(statement)
    }
    sqlite3_close_v2(db)
  }

  /// Runs a prepared statement that returns no rows (BEGIN, COMMIT).
  func run(_ statement: OpaquePointer) {
    sqlite3_step(statement)
    sqlite3_reset(statement)
  }

  func insert(_ row: BenchRow) {
    let statement = insertStatement
    bindText(statement, 1, row.id)
    bindText(statement, 2, row.name)
    sqlite3_bind_double(statement, 3, row.price)
    bindText(statement, 4, row.note)
    sqlite3_bind_int64(statement, 5, row.count)
    guard sqlite3_step(statement) == SQLITE_DONE else { fatalError("insert failed") }
    sqlite3_reset(statement)
  }

  /// The row whose id is `key` (`selectOne`, reset after), or `nil`.
  func lookUp(_ key: String) -> BenchRow? {
    let statement = selectOne
    bindText(statement, 1, key)
    let row = sqlite3_step(statement) == SQLITE_ROW ? readRow(statement) : nil
    sqlite3_reset(statement)
    return row
  }

  private func bindText(_ statement: OpaquePointer, _ index: Int32, _ value: String) {
    var value = value
    value.withUTF8 { buffer in
      _ = buffer.baseAddress?.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
        sqlite3_bind_text(statement, index, $0, Int32(buffer.count), transient)
      }
    }
  }

  func readRow(_ statement: OpaquePointer) -> BenchRow {
    func text(_ index: Int32) -> String {
      guard let pointer = sqlite3_column_text(statement, index) else { return "" }
      return String(
        decoding: UnsafeBufferPointer(
          start: pointer, count: Int(sqlite3_column_bytes(statement, index))),
        as: UTF8.self)
    }
    return BenchRow(
      id: text(0), name: text(1), price: sqlite3_column_double(statement, 2), note: text(3),
      count: sqlite3_column_int64(statement, 4))
  }
}

private func kuraInsert(_ db: Connection, _ row: BenchRow) throws {
  let statement = try db.cachedStatement(insertSQL)
  try statement.bind(row.id, at: 1)
  try statement.bind(row.name, at: 2)
  try statement.bind(row.price, at: 3)
  try statement.bind(row.note, at: 4)
  try statement.bind(row.count, at: 5)
  try statement.execute()
}

private func kuraReadRow(_ statement: Statement) -> BenchRow {
  BenchRow(
    id: statement.string(at: 0), name: statement.string(at: 1), price: statement.double(at: 2),
    note: statement.string(at: 3), count: statement.int64(at: 4))
}

func runSQLiteBenchmarks() throws {
  let rows = benchRows(100_000)
  let folder = benchmarkDirectory("sqlite")
  defer { try? FileManager.default.removeItem(at: folder) }
  var fileNumber = 0
  func freshPath() -> String {
    fileNumber += 1
    return folder.appendingPathComponent("bench-\(fileNumber).sqlite").path
  }
  var sink = 0

  // 1. Bulk insert of 100,000 rows in one transaction.
  let bulk = try medians(
    runs: 7,
    kura: {
      let pool = try DatabasePool(path: freshPath())
      try pool.write { db in try db.execute(createSQL) }
      try pool.write { db in for row in rows { try kuraInsert(db, row) } }
    },
    baseline: {
      let direct = DirectSQLite(path: freshPath())
      direct.run(direct.begin)
      for row in rows { direct.insert(row) }
      direct.run(direct.commit)
    })
  report(
    "bulk insert 100,000 rows, one transaction", kura: bulk.kura, baseline: bulk.baseline,
    baselineName: "C API", target: 1.15)

  // A filled file each for the read workloads.
  let kuraPath = freshPath()
  let kuraPool = try DatabasePool(path: kuraPath)
  try kuraPool.write { db in
    try db.execute(createSQL)
    for row in rows { try kuraInsert(db, row) }
  }
  let directPath = freshPath()
  let direct = DirectSQLite(path: directPath)
  direct.run(direct.begin)
  for row in rows { direct.insert(row) }
  direct.run(direct.commit)

  // 2. Fetch all 100,000 rows into structs.
  let directReader = DirectSQLite(path: directPath)
  let fetch = try medians(
    runs: 9,
    kura: {
      let fetched = try kuraPool.read { db in try db.query(selectAllSQL, row: kuraReadRow) }
      sink &+= fetched.count
    },
    baseline: {
      let statement = directReader.selectAll
      var fetched: [BenchRow] = []
      while sqlite3_step(statement) == SQLITE_ROW {
        fetched.append(directReader.readRow(statement))
      }
      sqlite3_reset(statement)
      sink &+= fetched.count
    })
  report(
    "fetch all 100,000 rows into structs", kura: fetch.kura, baseline: fetch.baseline,
    baselineName: "C API", target: 1.15)

  // 3. 1,000 single-row commits.
  let extra = benchRows(22_000).map { row -> BenchRow in
    var row = row
    row.id = "x-" + row.id
    return row
  }
  var kuraOffset = 0
  var directOffset = 0
  let commits = try medians(
    runs: 11,
    kura: {
      for row in extra[kuraOffset..<kuraOffset + 1_000] {
        try kuraPool.write { db in try kuraInsert(db, row) }
      }
      kuraOffset += 1_000
    },
    baseline: {
      for row in extra[directOffset..<directOffset + 1_000] {
        direct.run(direct.begin)
        direct.insert(row)
        direct.run(direct.commit)
      }
      directOffset += 1_000
    })
  report(
    "1,000 single-row commits", kura: commits.kura, baseline: commits.baseline,
    baselineName: "C API", target: 1.15)

  // 4. 1,000 primary-key lookups, each in its own read.
  var generator = SystemRandomNumberGenerator()
  let keys = (0..<1_000).map { _ in rows[Int.random(in: 0..<rows.count, using: &generator)].id }
  let lookups = try medians(
    runs: 11,
    kura: {
      for key in keys {
        let row = try kuraPool.read { db -> BenchRow? in
          let statement = try db.cachedStatement(selectOneSQL)
          try statement.bind(key, at: 1)
          return try statement.step() ? kuraReadRow(statement) : nil
        }
        sink &+= Int(row?.count ?? 0)
      }
    },
    baseline: {
      for key in keys { sink &+= Int(directReader.lookUp(key)?.count ?? 0) }
    })
  report(
    "1,000 primary-key lookups, each its own read", kura: lookups.kura,
    baseline: lookups.baseline, baselineName: "C API", target: 1.15)
  withExtendedLifetime(rows) {}
  if sink == 42 { print("") }
}

/// `kura-bench sqlite --profile WORKLOAD SIDE`: the suite's four workloads on 10,000 rows, each
/// side on a fresh file; the reads first run once outside the region (a reader connection open,
/// its statement prepared), as the C side's statement is prepared before it. Returns the number
/// of operations the region ran.
func profileSQLite(_ workload: String, kura: Bool) throws -> Int {
  let rows = benchRows(10_000)
  let folder = benchmarkDirectory("sqlite-profile")
  defer { try? FileManager.default.removeItem(at: folder) }
  let path = folder.appendingPathComponent("profile.sqlite").path
  // The C side's connection creates the table.
  let direct = DirectSQLite(path: path)
  let pool = try DatabasePool(path: path)
  if workload != "insert" {
    direct.run(direct.begin)
    for row in rows { direct.insert(row) }
    direct.run(direct.commit)
  }
  let extra = benchRows(200).map { row -> BenchRow in
    var row = row
    row.id = "x-" + row.id
    return row
  }
  let keys = (0..<1_000).map { rows[($0 * 97) % rows.count].id }
  var sink = 0
  func kuraLookup(_ key: String) throws {
    let row = try pool.read { db -> BenchRow? in
      let statement = try db.cachedStatement(selectOneSQL)
      try statement.bind(key, at: 1)
      return try statement.step() ? kuraReadRow(statement) : nil
    }
    sink &+= Int(row?.count ?? 0)
  }
  func directLookup(_ key: String) {
    sink &+= Int(direct.lookUp(key)?.count ?? 0)
  }
  func kuraFetch() throws {
    sink &+= try pool.read { db in try db.query(selectAllSQL, row: kuraReadRow) }.count
  }
  func directFetch() {
    let statement = direct.selectAll
    var fetched: [BenchRow] = []
    while sqlite3_step(statement) == SQLITE_ROW { fetched.append(direct.readRow(statement)) }
    sqlite3_reset(statement)
    sink &+= fetched.count
  }
  switch (workload, kura) {
  case ("fetch", true): try kuraFetch()
  case ("fetch", false): directFetch()
  case ("lookups", true): try kuraLookup(keys[0])
  case ("lookups", false): directLookup(keys[0])
  default: break
  }
  var operations = 0
  try profiledRegion {
    switch (workload, kura) {
    case ("insert", true):
      try pool.write { db in for row in rows { try kuraInsert(db, row) } }
      operations = rows.count
    case ("insert", false):
      direct.run(direct.begin)
      for row in rows { direct.insert(row) }
      direct.run(direct.commit)
      operations = rows.count
    case ("fetch", true):
      try kuraFetch()
      operations = rows.count
    case ("fetch", false):
      directFetch()
      operations = rows.count
    case ("commits", true):
      for row in extra { try pool.write { db in try kuraInsert(db, row) } }
      operations = extra.count
    case ("commits", false):
      for row in extra {
        direct.run(direct.begin)
        direct.insert(row)
        direct.run(direct.commit)
      }
      operations = extra.count
    case ("lookups", true):
      for key in keys { try kuraLookup(key) }
      operations = keys.count
    case ("lookups", false):
      for key in keys { directLookup(key) }
      operations = keys.count
    default: break
    }
  }
  keep(sink)
  return operations
}
