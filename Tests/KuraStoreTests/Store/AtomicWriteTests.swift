import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

/// The counter several processes increment (the same model as
/// Sources/kura-testhelper/AtomicWriteHelpers.swift).
private struct SharedCounter: PersistentModel, Equatable {
  var id: String
  var value: Int
}

/// Adds one to the counter `visits` inside `ModelContainer.write`; returns the new value.
private func increment(_ container: ModelContainer) throws -> Int {
  try container.write { context in
    var counter =
      try context.model(for: "visits", as: SharedCounter.self)
      ?? SharedCounter(id: "visits", value: 0)
    counter.value += 1
    try context.insert(counter)
    return counter.value
  }
}

private struct BodyFailed: Error {}

@Suite("Atomic read-modify-write")
struct AtomicWriteTests {
  @Test(arguments: TestEngine.enabled)
  func fourProcessesIncrementingTheSameCounterLoseNoIncrement(_ engine: TestEngine) throws {
    let store = try freshStore(engine)
    let container = try ModelContainer(
      for: SharedCounter.self, configurations: store.configuration)
    let helper = try executable("kura-testhelper")
    let children = try (0..<4).map { _ in
      try ChildProcess(
        helper, ["store-increment", store.argument, "50"], environment: store.environment)
    }
    // Connecting to the test cluster takes longer than opening a file.
    let ready: TimeInterval = engine == .postgres ? 60 : 30
    for child in children {
      try #require(child.waitForLine(timeout: ready, where: { $0 == "ready" }) != nil)
    }
    for child in children { child.send(line: "go") }
    for child in children { #expect(child.waitForExit() == 0) }
    // Each increment read the value the one before it wrote: every value from 1 to 200 was
    // written exactly once, by one of the processes.
    let written = children.flatMap { $0.outputLines.dropFirst().compactMap { Int($0) } }
    #expect(written.count == 200)
    #expect(Set(written) == Set(1...200))
    let counter = try ModelContext(container).model(for: "visits", as: SharedCounter.self)
    #expect(counter?.value == 200)
  }

  /// Four processes increment one counter 150 times each while every save trims the history
  /// to its last 20 rows (so each write deletes rows other processes' saves wrote, and meets
  /// their deletes), 20 times over: a write that met a concurrent save fails with
  /// `.writeConflict` and is called again, and the counter ends exactly at 600 every time,
  /// each value written once.
  @Test(arguments: TestEngine.enabled)
  func fourProcessesIncrementingWhileTrimmingHistoryApplyEachWriteOnce(_ engine: TestEngine)
    throws
  {
    let helper = try executable("kura-testhelper")
    for run in 1...20 {
      let store = try freshStore(engine)
      let children = try (0..<4).map { _ in
        try ChildProcess(
          helper, ["store-increment-trimming", store.argument, "150", "20"],
          environment: store.environment)
      }
      let ready: TimeInterval = engine == .postgres ? 60 : 30
      for child in children {
        try #require(child.waitForLine(timeout: ready, where: { $0 == "ready" }) != nil)
      }
      for child in children { child.send(line: "go") }
      for child in children { #expect(child.waitForExit() == 0, "run \(run)") }
      let written = children.flatMap { $0.outputLines.dropFirst().compactMap { Int($0) } }
      #expect(written.count == 600, "run \(run)")
      #expect(Set(written) == Set(1...600), "run \(run)")
      let container = try ModelContainer(
        for: SharedCounter.self, configurations: store.configuration)
      let counter = try ModelContext(container).model(for: "visits", as: SharedCounter.self)
      #expect(counter?.value == 600, "run \(run)")
      let conflicts = children.map { $0.outputLines.filter { $0 == "conflict" }.count }
      if engine == .sqlite { #expect(conflicts == [0, 0, 0, 0], "run \(run)") }
      if counter?.value != 600 { break }
    }
  }

  @Test func aBodyThatThrowsWritesNothing() throws {
    let container = try ModelContainer(for: SharedCounter.self, configurations: .inMemory)
    #expect(try increment(container) == 1)
    #expect(throws: BodyFailed.self) {
      try container.write { context in
        try context.insert(SharedCounter(id: "visits", value: 99))
        try context.save()  // saved in the transaction, undone with it
        try context.insert(SharedCounter(id: "other", value: 1))
        throw BodyFailed()
      }
    }
    let context = ModelContext(container)
    #expect(
      try context.fetch(FetchDescriptor<SharedCounter>())
        == [SharedCounter(id: "visits", value: 1)])
    #expect(try container.history(since: .start).count == 1)
  }

  @Test func theBodyReadsItsOwnChangesAndItsSavesCommitTogether() throws {
    let folder = TemporaryDirectory()
    let container = try ModelContainer(
      for: SharedCounter.self, configurations: .url(folder.file("s.store")))
    let before = try container.currentHistoryToken()
    let (inside, outside) = try container.write { context -> (Int, Int) in
      try context.insert(SharedCounter(id: "a", value: 1))
      try context.save()
      try context.insert(SharedCounter(id: "b", value: 2))
      let inside = try context.fetchCount(FetchDescriptor<SharedCounter>())
      // Another context of the container reads in the same transaction.
      let outside = try ModelContext(container).fetchCount(FetchDescriptor<SharedCounter>())
      return (inside, outside)
    }
    #expect(inside == 2)
    #expect(outside == 1)
    let history = try container.history(since: before)
    #expect(history.map { $0.inserted(SharedCounter.self) } == [["a"], ["b"]])
    #expect(try ModelContext(container).fetchCount(FetchDescriptor<SharedCounter>()) == 2)
  }

  @Test func savingAnotherContextInsideTheBodyIsRefused() throws {
    let container = try ModelContainer(for: SharedCounter.self, configurations: .inMemory)
    let other = ModelContext(container)
    try other.insert(SharedCounter(id: "elsewhere", value: 1))
    try container.write { context in
      try context.insert(SharedCounter(id: "visits", value: 1))
      #expect {
        try other.save()
      } throws: { error in
        (error as? StoreError)?.code == .nestedWrite
          && (error as? StoreError)?.message.contains("ModelContainer.write") == true
      }
      #expect {
        _ = try increment(container)
      } throws: { error in
        (error as? StoreError)?.code == .nestedWrite
      }
    }
    #expect(other.hasChanges)
    try other.save()
    #expect(try ModelContext(container).fetchCount(FetchDescriptor<SharedCounter>()) == 2)
  }

  @Test func aReadOnlyContainerRefusesToWrite() throws {
    let folder = TemporaryDirectory()
    let store = folder.file("r.store")
    _ = try increment(try ModelContainer(for: SharedCounter.self, configurations: .url(store)))
    let reader = try ModelContainer(for: SharedCounter.self, configurations: .readOnly(store))
    #expect {
      _ = try increment(reader)
    } throws: { error in
      (error as? StoreError)?.code == .cannotOpen
        && (error as? StoreError)?.message.contains("reading only") == true
    }
  }
}
