import Foundation
import Testing

@testable import Kura

@Suite("DatabasePool smoke")
struct DatabasePoolSmokeTests {
  @Test func writeThenReadAndCountChanges() throws {
    let folder = TemporaryDirectory()
    let pool = try DatabasePool(path: folder.file("a.sqlite").path)
    let other = try DatabasePool(path: folder.file("a.sqlite").path)
    let before = other.changeCount
    try pool.write { db in
      try db.execute("CREATE TABLE t (a TEXT NOT NULL)")
      try db.run("INSERT INTO t (a) VALUES (?)", [.text("")])
    }
    #expect(other.changeCount == before + 1)
    let values = try other.read { db in try db.query("SELECT a FROM t") { $0.value(at: 0) } }
    #expect(values == [.text("")])
    #expect(throws: SQLiteError.self) {
      try pool.write { db in try db.run("INSERT INTO t (a) VALUES (NULL)") }
    }
    do {
      try pool.write { db in try db.run("INSERT INTO t (a) VALUES (NULL)") }
    } catch let error as SQLiteError {
      #expect(
        error.description
          == "SQLite error 19 (constraint): NOT NULL constraint failed: t.a — while executing `INSERT INTO t (a) VALUES (NULL)`"
      )
    }
  }
}
