#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  /// A model whose table name is 69 bytes long.
  private struct LongNamedModel: PersistentModel, Equatable {
    static var schemaName: String {
      "a_model_whose_name_is_longer_than_the_sixty_three_bytes_postgres_kept"
    }
    var id: Int
  }

  extension PostgreSQLTests {
    @Suite("PostgreSQL names")
    struct PostgresNameTests {
      /// A name PostgreSQL would cut is refused at open with a clear error, before anything is
      /// sent (not "current transaction is aborted"); the database is left as it was.
      @Test func aModelNameLongerThan63BytesIsRefusedAtOpen() throws {
        #expect(LongNamedModel.schemaName.utf8.count == 69)
        let store = try freshStore(.postgres)
        do {
          _ = try ModelContainer(for: LongNamedModel.self, configurations: store.configuration)
          Issue.record("a 69-byte table name was accepted")
        } catch let error as StoreError {
          #expect(error.code == .invalidModel)
          #expect(error.model == "LongNamedModel")
          #expect(
            error.message
              == "Can't store `LongNamedModel` on PostgreSQL: its table name "
              + "`\(LongNamedModel.schemaName)` is 69 bytes long, and PostgreSQL keeps names of "
              + "at most 63 bytes. Nothing was changed; declare a shorter `schemaName` for the "
              + "model.")
        }
        let connection = try PostgresConnection(store.argument)
        #expect(
          try connection.queryFirst(
            "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()"
          ) { $0.int64(at: 0) } == 0)
        // SQLite keeps long names.
        let sqlite = try freshStore(.sqlite)
        let container = try ModelContainer(
          for: LongNamedModel.self, configurations: sqlite.configuration)
        let context = ModelContext(container)
        try context.insert(LongNamedModel(id: 1))
        try context.save()
        #expect(try context.fetch(FetchDescriptor<LongNamedModel>()) == [LongNamedModel(id: 1)])
      }
    }
  }
#endif
