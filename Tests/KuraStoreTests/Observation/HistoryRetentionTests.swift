import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Synchronization
import Testing

@testable import Kura

private struct Entry: PersistentModel, Equatable {
  var id: Int
  var text: String
}

private func historyRows(_ container: ModelContainer) throws -> [Int64] {
  try container.pool.read {
    try $0.query("SELECT token FROM kura_history ORDER BY token") { $0.int64(at: 0) }
  }
}

/// A fresh store on `engine` (released with the returned value, which the test keeps), its
/// configuration keeping `retention`, and a container opened with it.
private func retentionStore(
  _ engine: TestEngine, keeping retention: HistoryRetention, _ testName: String = #function
) throws -> (store: TestStore, configuration: ModelConfiguration, container: ModelContainer) {
  let store = try freshStore(engine, sqlite: .file("h.store"), testName)
  var configuration = store.configuration
  configuration.historyRetention = retention
  return (store, configuration, try ModelContainer(for: Entry.self, configurations: configuration))
}

/// Saves entries 1 to 10, one save each; returns the saves' tokens.
private func saveTenEntries(_ container: ModelContainer) throws -> [HistoryToken] {
  let context = ModelContext(container)
  return try (1...10).map { id in
    try context.insert(Entry(id: id, text: "entry \(id)"))
    return try context.save().token
  }
}

@Suite("History retention")
struct HistoryRetentionTests {
  @Test func historyIsBoundedByDefault() throws {
    let retention = ModelConfiguration.url(URL(fileURLWithPath: "/tmp/x.store")).historyRetention
    #expect(retention == .default)
    #expect(retention.maximumCount == 10_000)
    #expect(retention.maximumAge == TimeInterval(7 * 86_400))
  }

  @Test(arguments: TestEngine.enabled)
  func historyOffRecordsNoSaveButSavesTheModels(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("h.store"))
    let first = try ModelContext(
      ModelContainer(for: Entry.self, configurations: store.configuration))
    try first.insert(Entry(id: 1, text: "recorded"))
    let recorded = try first.save().token
    var configuration = store.configuration
    configuration.historyRetention = .off
    #expect(configuration.historyRetention != .unlimited)
    let container = try ModelContainer(for: Entry.self, configurations: configuration)
    let context = ModelContext(container)
    try context.insert(Entry(id: 2, text: "not recorded"))
    let changeSet = try context.save()
    #expect(changeSet.token == recorded)
    #expect(changeSet.changes["Entry"]?.inserted == ["2"])
    #expect(try container.history(since: .start).map(\.token) == [recorded])
    #expect(try container.history(since: recorded).isEmpty)
    #expect(try context.fetch(FetchDescriptor<Entry>()).map(\.id) == [1, 2])
  }

  @Test(arguments: TestEngine.enabled)
  func savesTrimTheHistoryToTheKeptCountAndOldReadersAreToldToRefetch(_ engine: TestEngine)
    async throws
  {
    let fresh = try retentionStore(
      engine, keeping: HistoryRetention(maximumAge: nil, maximumCount: 3))
    let container = fresh.container
    let tokens = try saveTenEntries(container)
    // A reader that saw save 7 gets saves 8 to 10; one that saw save 6 or 2 is told to refetch.
    #expect(try container.history(since: tokens[6]).map(\.token) == Array(tokens.suffix(3)))
    expectStoreError(.historyTrimmed) { _ = try container.history(since: tokens[5]) }
    #expect {
      _ = try container.history(since: tokens[1])
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .historyTrimmed
        && error.message
          == "Can't read the history of store `\(fresh.store.name)` since token \(tokens[1]): "
          + "the saves up to token \(tokens[6]) were trimmed (see "
          + "`ModelConfiguration.historyRetention`). Fetch the models again and continue from "
          + "`currentHistoryToken()`."
    }
    // A live query whose reader may fall behind the kept history (six saves by another
    // container, three kept) still ends with every model.
    let query = try LiveQuery(FetchDescriptor<Entry>(), in: container)
    let inbox = Inbox(query.changes)
    #expect(await inbox.next()?.count == 10)
    let writer = ModelContext(
      try ModelContainer(for: Entry.self, configurations: fresh.configuration))
    for id in 11...16 {
      try writer.insert(Entry(id: id, text: "entry \(id)"))
      try writer.save()
    }
    var seen = 10
    while seen < 16, let models = await inbox.next() { seen = models.count }
    #expect(seen == 16)
    #expect(query.models.map(\.id).sorted() == Array(1...16))
  }

  /// The history table holds exactly the kept saves, and a live query's reader behind it is told
  /// every model changed.
  @Test func theSQLiteHistoryTableHoldsExactlyTheKeptSaves() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("h.store")
    let first = try ModelContext(ModelContainer(for: Entry.self, configurations: .url(url)))
    try first.insert(Entry(id: 1, text: "recorded"))
    let recorded = try first.save().token
    var off = ModelConfiguration.url(url)
    off.historyRetention = .off
    let unrecorded = try ModelContainer(for: Entry.self, configurations: off)
    let second = ModelContext(unrecorded)
    try second.insert(Entry(id: 2, text: "not recorded"))
    try second.save()
    #expect(try historyRows(unrecorded) == [recorded.rawValue])

    var configuration = ModelConfiguration.url(folder.file("kept.store"))
    configuration.historyRetention = HistoryRetention(maximumAge: nil, maximumCount: 3)
    let container = try ModelContainer(for: Entry.self, configurations: configuration)
    let tokens = try saveTenEntries(container)
    #expect(try historyRows(container) == tokens.suffix(3).map(\.rawValue))
    let changed = try container.pool.read {
      try ChangeHistory.changedModels(
        since: tokens[1], below: try ChangeHistory.horizon($0), in: $0)
    }
    #expect(changed.models == ["Entry"])
    #expect(changed.latest == tokens[9])

    var unlimited = ModelConfiguration.url(folder.file("unlimited.store"))
    unlimited.historyRetention = .unlimited
    let everything = try ModelContainer(for: Entry.self, configurations: unlimited)
    let writer = ModelContext(everything)
    for id in 1...5 {
      try writer.insert(Entry(id: id, text: "entry"))
      try writer.save()
    }
    #expect(try historyRows(everything).count == 5)
  }

  @Test(arguments: TestEngine.enabled)
  func savesTrimHistoryOlderThanTheKeptAge(_ engine: TestEngine) throws {
    let fresh = try retentionStore(
      engine, keeping: HistoryRetention(maximumAge: 3_600, maximumCount: nil))
    let container = fresh.container
    let context = ModelContext(container)
    try context.insert(Entry(id: 1, text: "old"))
    let old = try context.save().token
    // That save happened two hours ago: another container of the store (another process, as
    // far as this one knows) says so while this container stays open.
    let other = try ModelContainer(for: Entry.self, configurations: fresh.configuration)
    try other.pool.write { db in
      try db.run(
        "UPDATE kura_history SET time = ? WHERE token = ?",
        [.real(Date().timeIntervalSince1970 - 7_200), .integer(old.rawValue)])
    }
    // A save trusts the oldest row's time it read for a second (other writers' saves only add
    // newer rows); after that it reads it again and trims what was made old meanwhile.
    Thread.sleep(forTimeInterval: ChangeHistory.oldestTimeTrust + 0.1)
    try context.insert(Entry(id: 2, text: "new"))
    let new = try context.save().token
    #expect(try historyRows(container) == [new.rawValue])
    expectStoreError(.historyTrimmed) { _ = try container.history(since: .start) }
    #expect(try container.history(since: old).map(\.token) == [new])

    // The app is opened again later: a new container trims what aged meanwhile too.
    try other.pool.write { db in
      try db.run(
        "UPDATE kura_history SET time = ? WHERE token = ?",
        [.real(Date().timeIntervalSince1970 - 7_200), .integer(new.rawValue)])
    }
    let reopened = ModelContext(
      try ModelContainer(for: Entry.self, configurations: fresh.configuration))
    try reopened.insert(Entry(id: 3, text: "newer"))
    let newer = try reopened.save().token
    #expect(try historyRows(container) == [newer.rawValue])
  }

  /// Over the count, a save trims a hundredth further, so the next saves trim nothing; the
  /// history never holds more than the count.
  @Test(arguments: TestEngine.enabled)
  func countTrimmingGoesAHundredthUnderTheCount(_ engine: TestEngine) throws {
    let fresh = try retentionStore(
      engine, keeping: HistoryRetention(maximumAge: nil, maximumCount: 200))
    let container = fresh.container
    let context = ModelContext(container)
    var tokens: [Int64] = []
    func save(_ id: Int) throws {
      try context.insert(Entry(id: id, text: "entry"))
      tokens.append(try context.save().token.rawValue)
    }
    for id in 1...200 { try save(id) }
    #expect(try historyRows(container) == tokens)
    try save(201)  // one over: down to 198
    #expect(try historyRows(container) == Array(tokens.suffix(198)))
    try save(202)
    try save(203)  // 200 again: nothing to trim
    #expect(try historyRows(container) == Array(tokens.suffix(200)))
    try save(204)
    #expect(try historyRows(container) == Array(tokens.suffix(198)))
    // A reader that has not seen a deleted save is told to fetch again; one that saw the last
    // deleted save reads on from the oldest kept one.
    let missed = HistoryToken(rawValue: tokens[4])
    expectStoreError(.historyTrimmed) { _ = try container.history(since: missed).count }
    let sawLastDeleted = HistoryToken(rawValue: tokens[5])
    #expect(try container.history(since: sawLastDeleted).count == 198)
  }

  /// A container that keeps saving goes on trimming as its saves age (saves skip reading the
  /// oldest row while the one they know is young enough: that must not outlive its age).
  @Test(arguments: TestEngine.enabled)
  func savesOfOneContainerTrimItsOwnSavesOnceTheyAge(_ engine: TestEngine) throws {
    let age = 0.2
    let fresh = try retentionStore(
      engine, keeping: HistoryRetention(maximumAge: age, maximumCount: nil))
    let container = fresh.container
    let context = ModelContext(container)
    try context.insert(Entry(id: 1, text: "young"))
    let first = try context.save().token
    // The save's stored time (a read: the container still trusts the oldest row it knows).
    let stored = try #require(
      try container.pool.read { db in
        try db.queryFirst(
          "SELECT time FROM kura_history WHERE token = ?", [.integer(first.rawValue)]
        ) { $0.double(at: 0) }
      })
    // Until the clock is past the moment that save leaves the kept age: a deadline computed
    // from the stored time, not a guess at how long anything takes.
    let deadline = stored + age
    while Date().timeIntervalSince1970 <= deadline {
      Thread.sleep(forTimeInterval: max(0.001, deadline - Date().timeIntervalSince1970))
    }
    try context.insert(Entry(id: 2, text: "now"))
    let latest = try context.save().token
    #expect(try historyRows(container) == [latest.rawValue])
  }

  /// The change feed never skips: saves trimmed (by another container keeping less) before
  /// the feed read them end it with `historyTrimmed`, after the change sets it did read. The
  /// feed's hub is held on its first change set by a subscriber of its own, so the trim happens
  /// before the next read.
  @Test(arguments: TestEngine.enabled)
  func aFeedBehindTheKeptHistoryThrowsHistoryTrimmed(_ engine: TestEngine) async throws {
    let fresh = try retentionStore(engine, keeping: .unlimited)
    let reader = fresh.container
    let held = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let firstCall = Atomic<Bool>(true)
    let blocker = try reader.hub.subscribe(models: nil) { _ in
      guard firstCall.exchange(false, ordering: .relaxed) else { return }
      held.signal()
      release.wait()
    }
    defer { blocker.cancel() }
    let feed = Inbox(try reader.changeSets())
    var keepingOne = fresh.configuration
    keepingOne.historyRetention = HistoryRetention(maximumAge: nil, maximumCount: 1)
    let writer = ModelContext(try ModelContainer(for: Entry.self, configurations: keepingOne))
    try writer.insert(Entry(id: 1, text: "delivered"))
    let first = try writer.save().token
    #expect(held.wait(timeout: .now() + 30) == .success)
    for id in 2...3 {
      try writer.insert(Entry(id: id, text: "trimmed unread"))
      try writer.save()
    }
    #expect(try historyRows(reader).count == 1)
    release.signal()
    let delivered = await feed.next()
    #expect(delivered?.token == first)
    #expect(await feed.next() == nil)
    let failure = await feed.failure
    #expect((failure as? StoreError)?.code == .historyTrimmed)
    #expect(
      (failure as? StoreError)?.message.hasPrefix(
        "Can't deliver the change sets of store `\(fresh.store.name)` after token \(first): saves "
          + "after it were trimmed before this reader got to them") == true)
  }

  @Test(arguments: TestEngine.enabled)
  func unlimitedRetentionKeepsEverySave(_ engine: TestEngine) throws {
    let fresh = try retentionStore(engine, keeping: .unlimited)
    let container = fresh.container
    let context = ModelContext(container)
    for id in 1...5 {
      try context.insert(Entry(id: id, text: "entry"))
      try context.save()
    }
    #expect(try container.history(since: .start).count == 5)
  }

  /// PostgreSQL: one trim at a time. While another connection trims (it holds the trim lock and
  /// has deleted rows, not yet committed), saves that would trim leave it to that one rather than
  /// wait for its rows (writers trimming at once used to wait for each other and could deadlock).
  /// Once it is gone, the next save trims.
  @Test func aSaveLeavesTheTrimToTheWriterTrimmingAlready() throws {
    #if canImport(CLibPQ)
      let fresh = try retentionStore(
        .postgres, keeping: HistoryRetention(maximumAge: nil, maximumCount: 3))
      let context = ModelContext(fresh.container)
      var tokens: [HistoryToken] = []
      for id in 1...3 {
        try context.insert(Entry(id: id, text: "entry \(id)"))
        tokens.append(try context.save().token)
      }
      let trimmer = try PostgresConnection(fresh.store.argument)
      try trimmer.execute("BEGIN")
      #expect(
        try trimmer.queryFirst(PostgresStoreEngine.historyTrimLockSQL) { $0.int64(at: 0) } == 1)
      try trimmer.execute("DELETE FROM kura_history WHERE token <= \(tokens[0].rawValue)")
      let saved = DispatchSemaphore(value: 0)
      let outcome = Mutex<Result<[HistoryToken], any Error>?>(nil)
      let container = fresh.container
      let saver = Thread {
        let result = Result {
          let writer = ModelContext(container)
          return try (4...7).map { id in
            try writer.insert(Entry(id: id, text: "entry \(id)"))
            return try writer.save().token
          }
        }
        outcome.withLock { $0 = result }
        saved.signal()
      }
      saver.start()
      let finished = saved.wait(timeout: .now() + 30) == .success
      #expect(finished, "the saves waited for the other connection's trim")
      // The saves trimmed nothing meanwhile: the first row is the other connection's to delete.
      let whileHeld = try historyRows(fresh.container)
      try trimmer.execute("ROLLBACK")
      if !finished { _ = saved.wait(timeout: .now() + 30) }
      let later = try #require(try outcome.withLock { $0 }?.get())
      #expect(whileHeld == (tokens + later).map(\.rawValue))
      try context.insert(Entry(id: 8, text: "entry 8"))
      let last = try context.save().token
      #expect(
        try historyRows(fresh.container) == [later[2].rawValue, later[3].rawValue, last.rawValue])
    #endif
  }
}
