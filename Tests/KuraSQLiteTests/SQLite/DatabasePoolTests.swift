import Foundation
import KuraTestSupport
import Synchronization
import Testing

@testable import Kura

@Suite("DatabasePool")
struct DatabasePoolTests {
  let folder = TemporaryDirectory()

  func makePool() throws -> DatabasePool {
    let pool = try DatabasePool(path: folder.file("pool.sqlite").path)
    try pool.write { db in try db.execute("CREATE TABLE IF NOT EXISTS t (a)") }
    return pool
  }

  @Test func readersSeeCommittedStateWhileAWriterIsInsideATransaction() async throws {
    let pool = try makePool()
    try pool.write { db in try db.run("INSERT INTO t VALUES ('before')") }
    let (stream, continuation) = AsyncStream<String>.makeStream()
    let (release, releaser) = AsyncStream<Void>.makeStream()
    let writer = Task.detached {
      try pool.write { db in
        try db.run("INSERT INTO t VALUES ('during')")
        continuation.yield("writing")
        // Hold the transaction open until the reader has read.
        let semaphore = DispatchSemaphore(value: 0)
        Task {
          for await _ in release { break }
          semaphore.signal()
        }
        semaphore.wait()
      }
    }
    var iterator = stream.makeAsyncIterator()
    #expect(await iterator.next() == "writing")
    // A reader runs while the writer holds its uncommitted transaction.
    let seen = try pool.read { db in try db.query("SELECT a FROM t") { $0.string(at: 0) } }
    #expect(seen == ["before"])
    releaser.yield()
    try await writer.value
    let after = try pool.read { db in try db.query("SELECT a FROM t") { $0.string(at: 0) } }
    #expect(after == ["before", "during"])
  }

  @Test func aReadLeavingItsStatementAfterTheFirstRowHoldsNoSnapshot() throws {
    let pool = try makePool()
    try pool.write { db in
      for index in 0..<3 { try db.run("INSERT INTO t VALUES (?)", [.integer(Int64(index))]) }
    }
    let sql = "SELECT a FROM t ORDER BY a"
    // A lookup reads the first row and leaves the statement in the middle of its rows.
    let first = try pool.read { db -> Statement in
      let statement = try db.cachedStatement(sql)
      #expect(try statement.step())
      return statement
    }
    try pool.write { db in try db.run("INSERT INTO t VALUES (3)") }
    // A passive checkpoint copies every frame of the WAL only when no reader keeps a snapshot
    // older than the last commit: (busy, frames in the WAL, frames checkpointed).
    let checkpoint = try pool.writeWithoutTransaction { db in
      try db.queryFirst("PRAGMA wal_checkpoint(PASSIVE)") {
        [$0.int64(at: 0), $0.int64(at: 1), $0.int64(at: 2)]
      }
    }
    let frames = try #require(checkpoint)[1]
    #expect(frames > 0)
    #expect(checkpoint == [0, frames, frames])
    // The next read finds the same statement ready rather than preparing another.
    let again = try pool.read { db in try db.cachedStatement(sql) }
    #expect(again === first)
    let rows = try pool.read { db in try db.query(sql) { $0.int64(at: 0) } }
    #expect(rows == [0, 1, 2, 3])
  }

  @Test func concurrentReadsAndWritesFromManyTasksLoseNothing() async throws {
    let pool = try makePool()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for task in 0..<8 {
        group.addTask {
          for index in 0..<50 {
            if task.isMultiple(of: 2) {
              try pool.write { db in
                try db.run("INSERT INTO t VALUES (?)", [.integer(Int64(index))])
              }
            } else {
              _ = try pool.read { db in
                try db.queryFirst("SELECT count(*) FROM t") { $0.int64(at: 0) }
              }
            }
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(
      try pool.read { db in try db.queryFirst("SELECT count(*) FROM t") { $0.int64(at: 0) } } == 200
    )
  }

  @Test func writeRollsBackWhenTheBodyThrows() throws {
    let pool = try makePool()
    struct Failure: Error {}
    #expect(throws: Failure.self) {
      try pool.write { db in
        try db.run("INSERT INTO t VALUES (1)")
        throw Failure()
      }
    }
    #expect(
      try pool.read { db in try db.queryFirst("SELECT count(*) FROM t") { $0.int64(at: 0) } } == 0)
  }

  @Test func changeCountGrowsOnlyForWritesThatChangeRows() throws {
    let pool = try makePool()
    let other = try DatabasePool(path: folder.file("pool.sqlite").path)
    let start = other.changeCount
    try pool.write { db in try db.run("INSERT INTO t VALUES (1)") }
    #expect(other.changeCount == start + 1)
    _ = try pool.write { db in try db.query("SELECT a FROM t") { $0.value(at: 0) } }
    #expect(other.changeCount == start + 1)
    struct Failure: Error {}
    try? pool.write { _ in throw Failure() }
    #expect(other.changeCount == start + 1)
  }

  @Test func inMemoryPoolServesReadsAndWrites() throws {
    let pool = try DatabasePool.inMemory()
    try pool.write { db in
      try db.execute("CREATE TABLE t (a)")
      try db.run("INSERT INTO t VALUES (1)")
    }
    #expect(try pool.read { db in try db.query("SELECT a FROM t") { $0.int64(at: 0) } } == [1])
    #expect(pool.isInMemory)
  }

  @Test func anotherProcessesWriteIsObservedPromptly() async throws {
    let pool = try makePool()
    let (stream, continuation) = AsyncStream<UInt64>.makeStream()
    let observation = pool.observeChanges { count in continuation.yield(count) }
    defer { observation.cancel() }
    let before = pool.changeCount
    let result = try run(
      try executable("kura-testhelper"), ["pool-insert", folder.file("pool.sqlite").path, "x"],
      environment: folder.environment)
    #expect(result.status == 0, "\(result.stderr)")
    // Bounded: a change never delivered fails the test instead of hanging it.
    let seen = try await firstValue(of: stream, within: 30) { _ in true }
    #expect(seen == before + 1)
    #expect(pool.changeCount == before + 1)
    #expect(try pool.read { db in try db.query("SELECT a FROM t") { $0.string(at: 0) } } == ["x"])
  }

  @Test func cancelledObservationStopsCalling() async throws {
    let pool = try makePool()
    let calls = Mutex(0)
    let cancelled = pool.observeChanges { _ in calls.withLock { $0 += 1 } }
    cancelled.cancel()
    cancelled.cancel()
    // An observer left running shows when the changes were delivered.
    let (stream, continuation) = AsyncStream<UInt64>.makeStream()
    let running = pool.observeChanges { stamp in continuation.yield(stamp) }
    defer { running.cancel() }
    for value in 1...2 {
      try pool.write { db in try db.run("INSERT INTO t VALUES (?)", [.integer(Int64(value))]) }
      let written = pool.changeCount
      // Bounded: a change never delivered fails the test instead of hanging it.
      #expect(try await firstValue(of: stream, within: 30) { $0 == written } == written)
    }
    // The watcher delivers on one thread, one change after another: the first change's delivery
    // (to every handler still registered) finished before the second's reached the running one.
    #expect(calls.withLock { $0 } == 0)
  }
}
