import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

private struct Place: PersistentModel, Equatable {
  var id: Int
  var name: String
  var notes: String?
  var visited: Bool
  static var schema: Schema<Place> { Schema(.searchable(\.name, \.notes)) }
}

private struct PlaceWithoutNotes: PersistentModel, Equatable {
  var id: Int
  var name: String
  var visited: Bool
  static var schemaName: String { "Place" }
  static var schema: Schema<PlaceWithoutNotes> { Schema(.searchable(\.name)) }
}

@Suite("Full-text search")
struct SearchTests {
  private func seed(_ context: ModelContext) throws {
    try context.insert(Place(id: 1, name: "Kinkaku-ji temple", notes: "golden", visited: true))
    try context.insert(Place(id: 2, name: "Fushimi Inari", notes: "temple gates", visited: false))
    try context.insert(Place(id: 3, name: "Nishiki market", notes: nil, visited: false))
    try context.insert(Place(id: 4, name: "Café Kyōto", notes: "temple view", visited: true))
    try context.save()
  }

  @Test(arguments: TestEngine.enabled)
  func matchesEveryWordAsAPrefixWithThePredicateAndSort(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("p.store"))
    let context = ModelContext(
      try ModelContainer(for: Place.self, configurations: store.configuration))
    try seed(context)
    let byID = FetchDescriptor<Place>(sortBy: [SortDescriptor(\.id)])
    #expect(try context.fetch(byID, matching: "temple").map(\.id) == [1, 2, 4])
    #expect(try context.fetch(byID, matching: "TEMP gat").map(\.id) == [2])
    #expect(try context.fetch(byID, matching: "cafe kyoto").map(\.id) == [4])
    #expect(try context.fetch(byID, matching: "   ").isEmpty)
    #expect(try context.fetch(byID, matching: "\"quoted\" OR").isEmpty)
    let visited = FetchDescriptor<Place>(
      predicate: #Predicate { $0.visited }, sortBy: [SortDescriptor(\.id, order: .reverse)])
    #expect(try context.fetch(visited, matching: "temple").map(\.id) == [4, 1])
    // Without sort descriptors the best match comes first (FTS5 rank).
    let ranked = try context.fetch(FetchDescriptor<Place>(), matching: "temple")
    #expect(Set(ranked.map(\.id)) == [1, 2, 4])
  }

  @Test(arguments: TestEngine.enabled)
  func theIndexFollowsUpdatesDeletesAndOtherContainersWrites(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("p.store"))
    let context = ModelContext(
      try ModelContainer(for: Place.self, configurations: store.configuration))
    try seed(context)
    try context.insert(Place(id: 3, name: "Nishiki food market", notes: "lunch", visited: true))
    try context.delete(Place(id: 1, name: "", notes: nil, visited: false))
    try context.save()
    #expect(try context.fetch(FetchDescriptor<Place>(), matching: "lunch").map(\.id) == [3])
    #expect(try context.fetch(FetchDescriptor<Place>(), matching: "golden").isEmpty)
    // A write through another container on the same store is indexed too.
    let other = ModelContext(
      try ModelContainer(for: Place.self, configurations: store.configuration))
    try other.insert(Place(id: 9, name: "Gion corner", notes: nil, visited: false))
    try other.save()
    #expect(try context.fetch(FetchDescriptor<Place>(), matching: "gion").map(\.id) == [9])
  }

  @Test func aWriteThroughSQLiteAloneIsIndexedByTheTriggers() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("p.store")
    let context = ModelContext(try ModelContainer(for: Place.self, configurations: .url(url)))
    try seed(context)
    // A write through SQL (another writer) is indexed by the triggers too.
    try Connection(path: url.path).run(
      "INSERT INTO Place (id, name, notes, visited) VALUES (9, 'Gion corner', NULL, 0)")
    #expect(try context.fetch(FetchDescriptor<Place>(), matching: "gion").map(\.id) == [9])
  }

  @Test(arguments: TestEngine.enabled)
  func migratingTheModelRebuildsTheIndex(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("p.store"))
    do {
      let context = ModelContext(
        try ModelContainer(for: Place.self, configurations: store.configuration))
      try seed(context)
      // The app cleared the notes first: a populated column is only dropped by a declared step.
      for var place in try context.fetch(FetchDescriptor<Place>()) {
        place.notes = nil
        try context.insert(place)
      }
      try context.save()
    }
    let context = ModelContext(
      try ModelContainer(for: PlaceWithoutNotes.self, configurations: store.configuration))
    let found = try context.fetch(
      FetchDescriptor<PlaceWithoutNotes>(sortBy: [SortDescriptor(\.id)]), matching: "temple")
    #expect(found.map(\.id) == [1])  // notes are gone: only names are searched now
  }

  @Test(arguments: TestEngine.enabled)
  func japaneseAndChineseAreFoundByAnyPartOfTwoOrMoreCharactersOrOneKanji(_ engine: TestEngine)
    throws
  {
    let store = try freshStore(engine, sqlite: .memory)
    let context = ModelContext(
      try ModelContainer(for: Place.self, configurations: store.configuration))
    try context.insert(Place(id: 1, name: "お寺巡り", notes: nil, visited: false))
    try context.insert(Place(id: 2, name: "金閣寺", notes: "京都の寺院", visited: true))
    try context.insert(Place(id: 3, name: "北京烤鸭", notes: nil, visited: false))
    try context.insert(Place(id: 4, name: "Nishiki market", notes: "lunch", visited: false))
    try context.save()
    let byID = FetchDescriptor<Place>(sortBy: [SortDescriptor(\.id)])
    #expect(try context.fetch(byID, matching: "寺").map(\.id) == [1, 2])
    #expect(try context.fetch(byID, matching: "お寺").map(\.id) == [1])
    #expect(try context.fetch(byID, matching: "寺巡り").map(\.id) == [1])
    #expect(try context.fetch(byID, matching: "寺院").map(\.id) == [2])
    #expect(try context.fetch(byID, matching: "京都 寺").map(\.id) == [2])
    #expect(try context.fetch(byID, matching: "烤鸭").map(\.id) == [3])
    #expect(try context.fetch(byID, matching: "烤鸭 寺").isEmpty)
    // Substrings in Latin text too, ignoring ASCII case; word starts still ignore accents.
    #expect(try context.fetch(byID, matching: "SHIKI").map(\.id) == [4])
    #expect(try context.fetch(byID, matching: "ki").map(\.id) == [4])
    #expect(try context.fetch(byID, matching: "unc").map(\.id) == [4])
  }

  @Test(arguments: TestEngine.enabled)
  func japaneseIsFoundByTwoCharactersFromInsideAWord(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    let context = ModelContext(
      try ModelContainer(for: Place.self, configurations: store.configuration))
    try context.insert(Place(id: 1, name: "東京タワー", notes: nil, visited: false))
    try context.insert(Place(id: 2, name: "京都タワー", notes: "展望台", visited: true))
    try context.insert(Place(id: 3, name: "スカイツリー", notes: "東京の新しいタワー", visited: false))
    try context.save()
    let byID = FetchDescriptor<Place>(sortBy: [SortDescriptor(\.id)])
    #expect(try context.fetch(byID, matching: "京タ").map(\.id) == [1])
    #expect(try context.fetch(byID, matching: "東京").map(\.id) == [1, 3])
    #expect(try context.fetch(byID, matching: "タワ").map(\.id) == [1, 2, 3])
    #expect(try context.fetch(byID, matching: "ワー").map(\.id) == [1, 2, 3])
    #expect(try context.fetch(byID, matching: "都タ").map(\.id) == [2])
    #expect(try context.fetch(byID, matching: "望台").map(\.id) == [2])
    #expect(try context.fetch(byID, matching: "カイツ").map(\.id) == [3])
    #expect(try context.fetch(byID, matching: "京タ 展望").isEmpty)
    #expect(try context.fetch(byID, matching: "大阪").isEmpty)
  }

  @Test func anIndexBuiltByAnOlderVersionIsRebuiltOnOpen() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("p.store")
    do {
      _ = try ModelContainer(for: Place.self, configurations: .url(url))
    }
    // Put the store back as the previous version left it: one word index and its triggers.
    let db = try Connection(path: url.path)
    for trigger in ["insert", "delete", "update"] {
      try db.execute("DROP TRIGGER \"Place_search_\(trigger)\"")
    }
    try db.execute("DROP TABLE \"Place_search_trigram\"")
    let insert =
      "INSERT INTO \"Place_search\" (rowid, \"name\", \"notes\") VALUES "
      + "(new.rowid, new.\"name\", new.\"notes\");"
    try db.execute(
      "CREATE TRIGGER \"Place_search_insert\" AFTER INSERT ON \"Place\" BEGIN \(insert) END")
    try db.run(
      "INSERT INTO Place (id, name, notes, visited) VALUES (1, 'お寺巡り', NULL, 0)")
    let context = ModelContext(try ModelContainer(for: Place.self, configurations: .url(url)))
    #expect(try context.fetch(FetchDescriptor<Place>(), matching: "寺巡り").map(\.id) == [1])
    try context.insert(Place(id: 2, name: "金閣寺", notes: nil, visited: true))
    try context.save()
    #expect(try context.fetch(FetchDescriptor<Place>(), matching: "閣寺").map(\.id) == [2])
  }

  @Test(arguments: TestEngine.enabled)
  func searchingAModelWithoutSearchablePropertiesIsAnError(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    let context = ModelContext(
      try ModelContainer(for: Counter.self, configurations: store.configuration))
    #expect {
      _ = try context.fetch(FetchDescriptor<Counter>(), matching: "x")
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .unsupportedQuery
        && error.message
          == "Can't search `Counter`: none of its properties is searchable. Declare "
          + "`.searchable(\\.name)` in `Counter.schema`."
    }
  }
}
