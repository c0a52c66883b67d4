import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

/// A memo as an earlier app version stored it, with an optional `tag`.
private struct TaggedMemo: PersistentModel, Equatable {
  var id: Int
  var text: String
  var tag: String?
  static var schemaName: String { "Memo" }
}

/// The same memo after the app dropped `tag`.
private struct Memo: PersistentModel, Equatable {
  var id: Int
  var text: String
}

@Suite("Removing a column on migration")
struct ColumnRemovalTests {
  /// Writes memos 1 and 2 with the given tags through the earlier model.
  private func writeTaggedMemos(_ store: TestStore, tags: [String?]) throws {
    let context = ModelContext(
      try ModelContainer(for: TaggedMemo.self, configurations: store.configuration))
    for (index, tag) in tags.enumerated() {
      try context.insert(TaggedMemo(id: index + 1, text: "memo \(index + 1)", tag: tag))
    }
    try context.save()
  }

  /// The columns of the stored `Memo` table.
  private func memoColumns(_ store: TestStore) throws -> [String] {
    let table = try #require(try store.contents().tables.first { $0.model == "Memo" })
    return table.columns.map(\.name)
  }

  @Test(arguments: TestEngine.enabled)
  func aColumnHoldingNoValueIsDroppedWithoutAPlan(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("memos.store"))
    try writeTaggedMemos(store, tags: [nil, nil])
    #expect(try memoColumns(store).contains("tag"))
    // Nothing is lost by dropping `tag`: the model without it opens the store and migrates it.
    let context = ModelContext(
      try ModelContainer(for: Memo.self, configurations: store.configuration))
    #expect(
      try context.fetch(FetchDescriptor<Memo>(sortBy: [SortDescriptor(\.id)]))
        == [Memo(id: 1, text: "memo 1"), Memo(id: 2, text: "memo 2")])
    #expect(try memoColumns(store).contains("tag") == false)
    #expect(try memoColumns(store).contains("text"))
  }

  @Test(arguments: TestEngine.enabled)
  func aColumnHoldingOneValueIsRefusedUntouched(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("memos.store"))
    try writeTaggedMemos(store, tags: [nil, "kept"])
    let before = try store.contents()
    #expect {
      _ = try ModelContainer(for: Memo.self, configurations: store.configuration)
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .schemaMismatch && error.model == "Memo" && error.column == "tag"
    }
    #expect(try store.contents() == before)
  }
}
