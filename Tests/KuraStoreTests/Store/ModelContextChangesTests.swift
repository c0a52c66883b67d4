import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Model context changes")
struct ModelContextChangesTests {
  private struct Stop: Error {}

  /// Runs `changes` in a transaction that then throws, and expects the error to come out.
  private func failedTransaction(_ context: ModelContext, _ changes: () throws -> Void) {
    #expect(throws: Stop.self) {
      try context.transaction {
        try changes()
        throw Stop()
      }
    }
  }

  @Test(arguments: TestEngine.enabled)
  func fetchSeesUnsavedChangesWithPredicateSortAndLimit(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    let container = try ModelContainer(for: UniqueStudent.self, configurations: store.configuration)
    let context = ModelContext(container)
    let harry = UniqueStudent(name: "Harry Potter", year: 5)
    let ron = UniqueStudent(name: "Ron Weasley", year: 5)
    let ginny = UniqueStudent(name: "Ginny Weasley", year: 4)
    try context.transaction {
      try context.insert(harry)
      try context.insert(ron)
      try context.insert(ginny)
    }
    let luna = UniqueStudent(name: "Luna Lovegood", year: 4)
    try context.insert(luna)
    try context.delete(ron)
    var older = harry
    older.year = 6
    try context.insert(older)
    let descriptor = FetchDescriptor<UniqueStudent>(
      predicate: #Predicate { $0.year >= 4 }, sortBy: [SortDescriptor(\.name)], fetchLimit: 2)
    #expect(try context.fetch(descriptor) == [ginny, older])
    #expect(try context.fetchCount(FetchDescriptor<UniqueStudent>()) == 3)
    try context.save()
    #expect(try context.fetch(descriptor) == [ginny, older])
    #expect(
      try context.fetch(FetchDescriptor<UniqueStudent>(sortBy: [SortDescriptor(\.name)]))
        == [ginny, older, luna])
  }

  @Test(arguments: TestEngine.enabled)
  func deleteWhereDeletesMatchingModels(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    let container = try ModelContainer(for: Counter.self, configurations: store.configuration)
    let context = ModelContext(container)
    try context.transaction {
      for id in 1...10 { try context.insert(Counter(id: id, value: Double(id))) }
    }
    try context.delete(model: Counter.self, where: #Predicate { $0.value > 7 })
    #expect(try context.fetchCount(FetchDescriptor<Counter>()) == 7)
    try context.save()
    #expect(
      try context.fetch(FetchDescriptor<Counter>(sortBy: [SortDescriptor(\.id)])).map(\.id)
        == Array(1...7))
    try context.delete(model: Counter.self)
    try context.save()
    #expect(try context.fetchCount(FetchDescriptor<Counter>()) == 0)
  }

  @Test(arguments: TestEngine.enabled)
  func transactionThatThrowsDropsOnlyItsOwnChanges(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    let container = try ModelContainer(for: Tag.self, configurations: store.configuration)
    let context = ModelContext(container)
    try context.insert(Tag(id: "kept", color: nil))
    failedTransaction(context) { try context.insert(Tag(id: "dropped", color: "red")) }
    #expect(context.hasChanges)
    try context.save()
    #expect(try context.fetch(FetchDescriptor<Tag>()) == [Tag(id: "kept", color: nil)])
  }

  /// A log of only upserts, then one with a delete, each cut back by a failed transaction: the
  /// changes kept are those before each transaction, in order, before and after the first
  /// delete (the context lists its log's order only from that delete on), and a save after a
  /// save starts a log of upserts again.
  @Test(arguments: TestEngine.enabled)
  func failedTransactionsCutTheLogBackBeforeAndAfterItsFirstDelete(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    let container = try ModelContainer(for: Counter.self, configurations: store.configuration)
    let context = ModelContext(container)
    try context.insert(Counter(id: 1, value: 1))
    try context.insert(Counter(id: 2, value: 2))
    failedTransaction(context) {
      try context.insert(Counter(id: 3, value: 3))
      try context.delete(Counter(id: 1, value: 1))
    }
    #expect(
      try context.fetch(FetchDescriptor<Counter>(sortBy: [SortDescriptor(\.id)])).map(\.id) == [
        1, 2,
      ])
    try context.delete(Counter(id: 2, value: 2))
    try context.insert(Counter(id: 4, value: 4))
    try context.insert(Counter(id: 2, value: 22))
    failedTransaction(context) {
      try context.insert(Counter(id: 5, value: 5))
      try context.delete(Counter(id: 4, value: 4))
      try context.insert(Counter(id: 1, value: 11))
    }
    let saved = try context.save()
    #expect(saved.changes == ["Counter": .init(inserted: ["1", "4", "2"])])
    #expect(
      try context.fetch(FetchDescriptor<Counter>(sortBy: [SortDescriptor(\.id)]))
        == [Counter(id: 1, value: 1), Counter(id: 2, value: 22), Counter(id: 4, value: 4)])
    try context.insert(Counter(id: 6, value: 6))
    try context.insert(Counter(id: 1, value: 111))
    let next = try context.save()
    #expect(next.changes == ["Counter": .init(inserted: ["6"], updated: ["1"])])
    #expect(try context.model(for: 1, as: Counter.self) == Counter(id: 1, value: 111))
  }

  @Test(arguments: TestEngine.enabled)
  func autosaveWritesEachChangeAtOnce(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("autosave.sqlite"))
    let container = try ModelContainer(for: Counter.self, configurations: store.configuration)
    let writer = ModelContext(container)
    writer.autosaveEnabled = true
    try writer.insert(Counter(id: 1, value: 1))
    #expect(!writer.hasChanges)
    let other = ModelContext(
      try ModelContainer(for: Counter.self, configurations: store.configuration))
    #expect(try other.model(for: 1, as: Counter.self) == Counter(id: 1, value: 1))
    try writer.delete(Counter(id: 1, value: 1))
    #expect(try other.model(for: 1, as: Counter.self) == nil)
  }

  @MainActor @Test(arguments: TestEngine.enabled)
  func mainContextAutosaves(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    let container = try ModelContainer(for: Counter.self, configurations: store.configuration)
    #expect(container.mainContext.autosaveEnabled)
    try container.mainContext.insert(Counter(id: 3, value: 3))
    #expect(try ModelContext(container).model(for: 3, as: Counter.self) != nil)
  }

  @Test(arguments: TestEngine.enabled)
  func enumerateStreamsEveryRowInOrder(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("stream.sqlite"))
    let container = try ModelContainer(for: Counter.self, configurations: store.configuration)
    let context = ModelContext(container)
    try context.transaction {
      for id in 0..<5_000 { try context.insert(Counter(id: id, value: Double(id % 10))) }
    }
    var ids: [Int] = []
    try context.enumerate(
      FetchDescriptor<Counter>(
        predicate: #Predicate { $0.value == 3 }, sortBy: [SortDescriptor(\.id, order: .reverse)],
        fetchLimit: 3, fetchOffset: 1)
    ) { ids.append($0.id) }
    #expect(ids == [4983, 4973, 4963])
  }

  @Test(arguments: TestEngine.enabled)
  func modelTypeNotInTheContainerIsAnError(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    let container = try ModelContainer(for: Counter.self, configurations: store.configuration)
    let context = ModelContext(container)
    #expect {
      try context.insert(Tag(id: "x", color: nil))
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .modelNotInContainer
        && error.message
          == "Can't use `Tag` in this container: it is not one of its models (`Counter`). Add "
          + "`Tag.self` to `ModelContainer(for:)`."
    }
  }

  @Test(arguments: TestEngine.enabled)
  func saveThatFailsKeepsTheChangesPending(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    let container = try ModelContainer(for: Everything.self, configurations: store.configuration)
    let context = ModelContext(container)
    var broken = Everything()
    broken.uint64 = .max  // Above the largest integer SQLite stores: the save refuses it.
    try context.insert(broken)
    #expect {
      try context.save()
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .encodingFailed
    }
    #expect(context.hasChanges)
    context.rollback()
    #expect(try context.fetchCount(FetchDescriptor<Everything>()) == 0)
  }
}

/// The store test model `Tag`, not swift-testing's.
private typealias Tag = KuraEngineTestSupport.Tag
