import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Model context")
struct ModelContextTests {
  @Test(arguments: TestEngine.enabled)
  func everyColumnTypeRoundTrips(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("nested/folders/store.sqlite"))
    var value = Everything()
    var other = Everything()
    other.optionalInt = 42
    other.optionalDate = Date(timeIntervalSince1970: -3.5)
    other.optionalMood = .happy
    other.optionalAddress = .init(city: "Nara", lines: [])
    other.optionalUUID = nil
    other.optionalBool = nil
    other.optionalString = nil
    other.optionalData = nil
    other.int64 = .max
    other.uint64 = 0
    do {
      let container = try ModelContainer(for: Everything.self, configurations: store.configuration)
      let context = ModelContext(container)
      try context.insert(value)
      try context.insert(other)
      try context.save()
    }
    let container = try ModelContainer(for: Everything.self, configurations: store.configuration)
    let context = ModelContext(container)
    let fetched = try context.fetch(QueryPlan<Everything>(orderBy: #""int64""#))
    #expect(fetched == [value, other])
    #expect(try context.model(for: other.id, as: Everything.self) == other)
    value.string = "changed"
    try context.insert(value)
    #expect(try context.model(for: value.id, as: Everything.self)?.string == "changed")
    #expect(try context.fetchCount(QueryPlan<Everything>()) == 2)
    // A pending change of one model leaves the other read from the store; an unsaved delete
    // hides the stored model; after the save, the store answers again.
    #expect(try context.model(for: other.id, as: Everything.self) == other)
    try context.delete(other)
    #expect(try context.model(for: other.id, as: Everything.self) == nil)
    try context.save()
    #expect(try context.model(for: other.id, as: Everything.self) == nil)
    #expect(try context.model(for: value.id, as: Everything.self)?.string == "changed")
  }

  @Test(arguments: TestEngine.enabled)
  func insertWithExistingUniqueValueUpdatesTheStoredRow(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    let container = try ModelContainer(
      for: UniqueStudent.self, configurations: store.configuration)
    let context = ModelContext(container)
    let first = UniqueStudent(name: "Luna Lovegood", year: 4)
    try context.insert(first)
    try context.save()
    try context.insert(UniqueStudent(name: "Luna Lovegood", year: 5))
    try context.save()
    let all = try context.fetch(QueryPlan<UniqueStudent>())
    #expect(all == [UniqueStudent(id: first.id, name: "Luna Lovegood", year: 5)])
  }

  @Test(arguments: TestEngine.enabled)
  func rollbackDropsUnsavedChanges(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    let container = try ModelContainer(for: Counter.self, configurations: store.configuration)
    let context = ModelContext(container)
    try context.insert(Counter(id: 1, value: 1))
    try context.save()
    try context.insert(Counter(id: 2, value: 2))
    try context.delete(Counter(id: 1, value: 1))
    #expect(context.hasChanges)
    #expect(try context.fetch(QueryPlan<Counter>()) == [Counter(id: 2, value: 2)])
    context.rollback()
    #expect(!context.hasChanges)
    #expect(try context.fetch(QueryPlan<Counter>()) == [Counter(id: 1, value: 1)])
  }
}
