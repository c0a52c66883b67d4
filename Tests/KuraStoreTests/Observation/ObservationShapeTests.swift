import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

/// The rules every layer's `AsyncStream` follows: the current value first, then the newest value
/// after changes (several changes while the reader is busy arrive as one), and the end when the
/// source closes or the reading task is cancelled.
@Suite("One observation shape")
struct ObservationShapeTests {
  private let key = Preferences.Key<Int>("count", default: 0)

  @Test func preferencesStartWithTheCurrentValueAndCoalesce() async throws {
    let folder = TemporaryDirectory()
    let preferences = try Preferences(fileURL: folder.file("suite.sqlite"))
    try preferences.set(1, for: key)
    var iterator = preferences.changes(of: key).makeAsyncIterator()
    #expect(await iterator.next() == 1)
    for value in 2...5 { try preferences.set(value, for: key) }
    #expect(await iterator.next() == 5)
  }

  @Test func changedKeysUniteTheNamesOfChangesNotYetRead() async throws {
    let folder = TemporaryDirectory()
    let preferences = try Preferences(fileURL: folder.file("suite.sqlite"))
    var iterator = preferences.changedKeys.makeAsyncIterator()
    try preferences.set(1, for: key)
    try preferences.set("x", for: Preferences.Key<String>("name", default: ""))
    #expect(await iterator.next() == ["count", "name"])
  }

  @Test func documentsStartWithTheCurrentValueCoalesceAndEndOnClose() async throws {
    let folder = TemporaryDirectory()
    let store = try DocumentStore(.url(folder.file("counter.json")), defaultValue: 0)
    try store.replace(with: 1)
    var iterator = store.changes.makeAsyncIterator()
    #expect(await iterator.next() == 1)
    for value in 2...5 { try store.replace(with: value) }
    #expect(await iterator.next() == 5)
    try store.close()
    #expect(await iterator.next() == nil)
  }

  @Test(arguments: TestEngine.enabled)
  func liveQueriesStartWithTheCurrentResultsCoalesceAndEndOnCancel(_ engine: TestEngine)
    async throws
  {
    let store = try relationStore(engine)
    let container = try relationContainer(store)
    let query = try LiveQuery(FetchDescriptor<RTrip>(), in: container)
    var iterator = query.changes.makeAsyncIterator()
    #expect(await iterator.next()?.count == 0)
    let writer = ModelContext(container)
    for number in 0..<4 {
      try writer.insert(RTrip(name: "trip \(number)"))
      try writer.save()
    }
    container.hub.drain()
    #expect(await iterator.next()?.count == 4)
    query.cancel()
    #expect(await iterator.next() == nil)
  }

  @Test func cancellingTheReadingTaskEndsTheSequenceAndUnsubscribes() async throws {
    let folder = TemporaryDirectory()
    let store = try DocumentStore(.url(folder.file("counter.json")), defaultValue: 0)
    let changes = store.changes
    let reader = Task {
      var count = 0
      for await _ in changes { count += 1 }
      return count
    }
    reader.cancel()
    #expect(await reader.value <= 1)
    #expect(store.subscribers.withLock { $0.live.count } == 0)
  }
}
