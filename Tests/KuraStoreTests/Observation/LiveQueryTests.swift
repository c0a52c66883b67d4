import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Observation
import Synchronization
import Testing

@testable import Kura

@Suite("Live queries")
struct LiveQueryTests {
  private let byName = FetchDescriptor<RTrip>(sortBy: [SortDescriptor(\.name)])

  @Test(arguments: TestEngine.enabled)
  func updatesAfterASaveFromAnotherContext(_ engine: TestEngine) async throws {
    let store = try relationStore(engine)
    let container = try relationContainer(store)
    let writer = ModelContext(container)
    try writer.insert(RTrip(name: "Nara"))
    try writer.save()
    let query = try LiveQuery(byName, in: container)
    #expect(query.models.map(\.name) == ["Nara"])
    let inbox = Inbox(query.changes)
    let first = await inbox.next()
    #expect(first?.map(\.name) == ["Nara"])
    try writer.insert(RTrip(name: "Kyoto"))
    try writer.save()
    let second = await inbox.next()
    #expect(second?.map(\.name) == ["Kyoto", "Nara"])
    #expect(query.models.map(\.name) == ["Kyoto", "Nara"])
    #expect(query.fetchCount == 2)
  }

  @Test(arguments: TestEngine.enabled)
  func aSaveOfOtherModelsDoesNotFetchAgain(_ engine: TestEngine) async throws {
    let store = try relationStore(engine)
    let container = try relationContainer(store)
    let query = try LiveQuery(byName, in: container)
    let inbox = Inbox(query.changes)
    var results: [RTrip]?
    results = await inbox.next()
    #expect(results == [])
    let writer = ModelContext(container)
    try writer.insert(RNote(text: "not a trip", trip: nil))
    try writer.save()
    try writer.insert(RTrip(name: "Kyoto"))
    try writer.save()
    results = await inbox.next()
    #expect(results?.map(\.name) == ["Kyoto"])
    container.hub.drain()
    #expect(query.fetchCount == 2)
  }

  @Test(arguments: TestEngine.enabled)
  func observationTrackingSeesModelsChange(_ engine: TestEngine) async throws {
    let store = try relationStore(engine)
    let container = try relationContainer(store)
    let query = try LiveQuery(byName, in: container)
    let (changed, continuation) = AsyncStream<Void>.makeStream()
    withObservationTracking {
      _ = query.models
    } onChange: {
      continuation.yield()
    }
    let writer = ModelContext(container)
    try writer.insert(RTrip(name: "Kyoto"))
    try writer.save()
    let signal: Void? = await Inbox(changed).next()
    #expect(signal != nil)
    #expect(query.models.map(\.name) == ["Kyoto"])
  }

  @Test(arguments: TestEngine.enabled)
  func updatesAfterASaveByAnotherProcessButNotForOtherModels(_ engine: TestEngine) async throws {
    let store = try relationStore(engine)
    let container = try relationContainer(store)
    let query = try LiveQuery(byName, in: container)
    let inbox = Inbox(query.changes)
    var results: [RTrip]?
    results = await inbox.next()
    #expect(results == [])
    try runHelper(["relations-insert", store.argument, "note", "other model"], store: store)
    try runHelper(["relations-insert", store.argument, "trip", "Hakone"], store: store)
    results = await inbox.next()
    #expect(results?.map(\.name) == ["Hakone"])
    container.hub.drain()
    #expect(query.fetchCount == 2)
  }

  @Test(arguments: TestEngine.enabled)
  func asyncSequenceFormYieldsCurrentThenChangedResults(_ engine: TestEngine) async throws {
    let store = try relationStore(engine)
    let container = try relationContainer(store)
    let stream = try container.results(
      of: FetchDescriptor<RTrip>(predicate: #Predicate { $0.name != "hidden" }))
    let inbox = Inbox(stream)
    var results: [RTrip]?
    results = await inbox.next()
    #expect(results == [])
    let writer = ModelContext(container)
    try writer.insert(RTrip(name: "hidden"))
    try writer.insert(RTrip(name: "Kyoto"))
    try writer.save()
    results = await inbox.next()
    #expect(results?.map(\.name) == ["Kyoto"])
  }

  @Test(arguments: TestEngine.enabled)
  func cancelledQueryStopsUpdating(_ engine: TestEngine) async throws {
    let store = try relationStore(engine)
    let container = try relationContainer(store)
    let query = try LiveQuery(byName, in: container)
    let stream = query.changes
    query.cancel()
    let writer = ModelContext(container)
    try writer.insert(RTrip(name: "Kyoto"))
    try writer.save()
    container.hub.drain()
    #expect(query.fetchCount == 1)
    let inbox = Inbox(stream)
    var results: [RTrip]?
    results = await inbox.next()
    #expect(results == [])
    results = await inbox.next()
    #expect(results == nil)
  }

  @Test(arguments: TestEngine.enabled)
  func inMemoryStoreQueriesUpdateToo(_ engine: TestEngine) async throws {
    let store = try freshStore(engine, sqlite: .memory)
    let container = try relationContainer(store)
    let query = try LiveQuery(byName, in: container)
    let inbox = Inbox(query.changes)
    #expect(await inbox.next() == [])
    let writer = ModelContext(container)
    try writer.insert(RTrip(name: "Kyoto"))
    try writer.save()
    #expect(await inbox.next()?.map(\.name) == ["Kyoto"])
  }

  /// Three processes and this one save trips while three threads call `refresh()` over and over:
  /// every sequence of readings grows (results are published in commit order), and once the
  /// last save settles the published results equal a fresh fetch.
  @Test(arguments: TestEngine.enabled)
  func resultsArePublishedInCommitOrderAndSettleOnAFreshFetch(_ engine: TestEngine) async throws {
    let store = try relationStore(engine)
    let container = try relationContainer(store)
    let query = try LiveQuery(byName, in: container)
    let published = Inbox(query.changes)
    let helper = try executable("kura-testhelper")
    let children = try ["a", "b", "c"].map {
      try ChildProcess(
        helper, ["signal-trips-insert", store.argument, $0, "30"], environment: store.environment)
    }
    let writing = Atomic<Bool>(true)
    let backwards = Mutex<[String]>([])
    let refreshers = (0..<3).map { number in
      Thread {
        var last = 0
        while writing.load(ordering: .acquiring) {
          try? query.refresh()
          let count = query.models.count
          if count < last {
            backwards.withLock { $0.append("refresher \(number): \(last) → \(count)") }
          }
          last = count
        }
      }
    }
    for thread in refreshers { thread.start() }
    let writer = ModelContext(container)
    for number in 0..<30 {
      try writer.insert(RTrip(name: "d-\(number)"))
      try writer.save()
    }
    for child in children {
      child.waitForLine(timeout: 120) { $0 == "done" }
      #expect(child.waitForExit() == 0)
    }
    writing.store(false, ordering: .releasing)
    var seen: [Int] = []
    while let models = await published.next() {
      seen.append(models.count)
      if models.count == 120 { break }
    }
    #expect(backwards.withLock { $0 } == [])
    #expect(seen == seen.sorted())
    #expect(seen.last == 120)
    let fresh = try ModelContext(container).fetch(byName)
    #expect(query.models.map(\.id) == fresh.map(\.id))
  }
}
