#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  import KuraStoreCLI

  /// A model whose table name is 69 bytes long, with a 70-byte property that is unique (its
  /// index name is 148 bytes long), and a short one indexed and searchable (an 81-byte index
  /// name, and an 82-byte one for the search's trigram index when the server has `pg_trgm`).
  private struct LongNamedModel: PersistentModel, Equatable {
    static var schemaName: String {
      "a_model_whose_name_is_longer_than_the_sixty_three_bytes_postgres_kept"
    }
    static var schema: Schema<LongNamedModel> {
      Schema(
        .unique(\.a_property_whose_name_is_longer_than_the_sixty_three_bytes_it_keeps_xy),
        .index(\.title), .searchable(\.title))
    }
    var id: Int
    var a_property_whose_name_is_longer_than_the_sixty_three_bytes_it_keeps_xy: Int
    var title: String
  }

  /// 63 bytes that two model names and two property names share.
  private let sharedStart = "names_that_share_their_first_sixty_three_bytes_which_pg_keeps__"

  /// Two models and two properties whose names are equal in their first 63 bytes.
  private struct FirstTwin: PersistentModel, Equatable {
    static var schemaName: String { sharedStart + "one" }
    var id: Int
    var names_that_share_their_first_sixty_three_bytes_which_pg_keeps___a: String
    var names_that_share_their_first_sixty_three_bytes_which_pg_keeps___b: String
  }

  private struct SecondTwin: PersistentModel, Equatable {
    static var schemaName: String { sharedStart + "two" }
    var id: Int
    var value: String
  }

  /// A model whose table name is the identifier ``LongNamedModel``'s table gets.
  private struct CollidingModel: PersistentModel {
    static var schemaName: String {
      "a_model_whose_name_is_longer_than_the_sixty_th_3647f9df7daada74"
    }
    var id: Int
  }

  /// A model with a property named as another's identifier.
  private struct CollidingProperties: PersistentModel {
    var id: Int
    var a_property_whose_name_is_longer_than_the_sixty_three_bytes_it_keeps_xy: Int
    var a_property_whose_name_is_longer_than_the_sixty_3244dfec048ccb2c: Int
  }

  /// The first and second versions of a long-named model: the second renames its long unique
  /// property and adds another long one.
  private enum LongV1 {
    struct Item: PersistentModel, Equatable {
      static var schemaName: String { LongNamedModel.schemaName }
      static var schema: Schema<Item> {
        Schema(.unique(\.the_first_name_of_a_property_whose_name_is_longer_than_sixty_three))
      }
      var id: Int
      var the_first_name_of_a_property_whose_name_is_longer_than_sixty_three: Int
    }
  }

  private enum LongV2 {
    struct Item: PersistentModel, Equatable {
      static var schemaName: String { LongNamedModel.schemaName }
      static var schema: Schema<Item> {
        Schema(
          .unique(\.the_second_name_of_a_property_whose_name_is_longer_than_sixty_three),
          .renamed(
            \.the_second_name_of_a_property_whose_name_is_longer_than_sixty_three,
            from: "the_first_name_of_a_property_whose_name_is_longer_than_sixty_three"))
      }
      var id: Int
      var the_second_name_of_a_property_whose_name_is_longer_than_sixty_three: Int
      var an_added_property_whose_name_is_also_longer_than_the_sixty_three_bytes: String?
    }
  }

  /// The `pg_class` oids of the store's indexes but the primary keys', by index name.
  private func indexOIDs(_ store: TestStore) throws -> [String: Int64] {
    let connection = try PostgresConnection(store.argument)
    let rows = try connection.query(
      "SELECT c.relname, c.oid::bigint FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON "
        + "c.oid = i.indexrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE "
        + "n.nspname = current_schema() AND NOT i.indisprimary"
    ) { ($0.string(at: 0), $0.int64(at: 1)) }
    return Dictionary(rows, uniquingKeysWith: { first, _ in first })
  }

  /// Whether the store's database has `pg_trgm` (and so a search makes a trigram index).
  private func hasTrigrams(_ store: TestStore) throws -> Bool {
    try PostgresConnection(store.argument).queryFirst(
      "SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'pg_trgm'"
    ) { _ in true } ?? false
  }

  /// The names of the tables of the store's schema.
  private func tableNames(_ store: TestStore) throws -> Set<String> {
    let connection = try PostgresConnection(store.argument)
    return Set(
      try connection.query(
        "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema()"
      ) { $0.string(at: 0) })
  }

  extension PostgreSQLTests {
    /// Names longer than the 63 bytes PostgreSQL keeps: each becomes its first bytes and a hash
    /// of the whole name, in every statement, and the store compares full names.
    @Suite("PostgreSQL long names")
    struct PostgresNameTests {
      /// A 69-byte model name and a 70-byte unique, sorted and filtered property save, fetch,
      /// sort, filter, and reopen read-write and read-only; SQLite (which keeps any length)
      /// stores the full names, PostgreSQL fitted ones, and both report the full names.
      @Test(arguments: TestEngine.enabled)
      func longModelAndPropertyNamesWork(_ engine: TestEngine) throws {
        #expect(LongNamedModel.schemaName.utf8.count == 69)
        let long = "a_property_whose_name_is_longer_than_the_sixty_three_bytes_it_keeps_xy"
        #expect(long.utf8.count == 70)
        let store = try freshStore(engine)
        let models = (1...5).map {
          LongNamedModel(
            id: $0, a_property_whose_name_is_longer_than_the_sixty_three_bytes_it_keeps_xy: 10 - $0,
            title: "t\($0 % 2)")
        }
        do {
          let context = ModelContext(
            try ModelContainer(for: LongNamedModel.self, configurations: store.configuration))
          for model in models { try context.insert(model) }
          try context.save()
          // The unique property is one constraint under its long name: a new id with a
          // stored value updates the row that holds it.
          var duplicate = models[0]
          duplicate.id = 99
          try context.insert(duplicate)
          #expect(try context.save().changes[LongNamedModel.schemaName]?.updated == ["1"])
        }
        for configuration in [store.configuration, store.readOnlyConfiguration] {
          let context = ModelContext(
            try ModelContainer(for: LongNamedModel.self, configurations: configuration))
          let sorted = try context.fetch(
            FetchDescriptor<LongNamedModel>(
              sortBy: [
                SortDescriptor(
                  \.a_property_whose_name_is_longer_than_the_sixty_three_bytes_it_keeps_xy)
              ]))
          #expect(sorted == models.reversed())
          let filtered = try context.fetch(
            FetchDescriptor<LongNamedModel>(
              predicate: #Predicate {
                $0.a_property_whose_name_is_longer_than_the_sixty_three_bytes_it_keeps_xy > 6
                  && $0.title == "t1"
              }, sortBy: [SortDescriptor(\.id)]))
          #expect(filtered == [models[0], models[2]])
        }
        let tables = try store.inspector().schema()
        let table = try #require(tables.first)
        #expect(tables.count == 1)
        #expect(table.table == LongNamedModel.schemaName)
        #expect(table.columns.map(\.name) == ["id", long, "title"])
        let search = engine == .postgres ? try hasTrigrams(store) : false
        let suffixes = ["_unique_" + long, "_index_title"] + (search ? ["_search_title"] : [])
        let indexNames: [String] = suffixes.map { LongNamedModel.schemaName + $0 }
        #expect(Set(table.indexes.map(\.name)) == Set(indexNames))
        #expect(table.indexes.first { $0.unique }?.columns == [long])
        if engine == .postgres {
          #expect(
            try tableNames(store) == [
              "kura_commits", "kura_history", "kura_history_branches", "kura_metadata",
              "kura_models",
              "a_model_whose_name_is_longer_than_the_sixty_th_3647f9df7daada74",
            ])
        }
      }

      /// Long unique, plain and search indexes are made once: later opens, writable or
      /// read-only, keep them (their `pg_class` oids) rather than dropping and making them again.
      @Test func longIndexesAreKeptAcrossOpens() throws {
        let store = try freshStore(.postgres)
        do {
          let context = ModelContext(
            try ModelContainer(for: LongNamedModel.self, configurations: store.configuration))
          try context.insert(
            LongNamedModel(
              id: 1, a_property_whose_name_is_longer_than_the_sixty_three_bytes_it_keeps_xy: 1,
              title: "a"))
          try context.save()
        }
        let first = try indexOIDs(store)
        let trigrams = try hasTrigrams(store)
        #expect(
          Set(first.keys)
            == Set(
              [
                "a_model_whose_name_is_longer_than_the_sixty_th_68bb256528265a1e",
                "a_model_whose_name_is_longer_than_the_sixty_th_7de29dfe54534c2e",
              ]
                + (trigrams
                  ? ["a_model_whose_name_is_longer_than_the_sixty_th_53af9ecb4097b520"] : [])
            ))
        for configuration in [
          store.configuration, store.configuration, store.readOnlyConfiguration,
        ] {
          _ = try ModelContainer(for: LongNamedModel.self, configurations: configuration)
          #expect(try indexOIDs(store) == first)
        }
      }

      /// Two model names and two property names equal in their first 63 bytes (which PostgreSQL
      /// would cut them to) are two tables and two columns.
      @Test func namesEqualInTheirFirst63BytesAreSeparate() throws {
        #expect(sharedStart.utf8.count == 63)
        let store = try freshStore(.postgres)
        let first = FirstTwin(
          id: 1, names_that_share_their_first_sixty_three_bytes_which_pg_keeps___a: "a",
          names_that_share_their_first_sixty_three_bytes_which_pg_keeps___b: "b")
        let second = SecondTwin(id: 1, value: "second")
        do {
          let context = ModelContext(
            try ModelContainer(
              for: FirstTwin.self, SecondTwin.self, configurations: store.configuration))
          try context.insert(first)
          try context.insert(second)
          try context.save()
        }
        let context = ModelContext(
          try ModelContainer(
            for: FirstTwin.self, SecondTwin.self, configurations: store.readOnlyConfiguration))
        #expect(try context.fetch(FetchDescriptor<FirstTwin>()) == [first])
        #expect(try context.fetch(FetchDescriptor<SecondTwin>()) == [second])
        #expect(try tableNames(store).count == 7)
      }

      /// Names that would become one identifier are refused before anything is sent, naming
      /// both: two tables, and two properties of one model.
      @Test func namesSharingAnIdentifierAreRefusedBeforeAnythingIsSent() throws {
        let store = try freshStore(.postgres)
        do {
          _ = try ModelContainer(
            for: LongNamedModel.self, CollidingModel.self, configurations: store.configuration)
          Issue.record("two tables with one identifier were accepted")
        } catch let error as StoreError {
          #expect(error.code == .invalidModel)
          #expect(error.model == "CollidingModel")
          #expect(
            error.message
              == "Can't store `CollidingModel` in a PostgreSQL database: its table "
              + "`\(CollidingModel.schemaName)` and the table `\(LongNamedModel.schemaName)` of "
              + "`LongNamedModel` would both be named `\(CollidingModel.schemaName)` there (it "
              + "shortens names longer than it keeps to their first bytes and a hash). Nothing "
              + "was changed; give one of the models another `schemaName`.")
        }
        do {
          _ = try ModelContainer(for: CollidingProperties.self, configurations: store.configuration)
          Issue.record("two columns with one identifier were accepted")
        } catch let error as StoreError {
          #expect(error.code == .invalidModel)
          #expect(
            error.property == "a_property_whose_name_is_longer_than_the_sixty_3244dfec048ccb2c")
          #expect(
            error.message
              == "Can't store `CollidingProperties` in a PostgreSQL database: its property "
              + "`a_property_whose_name_is_longer_than_the_sixty_3244dfec048ccb2c` and its "
              + "property `a_property_whose_name_is_longer_than_the_sixty_three_bytes_it_keeps_xy` "
              + "would both be named "
              + "`a_property_whose_name_is_longer_than_the_sixty_3244dfec048ccb2c` there (it "
              + "shortens names longer than it keeps to their first bytes and a hash). Nothing "
              + "was changed; rename one of the properties (its coding key).")
        }
        #expect(try tableNames(store).isEmpty)
        // SQLite keeps both names as they are.
        let sqlite = try freshStore(.sqlite)
        _ = try ModelContainer(
          for: LongNamedModel.self, CollidingModel.self, configurations: sqlite.configuration)
        let other = try freshStore(.sqlite, sqlite: .file("other.sqlite"))
        _ = try ModelContainer(for: CollidingProperties.self, configurations: other.configuration)
      }

      /// A migration renames a long-named unique property and adds another: the values stay,
      /// the unique attribute holds under the new name, and the next open changes nothing.
      @Test(arguments: TestEngine.enabled)
      func aMigrationRenamesAndAddsLongNamedProperties(_ engine: TestEngine) throws {
        let store = try freshStore(engine)
        do {
          let context = ModelContext(
            try ModelContainer(for: LongV1.Item.self, configurations: store.configuration))
          for id in 1...3 {
            try context.insert(
              LongV1.Item(
                id: id, the_first_name_of_a_property_whose_name_is_longer_than_sixty_three: id * 10)
            )
          }
          try context.save()
        }
        let expected = (1...3).map {
          LongV2.Item(
            id: $0, the_second_name_of_a_property_whose_name_is_longer_than_sixty_three: $0 * 10,
            an_added_property_whose_name_is_also_longer_than_the_sixty_three_bytes: nil)
        }
        do {
          let context = ModelContext(
            try ModelContainer(for: LongV2.Item.self, configurations: store.configuration))
          #expect(
            try context.fetch(FetchDescriptor<LongV2.Item>(sortBy: [SortDescriptor(\.id)]))
              == expected)
        }
        let before = try store.contents()
        #expect(
          before.tables.first?.columns.map(\.name) == [
            "id", "the_second_name_of_a_property_whose_name_is_longer_than_sixty_three",
            "an_added_property_whose_name_is_also_longer_than_the_sixty_three_bytes",
          ])
        #expect(
          before.tables.first?.indexes.map(\.columns) == [
            ["the_second_name_of_a_property_whose_name_is_longer_than_sixty_three"]
          ])
        let indexes = engine == .postgres ? try indexOIDs(store) : [:]
        let context = ModelContext(
          try ModelContainer(for: LongV2.Item.self, configurations: store.readOnlyConfiguration))
        #expect(
          try context.fetch(FetchDescriptor<LongV2.Item>(sortBy: [SortDescriptor(\.id)]))
            == expected)
        _ = try ModelContainer(for: LongV2.Item.self, configurations: store.configuration)
        #expect(try store.contents() == before)
        if engine == .postgres { #expect(try indexOIDs(store) == indexes) }
      }
    }
  }
#endif
