import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

#if canImport(CSQLite)
  import CSQLite
#else
  import SQLite3
#endif

/// The `kura_unicode` collation of store format 1: Swift's `<`, which is not a total order on
/// mixes of composed and decomposed text.
private func formatOneCollation(
  _ context: UnsafeMutableRawPointer?, _ leftCount: Int32, _ left: UnsafeRawPointer?,
  _ rightCount: Int32, _ right: UnsafeRawPointer?
) -> Int32 {
  let leftString = String(
    decoding: UnsafeRawBufferPointer(start: left, count: Int(leftCount)), as: UTF8.self)
  let rightString = String(
    decoding: UnsafeRawBufferPointer(start: right, count: Int(rightCount)), as: UTF8.self)
  if leftString == rightString { return 0 }
  return leftString < rightString ? -1 : 1
}

/// Writes rows into a store file the way format 1 did (dates as seconds since 1970, text indexes
/// ordered by Swift's `<`), through SQLite's C API; rows whose name the unique index refuses (a
/// canonical equivalent of an earlier one) are skipped.
///
/// - Returns: The rows written.
private func writeFormatOne(_ url: URL, rows: [Row]) throws -> [Row] {
  var db: OpaquePointer?
  guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
    throw SQLiteError(code: .cannotOpen, extendedCode: 14, message: "open", sql: nil)
  }
  defer { sqlite3_close_v2(db) }
  #expect(
    sqlite3_create_collation_v2(db, "kura_unicode", SQLITE_UTF8, nil, formatOneCollation, nil)
      == SQLITE_OK)
  #expect(
    sqlite3_exec(
      db, "UPDATE kura_metadata SET value = '1' WHERE key = 'storeFormat'", nil, nil, nil)
      == SQLITE_OK)
  var statement: OpaquePointer?
  let sql =
    "INSERT INTO \"reading\" (\"id\", \"name\", \"date\", \"value\", \"optionalValue\", \"count\") "
    + "VALUES (?, ?, ?, 0, NULL, 0)"
  #expect(sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK)
  defer { sqlite3_finalize(statement) }
  let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
  var written: [Row] = []
  for row in rows {
    sqlite3_bind_int64(statement, 1, Int64(row.id))
    sqlite3_bind_text(statement, 2, row.name, -1, transient)
    sqlite3_bind_double(statement, 3, row.since1970)
    let result = sqlite3_step(statement)
    #expect(
      result == SQLITE_DONE || result == SQLITE_CONSTRAINT,
      "\(row.name): \(String(cString: sqlite3_errmsg(db)))")
    if result == SQLITE_DONE { written.append(row) }
    sqlite3_reset(statement)
  }
  return written
}

private typealias Row = (id: Int, name: String, since1970: Double)

@Suite("Store format upgrade")
struct StoreFormatUpgradeTests {
  @Test func aFormatOneStoreIsConvertedAndReindexedOnOpen() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("old.sqlite")
    do { _ = try ModelContainer(for: Reading.self, configurations: .url(url)) }
    var random = SeededGenerator(seed: 1)
    // Distinct by Swift's `==` (format 1's unique index let equivalent names in: see below).
    var names: [String] = []
    for name in mixedNames where !names.contains(name) { names.append(name) }
    let rows = names.enumerated().map { index, name in
      (id: index, name: name, since1970: Double.random(in: 1.6e9...1.8e9, using: &random))
    }
    let written = try writeFormatOne(url, rows: rows)
    #expect(written.count == names.count)

    let context = ModelContext(try ModelContainer(for: Reading.self, configurations: .url(url)))
    let fetched = try context.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)]))
    #expect(fetched.map(\.id) == written.map(\.id))
    // Format 1 read `Date(timeIntervalSince1970: v)`: the upgraded store reads the same dates.
    #expect(fetched.map(\.date) == written.map { Date(timeIntervalSince1970: $0.since1970) })
    for name in ["e\u{301}", "\u{E9}\u{E9}", "K\u{212A}", "A\u{30A}a", "\u{212B}"] {
      let expected = fetched.filter { $0.name == name }.map(\.id)
      let found = try context.fetch(
        FetchDescriptor<Reading>(
          predicate: #Predicate { $0.name == name }, sortBy: [SortDescriptor(\.id)])
      ).map(\.id)
      #expect(found == expected, "\(name)")
    }
    let third = try #require(fetched.dropFirst(3).first)
    let date = third.date
    #expect(
      try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.date == date }))
        .map(\.id) == [third.id])
    #expect(try StoreInspector(url: url).check() == [])
    let format = try Connection(path: url.path).queryFirst(
      "SELECT value FROM kura_metadata WHERE key = 'storeFormat'"
    ) { $0.string(at: 0) }
    #expect(format == "2")
  }

  @Test func equivalentUniqueValuesThatFormatOneLetInAreNamedAndNothingChanges() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("old.sqlite")
    do { _ = try ModelContainer(for: Reading.self, configurations: .url(url)) }
    let rows = mixedNames.enumerated().map { index, name in
      (id: index, name: name, since1970: 1.7e9 + Double(index))
    }
    let written = try writeFormatOne(url, rows: rows)
    #expect(
      written.count
        > written.map(\.name).reduce(into: [String]()) { names, name in
          if !names.contains(name) { names.append(name) }
        }.count)
    let before = try Data(contentsOf: url)
    #expect {
      _ = try ModelContainer(for: Reading.self, configurations: .url(url))
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .migrationRefused && error.model == "Reading"
        && error.message.contains("unique `name` are equal by Swift's `==`")
    }
    #expect(try Data(contentsOf: url) == before)
  }
}
