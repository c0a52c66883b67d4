import Foundation
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Connection")
struct ConnectionTests {
  let folder = TemporaryDirectory()

  @Test func opensFilesInWALModeWithForeignKeysAndOwnerOnlyMode() throws {
    let path = folder.file("a.sqlite").path
    let db = try Connection(path: path)
    #expect(try db.queryFirst("PRAGMA journal_mode") { $0.string(at: 0) } == "wal")
    #expect(try db.queryFirst("PRAGMA foreign_keys") { $0.int64(at: 0) } == 1)
    #expect(try db.queryFirst("PRAGMA synchronous") { $0.int64(at: 0) } == 1)  // NORMAL
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
  }

  @Test func badStatementErrorNamesCodeMessageAndSQL() throws {
    let db = try Connection(path: ":memory:")
    #expect(throws: SQLiteError.self) { try db.prepare("SELEC 1") }
    do {
      _ = try db.prepare("SELEC 1")
    } catch let error as SQLiteError {
      #expect(error.code == .error)
      #expect(
        error.description
          == "SQLite error 1 (error): near \"SELEC\": syntax error — while executing `SELEC 1`")
    }
  }

  @Test func constraintErrorReadsLikeTheDocumentation() throws {
    let db = try Connection(path: ":memory:")
    try db.execute("CREATE TABLE trip (name TEXT NOT NULL)")
    do {
      try db.run("INSERT INTO trip (name) VALUES (?)", [.null])
      Issue.record("the insert should have failed")
    } catch let error as SQLiteError where error.code == .constraint {
      #expect(error.extendedCode == 1299)  // SQLITE_CONSTRAINT_NOTNULL
      #expect(
        error.description
          == "SQLite error 19 (constraint): NOT NULL constraint failed: trip.name"
          + " — while executing `INSERT INTO trip (name) VALUES (?)`")
    }
  }

  @Test func errorsNeverContainBoundValues() throws {
    let db = try Connection(path: ":memory:")
    try db.execute("CREATE TABLE secret (value TEXT UNIQUE)")
    try db.run("INSERT INTO secret VALUES (?)", [.text("hunter2")])
    do {
      try db.run("INSERT INTO secret VALUES (?)", [.text("hunter2")])
    } catch let error as SQLiteError {
      #expect(!error.description.contains("hunter2"))
      #expect(error.code == .constraint)
    }
  }

  @Test func openingANonDatabaseFileFailsAndLeavesItAlone() throws {
    let url = folder.file("not.sqlite")
    let content = Data(String(repeating: "this is not a database. ", count: 100).utf8)
    try content.write(to: url)
    #expect(throws: SQLiteError.self) { try Connection(path: url.path) }
    do {
      _ = try Connection(path: url.path)
    } catch let error as SQLiteError {
      #expect(error.code == .notADatabase)
      #expect(error.message == "file is not a database")
    }
    #expect(try Data(contentsOf: url) == content)
  }

  @Test func transactionCommitsOrRollsBack() throws {
    let db = try Connection(path: ":memory:")
    try db.execute("CREATE TABLE t (a INTEGER)")
    try db.transaction { try db.run("INSERT INTO t VALUES (1)") }
    struct Failure: Error {}
    #expect(throws: Failure.self) {
      try db.transaction {
        try db.run("INSERT INTO t VALUES (2)")
        throw Failure()
      }
    }
    #expect(try db.query("SELECT a FROM t") { $0.int64(at: 0) } == [1])
    #expect(!db.isInTransaction)
  }

  @Test func nestedSavepointRollsBackOnlyItsOwnWork() throws {
    let db = try Connection(path: ":memory:")
    try db.execute("CREATE TABLE t (a INTEGER)")
    struct Failure: Error {}
    try db.transaction {
      try db.run("INSERT INTO t VALUES (1)")
      try db.savepoint {
        try db.run("INSERT INTO t VALUES (2)")
        #expect(throws: Failure.self) {
          try db.savepoint {
            try db.run("INSERT INTO t VALUES (3)")
            throw Failure()
          }
        }
        try db.run("INSERT INTO t VALUES (4)")
      }
      // A transaction inside a transaction is a savepoint too.
      let innerError = #expect(throws: Failure.self) {
        try db.transaction {
          try db.run("INSERT INTO t VALUES (5)")
          throw Failure()
        }
      }
      #expect(innerError != nil)
    }
    #expect(try db.query("SELECT a FROM t ORDER BY a") { $0.int64(at: 0) } == [1, 2, 4])
  }

  @Test func dataVersionChangesWhenAnotherConnectionCommits() throws {
    let path = folder.file("v.sqlite").path
    let a = try Connection(path: path)
    let b = try Connection(path: path)
    try a.execute("CREATE TABLE t (a)")
    let before = try b.dataVersion()
    #expect(try b.dataVersion() == before)
    try a.run("INSERT INTO t VALUES (1)")
    #expect(try b.dataVersion() != before)
  }

  @Test func contendingWriterGetsBusyAfterItsTimeout() throws {
    let path = folder.file("busy.sqlite").path
    let a = try Connection(path: path)
    let b = try Connection(path: path, busyTimeout: .milliseconds(50))
    try a.execute("CREATE TABLE t (a)")
    try a.transaction(.immediate) {
      try a.run("INSERT INTO t VALUES (1)")
      do {
        try b.transaction(.immediate) { try b.run("INSERT INTO t VALUES (2)") }
        Issue.record("the second writer should have been refused")
      } catch let error as SQLiteError {
        #expect(error.code == .busy)
        #expect(error.sql == "BEGIN IMMEDIATE TRANSACTION")
      }
    }
    // Once the first commits, the second goes through.
    try b.transaction(.immediate) { try b.run("INSERT INTO t VALUES (2)") }
    #expect(try a.query("SELECT a FROM t ORDER BY a") { $0.int64(at: 0) } == [1, 2])
  }

  @Test func writerWaitsForAnotherProcessHoldingTheLock() throws {
    let path = folder.file("wait.sqlite").path
    let setup = try Connection(path: path)
    try setup.execute("CREATE TABLE t (a)")
    let helper = try ChildProcess(
      try executable("kura-testhelper"), ["hold-write-lock", path, "1"],
      environment: folder.environment)
    // Wait until the child says it holds the lock (its row written, not committed).
    #expect(helper.waitForLine { $0 == "locked" } == "locked")
    try setup.transaction(.immediate) { try setup.run("INSERT INTO t VALUES ('parent')") }
    // The busy timeout (5 s) waited for the child instead of failing: the child's row committed
    // first, this one after it.
    #expect(helper.waitForExit() == 0)
    #expect(
      try setup.query("SELECT a FROM t ORDER BY rowid") { $0.string(at: 0) } == ["child", "parent"])
  }
}
