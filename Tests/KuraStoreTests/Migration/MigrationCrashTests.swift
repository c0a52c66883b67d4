import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
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
    // Every row as it was written, and the earlier version still opens the store: the
    // migration's partial copy was rolled back whole.
    let written = (0..<60_000).map { "\($0)|note \($0)|x" }
    do {
      let context = ModelContext(
        try ModelContainer(for: CrashNoteV1.self, configurations: store.configuration))
      let rows = try context.fetch(FetchDescriptor<CrashNoteV1>(sortBy: [SortDescriptor(\.id)]))
      #expect(rows.map { "\($0.id)|\($0.text)|\($0.extra)" } == written)
    }
    let context = ModelContext(
      try ModelContainer(for: CrashNoteV2.self, configurations: store.configuration))
    let migrated = try context.fetch(FetchDescriptor<CrashNoteV2>(sortBy: [SortDescriptor(\.id)]))
    #expect(migrated.map { "\($0.id)|\($0.text)|\($0.extra ?? "nil")" } == written)
  }
}
