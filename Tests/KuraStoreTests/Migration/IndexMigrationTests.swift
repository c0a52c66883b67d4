import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

private enum Tagged {
  struct Unique: PersistentModel, Equatable {
    var id: Int
    var name: String
    var a_b: Int = 0
    var a: Int = 0
    var b: Int = 0
    static var schema: Schema<Unique> { Schema(.unique(\.name)) }
    static var schemaName: String { "Tag" }
  }
  struct Plain: PersistentModel, Equatable {
    var id: Int
    var name: String
    var a_b: Int = 0
    var a: Int = 0
    var b: Int = 0
    static var schemaName: String { "Tag" }
  }
  /// Two index declarations whose generated names used to collide (`Tag_index_a_b`).
  struct Colliding: PersistentModel, Equatable {
    var id: Int
    var name: String
    var a_b: Int = 0
    var a: Int = 0
    var b: Int = 0
    static var schema: Schema<Colliding> { Schema(.index(\.a_b), .index(\.a, \.b)) }
    static var schemaName: String { "Tag" }
  }
}

/// The `Tag` table's indexes, with their columns, as the store's inspector reports them.
private func indexes(_ store: TestStore) throws -> [String: [String]] {
  let table = try store.inspector().schema().first { $0.table == "Tag" }
  return Dictionary(
    uniqueKeysWithValues: (table?.indexes ?? []).map { ($0.name, $0.columns) })
}

/// The `Tag` table's indexes Kura made, with their columns, as SQLite lists them.
private func sqliteIndexes(_ url: URL) throws -> [String: [String]] {
  let db = try Connection(path: url.path, mode: .inspect)
  let names = try db.query(
    "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Tag' AND sql IS NOT NULL"
  ) { $0.string(at: 0) }
  var result: [String: [String]] = [:]
  for name in names {
    result[name] = try db.query(
      "SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(name)]
    ) { $0.string(at: 0) }
  }
  return result
}

@Suite("Index migrations")
struct IndexMigrationTests {
  @Test(arguments: TestEngine.enabled)
  func removingAUniqueAttributeStopsEnforcingIt(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("tags.store"))
    do {
      let context = ModelContext(
        try ModelContainer(for: Tagged.Unique.self, configurations: store.configuration))
      try context.insert(Tagged.Unique(id: 1, name: "kyoto"))
      try context.save()
      // The index itself refuses a second `kyoto` written past Kura's own check.
      #expect {
        try context.container.pool.write { db in
          try db.run("INSERT INTO \"Tag\" (id, name, a_b, a, b) VALUES (9, 'kyoto', 0, 0, 0)")
        }
      } throws: { error in
        "\(error)".lowercased().contains("unique")
      }
    }
    #expect(try indexes(store) == ["Tag_unique_name": ["name"]])
    let context = ModelContext(
      try ModelContainer(for: Tagged.Plain.self, configurations: store.configuration))
    try context.insert(Tagged.Plain(id: 2, name: "kyoto"))
    try context.save()
    #expect(try context.fetchCount(FetchDescriptor<Tagged.Plain>()) == 2)
    #expect(try indexes(store) == [:])
  }

  @Test(arguments: TestEngine.enabled)
  func addingAUniqueAttributeThatRowsBreakIsRefusedUntouched(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("tags.store"))
    do {
      let context = ModelContext(
        try ModelContainer(for: Tagged.Plain.self, configurations: store.configuration))
      try context.insert(Tagged.Plain(id: 1, name: "kyoto"))
      try context.insert(Tagged.Plain(id: 2, name: "kyoto"))
      try context.save()
    }
    let before = try store.contents()
    #expect {
      _ = try ModelContainer(for: Tagged.Unique.self, configurations: store.configuration)
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .migrationRefused && error.model == "Unique"
        && error.message.contains("`name` unique, but stored rows share a value")
    }
    #expect(try store.contents() == before)
    #expect(try indexes(store) == [:])
  }

  @Test func aRefusedUniqueIndexLeavesTheSQLiteFileByteIdentical() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("tags.store")
    do {
      let context = ModelContext(
        try ModelContainer(for: Tagged.Plain.self, configurations: .url(url)))
      try context.insert(Tagged.Plain(id: 1, name: "kyoto"))
      try context.insert(Tagged.Plain(id: 2, name: "kyoto"))
      try context.save()
    }
    let before = try Data(contentsOf: url)
    expectStoreError(.migrationRefused) {
      _ = try ModelContainer(for: Tagged.Unique.self, configurations: .url(url))
    }
    #expect(try Data(contentsOf: url) == before)
    #expect(try sqliteIndexes(url) == [:])
  }

  @Test(arguments: TestEngine.enabled)
  func indexDeclarationsWithCollidingNamesAreBothCreated(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("tags.store"))
    do {
      _ = try ModelContainer(for: Tagged.Colliding.self, configurations: store.configuration)
    }
    #expect(try indexes(store) == ["Tag_index_a_b": ["a_b"], "Tag_index_a_b_2": ["a", "b"]])
    // Reopening changes nothing; dropping the declarations drops the indexes.
    let contents = try store.contents()
    _ = try ModelContainer(for: Tagged.Colliding.self, configurations: store.configuration)
    #expect(try store.contents() == contents)
    _ = try ModelContainer(for: Tagged.Plain.self, configurations: store.configuration)
    #expect(try indexes(store) == [:])
  }

  @Test func reopeningWithCollidingIndexNamesLeavesTheSQLiteSchemaAsItWas() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("tags.store")
    do {
      _ = try ModelContainer(for: Tagged.Colliding.self, configurations: .url(url))
    }
    #expect(try sqliteIndexes(url) == ["Tag_index_a_b": ["a_b"], "Tag_index_a_b_2": ["a", "b"]])
    func schemaVersion() throws -> Int64? {
      try Connection(path: url.path, mode: .inspect).queryFirst("PRAGMA schema_version") {
        $0.int64(at: 0)
      }
    }
    let version = try schemaVersion()
    _ = try ModelContainer(for: Tagged.Colliding.self, configurations: .url(url))
    #expect(try schemaVersion() == version)
  }
}
