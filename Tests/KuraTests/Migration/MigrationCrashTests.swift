import Foundation
import Testing

@testable import Kura

/// The model as the earlier app version wrote it (the helper migrates it to `CrashNote` with
/// `extra` optional; see Sources/kura-testhelper/RelationHelpers.swift).
private struct CrashNoteV1: PersistentModel {
  var id: Int
  var text: String
  var extra: String
  static var schemaName: String { "CrashNote" }
}

private struct CrashNoteV2: PersistentModel {
  var id: Int
  var text: String
  var extra: String?
  static var schemaName: String { "CrashNote" }
}

@Suite("Migration crash safety")
struct MigrationCrashTests {
  @Test(arguments: TestEngine.enabled)
  func migrationKilledMidwayLeavesTheStoreAsItWas(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("notes.store"))
    do {
      let context = ModelContext(
        try ModelContainer(for: CrashNoteV1.self, configurations: store.configuration))
      try context.transaction {
        for id in 0..<60_000 {
          try context.insert(CrashNoteV1(id: id, text: "note \(id)", extra: "x"))
        }
      }
    }
    let child = try ChildProcess(
      try executable("kura-testhelper"), ["relations-migrate-and-hang", store.argument],
      environment: store.environment)
    // The child prints `migrating` after copying the first batch, then waits to be killed.
    child.waitForLine { $0 == "migrating 50000/60000" }
    child.send(SIGKILL)
    _ = child.waitForExit()
    #expect(child.terminationReason == .uncaughtSignal)
    do {
      let context = ModelContext(
        try ModelContainer(for: CrashNoteV1.self, configurations: store.configuration))
      #expect(try context.fetchCount(FetchDescriptor<CrashNoteV1>()) == 60_000)
      #expect(try context.model(for: 59_999, as: CrashNoteV1.self)?.extra == "x")
    }
    let context = ModelContext(
      try ModelContainer(for: CrashNoteV2.self, configurations: store.configuration))
    #expect(try context.fetchCount(FetchDescriptor<CrashNoteV2>()) == 60_000)
    #expect(try context.model(for: 59_999, as: CrashNoteV2.self)?.text == "note 59999")
  }
}
