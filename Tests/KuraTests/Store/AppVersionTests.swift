import Foundation
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
  @Test func olderVersionRefusesAStoreWithColumnsItDoesNotKnowAndDropsNothing() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("shared.store")
    do {
      let context = ModelContext(try ModelContainer(for: MemoV1.self, configurations: .url(url)))
      try context.insert(MemoV1(id: 1, text: "from version 1"))
      try context.save()
    }
    let helper = try executable("kura-testhelper")
    let saved = try run(
      helper, ["trust-v2-save", url.path, "2", "written by version 2"],
      environment: folder.environment)
    #expect(saved.status == 0, "\(saved.stderr)")
    let before = ["", "-wal", "-shm"].map {
      try? Data(contentsOf: URL(fileURLWithPath: url.path + $0))
    }
    #expect {
      _ = try ModelContainer(for: MemoV1.self, configurations: .url(url))
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .schemaMismatch && error.model == "MemoV1" && error.column == "body"
        && error.message
          == "Can't open store `shared.store` for model `MemoV1`: its table `Memo` has column "
          + "`body` holding values that this version of `MemoV1` doesn't declare (a newer version "
          + "of the app may have added it). Nothing was changed. Open the store with the newer "
          + "app, or drop the data on purpose: a `SchemaMigrationPlan` stage, or "
          + "`kura store migrate --allow-data-loss`."
    }
    let after = ["", "-wal", "-shm"].map {
      try? Data(contentsOf: URL(fileURLWithPath: url.path + $0))
    }
    #expect(after == before)
    let read = try run(helper, ["trust-v2-read", url.path, "2"], environment: folder.environment)
    #expect(read.stdout == "written by version 2\n")
  }
}
