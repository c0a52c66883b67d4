import Foundation
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Statement binding and reading")
struct StatementBindingTests {
  let folder = TemporaryDirectory()

  func connection() throws -> Connection {
    let connection = try Connection(path: folder.file("values.sqlite").path)
    try connection.execute("CREATE TABLE IF NOT EXISTS v (x)")
    return connection
  }

  /// Writes one value through the file, reopens the file and reads it back.
  func roundTrip(_ value: DatabaseValue) throws -> DatabaseValue {
    do {
      let writer = try connection()
      try writer.run("DELETE FROM v")
      try writer.run("INSERT INTO v (x) VALUES (?)", [value])
    }
    let reader = try Connection(path: folder.file("values.sqlite").path, mode: .readOnly)
    return try #require(try reader.queryFirst("SELECT x FROM v") { $0.value(at: 0) })
  }

  @Test(arguments: [
    DatabaseValue.integer(0), .integer(Int64.min), .integer(Int64.max), .integer(-1),
    .real(0.5), .real(-1e308), .real(Double.greatestFiniteMagnitude), .real(.infinity),
    .text(""), .text("高速代金"), .text("a\u{0}b"), .text(String(repeating: "x", count: 100_000)),
    .blob(Data()), .blob(Data([0, 0, 1, 0])), .blob(Data(repeating: 0xff, count: 4096)), .null,
  ])
  func storageClassesRoundTripThroughAFile(_ value: DatabaseValue) throws {
    #expect(try roundTrip(value) == value)
  }

  @Test func nanIsStoredAsNull() throws {
    // SQLite has no NaN: binding a REAL NaN stores NULL (documented on DatabaseValue).
    #expect(try roundTrip(.real(.nan)) == .null)
  }

  @Test func everyDoubleRoundTripsBitForBit() throws {
    // NaN (with its payload), -0.0 and the infinities read back with the same bits; a REAL
    // alone turns NaN into NULL and -0.0 into 0.
    let values: [Double] = [
      .nan, -.nan, Double(nan: 0x1234, signaling: false), -0.0, 0.0, .infinity, -.infinity,
      .leastNonzeroMagnitude, -.greatestFiniteMagnitude, 0.1, 1e300,
    ]
    for value in values {
      let back = try #require(Double(databaseValue: roundTrip(value.databaseValue)))
      #expect(back.bitPattern == value.bitPattern, "\(value)")
    }
    #expect(Double.nan.databaseValue == .blob(Data([0x7f, 0xf8, 0, 0, 0, 0, 0, 0])))
  }

  @Test func everyDateRoundTripsBitForBit() throws {
    var random = SeededGenerator(seed: 7)
    for _ in 0..<100 {
      let seconds = Double.random(in: -4e9...4e9, using: &random)
      let date = Date(timeIntervalSinceReferenceDate: seconds)
      let back = try #require(Date(databaseValue: roundTrip(date.databaseValue)))
      #expect(
        back.timeIntervalSinceReferenceDate.bitPattern
          == date.timeIntervalSinceReferenceDate.bitPattern)
    }
  }

  @Test func typedBindsKeepEmptyStringsAndBlobsDistinctFromNull() throws {
    let db = try connection()
    let insert = try db.cachedStatement("INSERT INTO v (x) VALUES (?)")
    try insert.bind("", at: 1)
    try insert.execute()
    let insertBlob = try db.cachedStatement("INSERT INTO v (x) VALUES (?)")
    try insertBlob.bind(Data(), at: 1)
    try insertBlob.execute()
    let types = try db.query("SELECT typeof(x) FROM v ORDER BY rowid") { $0.string(at: 0) }
    #expect(types == ["text", "blob"])
  }

  @Test func swiftTypesUseTheDocumentedMappings() throws {
    let id = try #require(UUID(uuidString: "3f4d8393-8d86-4c81-afb9-1854a5e38bdc"))
    let date = Date(timeIntervalSince1970: 1_764_500_000.25)
    let url = try #require(URL(string: "https://example.com/a%20b?q=1"))
    #expect(true.databaseValue == .integer(1))
    #expect(false.databaseValue == .integer(0))
    #expect(date.databaseValue == .real(1_764_500_000.25 - 978_307_200))
    #expect(id.databaseValue == .text("3F4D8393-8D86-4C81-AFB9-1854A5E38BDC"))
    #expect(url.databaseValue == .text("https://example.com/a%20b?q=1"))
    #expect(try Bool(databaseValue: roundTrip(true.databaseValue)) == true)
    #expect(try Date(databaseValue: roundTrip(date.databaseValue)) == date)
    #expect(try UUID(databaseValue: roundTrip(id.databaseValue)) == id)
    #expect(try URL(databaseValue: roundTrip(url.databaseValue)) == url)
    #expect(try Int(databaseValue: roundTrip(Int.min.databaseValue)) == Int.min)
    #expect(try String?(databaseValue: roundTrip(.null)) == .some(nil))
    #expect(Int(databaseValue: .text("1")) == nil)
    #expect(UUID(databaseValue: .text("not a uuid")) == nil)
  }

  /// A UUID's text written from its bytes is Foundation's `uuidString` (and lowercased).
  @Test func aUUIDsTextIsFoundationsUUIDString() {
    var ids = (0..<200).map { _ in UUID() }
    ids.append(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
    ids.append(
      UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
    for id in ids {
      #expect(id.text(uppercase: true) == id.uuidString)
      #expect(id.text() == id.uuidString.lowercased())
    }
  }

  @Test func typedReadersReadEachColumn() throws {
    let db = try connection()
    try db.execute("CREATE TABLE r (i INTEGER, d REAL, t TEXT, b BLOB, n)")
    let insert = try db.cachedStatement("INSERT INTO r VALUES (?, ?, ?, ?, ?)")
    try insert.bind(Int64.max, at: 1)
    try insert.bind(2.5, at: 2)
    try insert.bind("テキスト", at: 3)
    try insert.bind(Data([0, 1]), at: 4)
    try insert.bindNull(at: 5)
    try insert.execute()
    let select = try db.cachedStatement("SELECT i, d, t, b, n FROM r")
    #expect(try select.step())
    #expect(select.columnCount == 5)
    #expect(select.columnName(at: 2) == "t")
    #expect(select.int64(at: 0) == Int64.max)
    #expect(select.double(at: 1) == 2.5)
    #expect(select.string(at: 2) == "テキスト")
    #expect(select.data(at: 3) == Data([0, 1]))
    #expect(select.isNull(at: 4))
    #expect(!select.isNull(at: 0))
    #expect(try !select.step())
  }

  @Test func cachedStatementsAreReusedAndReset() throws {
    let db = try connection()
    let first = try db.cachedStatement("SELECT ?")
    try first.bind(1, at: 1)
    let second = try db.cachedStatement("SELECT ?")
    #expect(first === second)
    #expect(try second.step())
    #expect(second.isNull(at: 0))  // bindings were cleared when handed out again
  }

  @Test func bindingAnOutOfRangeParameterIsAnError() throws {
    let db = try connection()
    let statement = try db.cachedStatement("SELECT ?")
    #expect(throws: SQLiteError.self) { try statement.bind(1, at: 2) }
    do {
      try statement.bind(1, at: 2)
    } catch let error as SQLiteError {
      #expect(error.code == .range)
      #expect(error.sql == "SELECT ?")
    }
  }

  /// A value equals what was written, byte for byte: a NaN read back equals the NaN written,
  /// `-0.0` is not `0.0`, and text compares by its UTF-8 bytes, as SQLite's binary comparison
  /// does (a precomposed and a decomposed `é` are two values, and two rows of a unique column).
  @Test func valuesAreEqualWhenTheyStoreTheSameBytes() throws {
    #expect(DatabaseValue.real(.nan) == .real(.nan))
    #expect(DatabaseValue.real(0) != .real(-0.0))
    #expect(DatabaseValue.text("\u{E9}") != .text("e\u{301}"))
    #expect(DatabaseValue.integer(1) != .real(1))
    #expect(DatabaseValue.text("") != .null)
    #expect(DatabaseValue.blob(Data()) != .text(""))
    let set: Set<DatabaseValue> = [
      .real(.nan), .real(.nan), .text("\u{E9}"), .text("e\u{301}"), .text("\u{E9}"),
      .real(0), .real(-0.0), .null, .null,
    ]
    #expect(set.count == 6)
    let connection = try connection()
    try connection.execute("CREATE TABLE t (v TEXT UNIQUE)")
    try connection.run("INSERT INTO t (v) VALUES (?)", [.text("\u{E9}")])
    try connection.run("INSERT INTO t (v) VALUES (?)", [.text("e\u{301}")])
    let stored = try connection.query("SELECT v FROM t ORDER BY rowid") { $0.value(at: 0) }
    #expect(stored == [.text("\u{E9}"), .text("e\u{301}")])
  }
}
