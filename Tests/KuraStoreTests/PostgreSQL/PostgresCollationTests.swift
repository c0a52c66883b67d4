#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  import KuraStoreCLI

  /// A model whose ids, links and tags are text the server must order as bytes.
  private struct Ticket: PersistentModel, Equatable {
    var id: UUID
    var title: String
    var link: URL
    var tags: [String]
  }

  /// A model with a unique text attribute (an index on `kura_key(…)`).
  private struct Label: PersistentModel, Equatable {
    static var schema: Schema<Label> { Schema(.unique(\.name)) }
    var id: Int
    var name: String
  }

  /// The indexes of the store's schema whose definition calls `kura_key`, by name, with the
  /// file each is stored in (a `REINDEX` gives an index a new file).
  private func keyIndexFiles(_ connection: PostgresConnection) throws -> [String: Int64] {
    let rows = try connection.query(
      "SELECT c.relname, pg_relation_filenode(c.oid) FROM pg_catalog.pg_index i JOIN "
        + "pg_catalog.pg_class c ON c.oid = i.indexrelid JOIN pg_catalog.pg_namespace n ON "
        + "n.oid = c.relnamespace WHERE n.nspname = current_schema() AND "
        + "pg_get_indexdef(i.indexrelid) LIKE '%kura_key(%'"
    ) { ($0.string(at: 0), $0.int64(at: 1)) }
    return Dictionary(rows, uniquingKeysWith: { first, _ in first })
  }

  extension PostgreSQLTests {
    /// Text the store orders as Swift does, whatever the database's own collation.
    @Suite("PostgreSQL collations")
    struct PostgresCollationTests {
      /// On a database whose default collation sorts digits as numbers (ICU `und-u-kn-true`:
      /// `9A` before `10`), UUIDs, links and tags still sort in Swift's order (`COLLATE "C"`),
      /// and text as Swift's `<`.
      @Test func sortsFollowSwiftOnADatabaseWithANumericCollation() throws {
        let cluster = try PostgresCluster.shared()
        let database = "kura_numeric_collation"
        try cluster.runAsSuperuser("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
        try cluster.runAsSuperuser(
          "CREATE DATABASE \(database) TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu "
            + "ICU_LOCALE 'und-u-kn-true'")
        defer { try? cluster.runAsSuperuser("DROP DATABASE IF EXISTS \(database) WITH (FORCE)") }
        let text = cluster.url(database: database)
        // The database's own order is not Swift's.
        let direct = try PostgresConnection(text)
        #expect(
          try direct.query("SELECT x FROM (VALUES ('9A'), ('10'), ('20')) AS v(x) ORDER BY x") {
            $0.string(at: 0)
          } == ["9A", "10", "20"])
        let url = try #require(URL(string: text))
        let container = try ModelContainer(for: Ticket.self, configurations: .postgres(url))
        let context = ModelContext(container)
        let ids = try ["9A", "10", "20"].map { prefix in
          try #require(UUID(uuidString: prefix + "000000-0000-4000-8000-000000000000"))
        }
        for (number, id) in ids.enumerated() {
          let prefix = id.uuidString.prefix(2)
          try context.insert(
            Ticket(
              id: id, title: "ticket \(prefix)", link: URL(filePath: "/t/\(prefix)"),
              tags: ["\(prefix)", "\(number)"]))
        }
        try context.save()
        let swiftOrder = ids.sorted()
        #expect(swiftOrder.map { $0.uuidString.prefix(2) } == ["10", "20", "9A"])
        let byID = try context.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.id)]))
        #expect(byID.map(\.id) == swiftOrder)
        let reversed = try context.fetch(
          FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.id, order: .reverse)]))
        #expect(reversed.map(\.id) == swiftOrder.reversed())
        let byTitle = try context.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.title)]))
        #expect(byTitle.map(\.title) == ["ticket 10", "ticket 20", "ticket 9A"])
        let after = try #require(ids.first)
        let later = try context.fetch(
          FetchDescriptor<Ticket>(predicate: #Predicate { $0.id > after }))
        #expect(later.isEmpty)
        // The server's own comparisons of the byte-ordered columns.
        let ordered = try direct.query(
          "SELECT link FROM \"Ticket\" ORDER BY link"
        ) { $0.string(at: 0) }
        #expect(ordered == ordered.sorted { Array($0.utf8).lexicographicallyPrecedes($1.utf8) })
        let tags = try direct.query("SELECT tags FROM \"Ticket\" ORDER BY tags") {
          $0.string(at: 0)
        }
        #expect(tags == tags.sorted { Array($0.utf8).lexicographicallyPrecedes($1.utf8) })
        #expect(
          try direct.query(
            "SELECT a.attname, co.collname FROM pg_catalog.pg_attribute a JOIN "
              + "pg_catalog.pg_collation co ON co.oid = a.attcollation WHERE a.attrelid = "
              + "'\"Ticket\"'::regclass AND a.attnum > 0 ORDER BY a.attnum"
          ) { "\($0.string(at: 0)) \($0.string(at: 1))" }
            == ["id C", "title kura_swift", "link C", "tags C"])
      }

      /// A store made before these columns were byte-ordered (plain `text`): it opens for
      /// reading as it is, and a writable open moves them to `COLLATE "C"` (and rebuilds the
      /// indexes that use `kura_key`, the functions' version having changed).
      @Test func anOlderStoresByteOrderedColumnsAreUpgradedAtOpen() throws {
        let store = try freshStore(.postgres)
        let first = try ModelContainer(
          for: Ticket.self, Label.self, configurations: store.configuration)
        let context = ModelContext(first)
        try context.insert(
          Ticket(id: UUID(), title: "a", link: URL(filePath: "/a"), tags: ["x"]))
        try context.insert(Label(id: 1, name: "first"))
        try context.save()
        let administrator = try PostgresConnection(store.argument)
        // The columns as an older version of Kura made them (without readable views): a
        // read-only open takes them.
        try administrator.execute("DROP SCHEMA public_readable CASCADE")
        try administrator.execute(
          "ALTER TABLE \"Ticket\" ALTER COLUMN id TYPE text COLLATE \"default\", ALTER COLUMN "
            + "link TYPE text COLLATE \"default\", ALTER COLUMN tags TYPE text COLLATE "
            + "\"default\"")
        let reader = try ModelContainer(
          for: Ticket.self, Label.self, configurations: store.readOnlyConfiguration)
        #expect(try ModelContext(reader).fetchCount(FetchDescriptor<Ticket>()) == 1)
        // And the functions' version it recorded.
        try administrator.execute("COMMENT ON FUNCTION kura_key(text) IS 'kura functions 3'")
        let before = try keyIndexFiles(administrator)
        #expect(before.count == 1)
        _ = try ModelContainer(for: Ticket.self, Label.self, configurations: store.configuration)
        let collations = try administrator.query(
          "SELECT co.collname FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_collation co "
            + "ON co.oid = a.attcollation WHERE a.attrelid = '\"Ticket\"'::regclass AND "
            + "a.attnum > 0 ORDER BY a.attnum"
        ) { $0.string(at: 0) }
        #expect(collations == ["C", "kura_swift", "C", "C"])
        let after = try keyIndexFiles(administrator)
        #expect(Set(after.keys) == Set(before.keys))
        for (name, file) in after { #expect(before[name] != file, "\(name) was not rebuilt") }
        // Opening again rebuilds nothing.
        _ = try ModelContainer(for: Ticket.self, Label.self, configurations: store.configuration)
        #expect(try keyIndexFiles(administrator) == after)
      }

      /// The server's ICU version of the store's collation changed (shown by changing the
      /// version PostgreSQL recorded for it): the next writable open rebuilds the indexes that
      /// use it and records the server's version.
      @Test func aChangedCollationVersionIsDetectedAndReindexed() throws {
        let store = try freshStore(.postgres)
        let container = try ModelContainer(for: Label.self, configurations: store.configuration)
        let context = ModelContext(container)
        try context.insert(Label(id: 1, name: "first"))
        try context.save()
        let administrator = try PostgresConnection(store.argument)
        let versions =
          "SELECT coalesce(collversion, ''), coalesce(pg_collation_actual_version(oid), '') "
          + "FROM pg_catalog.pg_collation WHERE collname = 'kura_swift' AND collnamespace = "
          + "(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema())"
        let recorded = try administrator.queryFirst(versions) { $0.string(at: 0) }
        #expect(recorded?.isEmpty == false)
        let before = try keyIndexFiles(administrator)
        _ = try ModelContainer(for: Label.self, configurations: store.configuration)
        #expect(try keyIndexFiles(administrator) == before)
        try administrator.execute(
          "UPDATE pg_catalog.pg_collation SET collversion = '0.0' WHERE collname = "
            + "'kura_swift' AND collnamespace = (SELECT oid FROM pg_catalog.pg_namespace "
            + "WHERE nspname = current_schema())")
        _ = try ModelContainer(for: Label.self, configurations: store.configuration)
        let after = try keyIndexFiles(administrator)
        #expect(after.count == 1)
        for (name, file) in after { #expect(before[name] != file, "\(name) was not rebuilt") }
        let now = try #require(
          try administrator.queryFirst(versions) { ($0.string(at: 0), $0.string(at: 1)) })
        #expect(now.0 == now.1)
        #expect(now.0 == recorded)
        #expect(
          try ModelContext(container).fetch(FetchDescriptor<Label>()).map(\.name) == ["first"])
      }
    }
  }
#endif
