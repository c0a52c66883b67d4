import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Model context in-memory fallback")
struct ModelContextFallbackTests {
  private func context(_ store: TestStore) throws -> ModelContext {
    let container = try ModelContainer(
      for: UniqueStudent.self, configurations: store.configuration)
    let context = ModelContext(container)
    try context.transaction {
      for (number, name) in [
        "Ron Weasley", "Hermione Granger", "Luna Lovegood", "Harry Potter",
        "Ginny Weasley", "Neville Longbottom",
      ].enumerated() {
        try context.insert(UniqueStudent(name: name, year: number))
      }
    }
    return context
  }

  @Test(arguments: TestEngine.enabled)
  func fetchResultSaysWhatRanInMemoryAndMatchesEvaluate(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("fallback.sqlite"))
    let context = try context(store)
    let predicate = #Predicate<UniqueStudent> { $0.year >= 1 && $0.name.count > 12 }
    let descriptor = FetchDescriptor<UniqueStudent>(
      predicate: predicate, sortBy: [SortDescriptor(\.year)], fetchLimit: 2, fetchOffset: 1)
    let result = try context.fetchResult(descriptor)
    #expect(result.inMemoryFallback?.predicateParts.isEmpty == false)
    let all = try context.fetch(FetchDescriptor<UniqueStudent>(sortBy: [SortDescriptor(\.year)]))
    let expected = Array(try all.filter { try predicate.evaluate($0) }.dropFirst(1).prefix(2))
    #expect(result.models == expected)
    #expect(result.models.map(\.name) == ["Luna Lovegood", "Ginny Weasley"])
    var streamed: [UniqueStudent] = []
    try context.enumerate(descriptor) { streamed.append($0) }
    #expect(streamed == expected)
    #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == 4)
    let plain = try context.fetchResult(
      FetchDescriptor<UniqueStudent>(predicate: #Predicate { $0.year > 3 }))
    #expect(plain.inMemoryFallback == nil)
    #expect(plain.models.count == 2)
  }

  @Test(arguments: TestEngine.enabled)
  func forbiddingTheFallbackThrows(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("fallback.sqlite"))
    let context = try context(store)
    let strict = FetchDescriptor<UniqueStudent>(
      predicate: #Predicate { $0.name.count > 12 }, allowsInMemoryFallback: false)
    expectStoreError(.inMemoryFallbackForbidden) { _ = try context.fetch(strict) }
  }

  @Test(arguments: TestEngine.enabled)
  func unsavedModelsAreFilteredByTheWholePredicate(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("fallback.sqlite"))
    let context = try context(store)
    try context.insert(UniqueStudent(name: "Cho Chang", year: 9))
    try context.insert(UniqueStudent(name: "Cedric Diggory", year: 9))
    let names = try context.fetch(
      FetchDescriptor<UniqueStudent>(
        predicate: #Predicate { $0.year == 9 && $0.name.count > 10 }))
    #expect(names.map(\.name) == ["Cedric Diggory"])
    var streamed: [String] = []
    try context.enumerate(
      FetchDescriptor<UniqueStudent>(
        predicate: #Predicate { $0.year >= 5 }, sortBy: [SortDescriptor(\.name)])
    ) { streamed.append($0.name) }
    #expect(streamed == ["Cedric Diggory", "Cho Chang", "Neville Longbottom"])
  }

  @Test(arguments: TestEngine.enabled)
  func uniqueAttributesAndIndexesAreCreatedFromTheSchema(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("fallback.sqlite"))
    _ = try context(store)
    let tables = try store.inspector().schema()
    #expect(
      tables.first?.indexes == [
        .init(name: "UniqueStudent_index_year", columns: ["year"], unique: false),
        .init(name: "UniqueStudent_unique_name", columns: ["name"], unique: true),
      ])
  }
}
