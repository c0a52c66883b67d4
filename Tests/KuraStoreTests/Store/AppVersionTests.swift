import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

/// `Memo` as version 1 of the app stores it (version 2, in `kura-testhelper`, adds `body`).
private struct MemoV1: PersistentModel, Equatable {
  var id: Int
  var text: String
  static var schemaName: String { "Memo" }
}

@Suite("App versions sharing a store")
struct AppVersionTests {
  /// Version 1 saves a memo, version 2 (another process) saves one with `body`.
  private func storeWrittenByBothVersions(_ store: TestStore) throws {
    do {
      let context = ModelContext(
        try ModelContainer(for: MemoV1.self, configurations: store.configuration))
      try context.insert(MemoV1(id: 1, text: "from version 1"))
      try context.save()
    }
    let saved = try run(
      try executable("kura-testhelper"),
      ["trust-v2-save", store.argument, "2", "written by version 2"],
      environment: store.environment)
    #expect(saved.status == 0, "\(saved.stderr)")
  }

  @Test(arguments: TestEngine.enabled)
  func olderVersionRefusesAStoreWithColumnsItDoesNotKnowAndDropsNothing(_ engine: TestEngine)
    throws
  {
    let store = try freshStore(engine, sqlite: .file("shared.store"))
    try storeWrittenByBothVersions(store)
    let before = try store.contents()
    #expect {
      _ = try ModelContainer(for: MemoV1.self, configurations: store.configuration)
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .schemaMismatch && error.model == "MemoV1" && error.column == "body"
        && error.message
          == "Can't open store `\(store.name)` for model `MemoV1`: its table `Memo` has column "
          + "`body` holding values that this version of `MemoV1` doesn't declare (a newer version "
          + "of the app may have added it). Nothing was changed. Open the store with the newer "
          + "app, or drop the data on purpose: a `SchemaMigrationPlan` stage, or "
          + "`kura store migrate --allow-data-loss`."
    }
    #expect(try store.contents() == before)
    let read = try run(
      try executable("kura-testhelper"), ["trust-v2-read", store.argument, "2"],
      environment: store.environment)
    #expect(read.stdout == "written by version 2\n")
  }

  @Test func olderVersionLeavesTheSQLiteFilesByteIdentical() throws {
    let store = try freshStore(.sqlite, sqlite: .file("shared.store"))
    try storeWrittenByBothVersions(store)
    let url = URL(fileURLWithPath: store.argument)
    let before = ["", "-wal", "-shm"].map {
      try? Data(contentsOf: URL(fileURLWithPath: url.path + $0))
    }
    expectStoreError(.schemaMismatch) {
      _ = try ModelContainer(for: MemoV1.self, configurations: .url(url))
    }
    let after = ["", "-wal", "-shm"].map {
      try? Data(contentsOf: URL(fileURLWithPath: url.path + $0))
    }
    #expect(after == before)
  }
}
