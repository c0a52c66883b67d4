import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

private struct Box<First: Codable & Sendable, Second: Codable & Sendable>: PersistentModel {
  var id: Int
  var first: First
  var second: Second
}

private enum Shop {
  struct Item: PersistentModel, Equatable {
    var id: Int
    var price: Int
    static var schemaName: String { "ShopItem" }
  }
}

private enum Library {
  struct Item: PersistentModel, Equatable {
    var id: Int
    var title: String
    static var schemaName: String { "LibraryItem" }
  }
}

private struct Reserved: PersistentModel {
  var id: Int
  static var schemaName: String { "kura_things" }
}

@Suite("Model identity")
struct ModelIdentityTests {
  @Test(arguments: TestEngine.enabled)
  func twoTypesWithOneNameInDifferentNamespacesReopen(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("items.store"))
    for _ in 0..<2 {
      let context = ModelContext(
        try ModelContainer(
          for: Shop.Item.self, Library.Item.self, configurations: store.configuration))
      try context.insert(Shop.Item(id: 1, price: 300))
      try context.insert(Library.Item(id: 1, title: "Kokoro"))
      let changes = try context.save()
      #expect(changes.updated(Shop.Item.self) + changes.inserted(Shop.Item.self) == [1])
      #expect(changes.updated(Library.Item.self) + changes.inserted(Library.Item.self) == [1])
    }
    let models = try store.inspector().info().models.map { "\($0.name) \($0.table)" }
    #expect(models == ["LibraryItem LibraryItem", "ShopItem ShopItem"])
  }

  @Test(arguments: TestEngine.enabled)
  func genericModelNameWithACommaKeepsItsHistoryAndLiveQuery(_ engine: TestEngine) async throws {
    let store = try freshStore(engine, sqlite: .file("box.store"))
    let container = try ModelContainer(
      for: Box<Int, String>.self, configurations: store.configuration)
    let token = try container.currentHistoryToken()
    let writer = ModelContext(container)
    try writer.insert(Box(id: 1, first: 1, second: "one"))
    try writer.save()
    let history = try container.history(since: token)
    #expect(history.map { $0.inserted(Box<Int, String>.self) } == [[1]])
    let query = try LiveQuery(FetchDescriptor<Box<Int, String>>(), in: container)
    let inbox = Inbox(query.changes)
    #expect(await inbox.next()?.map(\.id) == [1])
    try writer.insert(Box(id: 2, first: 2, second: "two"))
    try writer.save()
    #expect(await inbox.next()?.map(\.id).sorted() == [1, 2])
  }

  /// SQLite's history table names the changed models; a name with a comma is one name.
  @Test func genericModelNameWithACommaIsOneChangedModelInSQLiteHistory() throws {
    let folder = TemporaryDirectory()
    let container = try ModelContainer(
      for: Box<Int, String>.self, configurations: .url(folder.file("box.store")))
    let token = try container.currentHistoryToken()
    let writer = ModelContext(container)
    try writer.insert(Box(id: 1, first: 1, second: "one"))
    try writer.save()
    let changed = try container.pool.read {
      try ChangeHistory.changedModels(
        since: token, below: try ChangeHistory.horizon($0),
        in: $0)
    }
    #expect(changed.models == ["Box<Int, String>"])
  }

  @Test(arguments: TestEngine.enabled)
  func storedNameKeptForKuraIsRefused(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    #expect {
      _ = try ModelContainer(for: Reserved.self, configurations: store.configuration)
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .invalidModel
        && error.message.hasPrefix(
          "Can't store `Reserved`: its stored name `kura_things` (`schemaName`) starts with "
            + "`kura_`")
    }
  }
}
