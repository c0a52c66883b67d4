#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  import KuraStoreCLI

  /// A model whose saves the history records.
  private struct HistoryNote: PersistentModel, Equatable {
    var id: Int
    var text: String
  }

  /// The columns of the store's `kura_history`, in order.
  private func historyColumns(_ connection: PostgresConnection) throws -> [String] {
    try connection.query(
      "SELECT a.attname FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = "
        + "a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE "
        + "n.nspname = current_schema() AND c.relname = 'kura_history' AND a.attnum > 0 AND NOT "
        + "a.attisdropped ORDER BY a.attnum"
    ) { $0.string(at: 0) }
  }

  extension PostgreSQLTests {
    /// The shape of `kura_history` across versions.
    @Suite("PostgreSQL history shape")
    struct PostgresHistoryShapeTests {
      /// A new store's history has no `save_id` (no save makes or binds one) and has the
      /// commit ids of this version (`commit_id`); a store made by
      /// an earlier version, whose history has the nullable `save_id` its saves filled, opens
      /// and saves as it is: the column stays, old rows keep their ids, new rows leave it NULL,
      /// and the history reads every save.
      @Test func aStoreWithTheOldHistoryShapeOpensAndSaves() throws {
        let store = try freshStore(.postgres)
        let connection = try PostgresConnection(store.argument)
        do {
          let context = ModelContext(
            try ModelContainer(for: HistoryNote.self, configurations: store.configuration))
          try context.insert(HistoryNote(id: 1, text: "one"))
          try context.save()
        }
        #expect(
          try historyColumns(connection) == ["token", "time", "models", "changes", "commit_id"])
        // The shape earlier versions made, with the id their save gave the row (and without
        // the commit ids of this one, which the next container adds back).
        try connection.execute(
          "DROP TRIGGER kura_history_keep_commits ON kura_history; "
            + "ALTER TABLE kura_history DROP COLUMN commit_id; "
            + "ALTER TABLE kura_history ADD COLUMN save_id TEXT; "
            + "UPDATE kura_history SET save_id = '6F9619FF-8B86-D011-B42D-00C04FC964FF'")
        let container = try ModelContainer(
          for: HistoryNote.self, configurations: store.configuration)
        let context = ModelContext(container)
        try context.insert(HistoryNote(id: 2, text: "two"))
        try context.save()
        #expect(
          try context.fetch(FetchDescriptor<HistoryNote>(sortBy: [SortDescriptor(\.id)])) == [
            HistoryNote(id: 1, text: "one"), HistoryNote(id: 2, text: "two"),
          ])
        #expect(
          try historyColumns(connection) == [
            "token", "time", "models", "changes", "save_id", "commit_id",
          ])
        let saveIDs = try connection.query("SELECT save_id FROM kura_history ORDER BY token") {
          $0.isNull(at: 0) ? nil : $0.string(at: 0)
        }
        #expect(saveIDs == ["6F9619FF-8B86-D011-B42D-00C04FC964FF", nil])
        let history = try container.history(since: .start)
        #expect(history.map { $0.changes["HistoryNote"]?.inserted } == [["1"], ["2"]])
      }
    }
  }
#endif
