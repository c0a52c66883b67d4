import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

private struct Label: PersistentModel, Equatable {
  var id: String
  var text: String
}

@Suite("Change history format")
struct ChangeHistoryFormatTests {
  @Test func savesWriteCompactRowsAndRowsWrittenAsJSONAreStillRead() throws {
    let folder = TemporaryDirectory()
    let container = try ModelContainer(
      for: Label.self, configurations: .url(folder.file("h.store")))
    // A row as stores wrote them before the compact form: JSON text.
    try container.pool.write { db in
      try db.run(
        "INSERT INTO kura_history (time, models, changes) VALUES (?, ?, ?)",
        [
          .real(Date().timeIntervalSince1970), .text(#"["Label"]"#),
          .text(#"{"Label":[["old \"one\""],[],["gone"]]}"#),
        ])
    }
    let context = ModelContext(container)
    let ids = ["plain", "quote \" and \\ backslash", "ünïcødé 🎈", "", "line\nbreak"]
    for id in ids { try context.insert(Label(id: id, text: "x")) }
    try context.save()
    try context.delete(Label(id: "plain", text: "x"))
    try context.insert(Label(id: "ünïcødé 🎈", text: "y"))
    try context.save()
    let types = try container.pool.read {
      try $0.query("SELECT typeof(changes) FROM kura_history ORDER BY token") { $0.string(at: 0) }
    }
    #expect(types == ["text", "blob", "blob"])
    let history = try container.history(since: .start)
    #expect(history.count == 3)
    #expect(history[0].changes["Label"]?.inserted == [#"old "one""#])
    #expect(history[0].changes["Label"]?.deleted == ["gone"])
    #expect(history[1].changes["Label"]?.inserted == ids)
    #expect(history[2].changes["Label"]?.updated == ["ünïcødé 🎈"])
    #expect(history[2].changes["Label"]?.deleted == ["plain"])
    let changed = try container.pool.read {
      try ChangeHistory.changedModels(
        since: .start, below: try ChangeHistory.horizon($0),
        in: $0)
    }
    #expect(changed.models == ["Label"])
    #expect(changed.latest == history[2].token)
  }

  @Test func aDamagedCompactRowIsAClearError() throws {
    expectStoreError(.decodingFailed) {
      _ = try ChangeHistoryFormat.decode(Data([ChangeHistoryFormat.binary, 5, 65]))
    }
    let empty = try ChangeHistoryFormat.decode(Data([ChangeHistoryFormat.binary]))
    #expect(empty.isEmpty)
  }
}
