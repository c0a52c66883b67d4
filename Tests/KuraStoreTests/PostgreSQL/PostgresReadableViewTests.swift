#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura
  import KuraPostgreSQL
  import KuraPostgresCluster
  import KuraTestSupport

  /// The models of the readable view tests: a trip and its activities.
  private struct ViewTrip: PersistentModel, Equatable {
    var id: UUID
    var name: String
    var startsAt: Date
    static var schemaName: String { "view_trips" }
  }

  private struct ViewActivity: PersistentModel, Equatable {
    var id: UUID
    var name: String
    var isComplete: Bool
    var doneAt: Date?
    var trip: ViewTrip.ID
    var rating: Int
    static var schemaName: String { "view_activities" }
    static var schema: Schema<ViewActivity> {
      Schema(.reference(\.trip, to: ViewTrip.self, deleteRule: .cascade))
    }
  }

  /// The trip, a property added.
  private struct ViewTripWithNotes: PersistentModel, Equatable {
    var id: UUID
    var name: String
    var startsAt: Date
    var isFavourite: Bool?
    static var schemaName: String { "view_trips" }
  }

  /// The trip, the added property widened from `Bool?` to `Int?` (the table is rebuilt).
  private struct ViewTripWidened: PersistentModel, Equatable {
    var id: UUID
    var name: String
    var startsAt: Date
    var isFavourite: Int?
    static var schemaName: String { "view_trips" }
  }

  extension PostgreSQLTests {
    /// The views in `<schema>_readable`, read with the real `psql`.
    @Suite("PostgreSQL readable views")
    struct PostgresReadableViewTests {
      /// `psql` on `url` running `sql`, unaligned, tuples only, `|` between columns, in UTC.
      private func psql(_ url: String, _ sql: String) throws -> [String] {
        let program = try #require(
          ["/usr/bin/psql", "/usr/local/bin/psql"].first {
            FileManager.default.isExecutableFile(atPath: $0)
          }, "psql is not installed")
        var environment = ProcessInfo.processInfo.environment
        environment["PGTZ"] = "UTC"
        environment["PSQLRC"] = "/dev/null"
        let result = try run(
          URL(fileURLWithPath: program),
          [url, "-X", "-q", "-A", "-t", "-F", "|", "-v", "ON_ERROR_STOP=1", "-c", sql],
          environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
      }

      private static let tripID = UUID(uuidString: "3F4D8393-1C2B-4A5E-9F60-0123456789AB")

      @Test func viewsShowDatesUUIDsBooleansAndReferencesAsTheirTypes() throws {
        let url = try PostgresCluster.freshDatabaseURL()
        let configuration = ModelConfiguration.postgres(try #require(URL(string: url)))
        let container = try ModelContainer(
          for: ViewTrip.self, ViewActivity.self, configurations: configuration)
        let context = ModelContext(container)
        let trip = try #require(UUID(uuidString: "3F4D8393-1C2B-4A5E-9F60-0123456789AB"))
        let activity = try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000001"))
        // 2026-12-06 07:30:00.25 UTC.
        let startsAt = Date(timeIntervalSince1970: 1_796_542_200.25)
        try context.insert(ViewTrip(id: trip, name: "Kyoto", startsAt: startsAt))
        try context.insert(
          ViewActivity(
            id: activity, name: "Fushimi Inari", isComplete: true,
            doneAt: Date(timeIntervalSinceReferenceDate: 0), trip: trip, rating: 5))
        try context.save()

        #expect(
          try psql(
            url,
            "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE "
              + "table_schema = 'public_readable' ORDER BY table_name, ordinal_position")
            == [
              "view_activities|id|uuid", "view_activities|name|text",
              "view_activities|isComplete|boolean",
              "view_activities|doneAt|timestamp with time zone",
              "view_activities|trip|uuid", "view_activities|rating|bigint",
              "view_trips|id|uuid", "view_trips|name|text",
              "view_trips|startsAt|timestamp with time zone",
            ])
        #expect(
          try psql(
            url,
            "SELECT a.name, a.\"isComplete\", a.\"doneAt\", t.name, t.\"startsAt\", a.trip "
              + "FROM public_readable.view_activities a JOIN public_readable.view_trips t ON "
              + "t.id = a.trip")
            == [
              "Fushimi Inari|t|2001-01-01 00:00:00+00|Kyoto|2026-12-06 07:30:00.25+00|"
                + "3f4d8393-1c2b-4a5e-9f60-0123456789ab"
            ])
        // The storage is unchanged.
        #expect(
          try psql(url, "SELECT id, \"startsAt\" FROM view_trips")
            == ["3F4D8393-1C2B-4A5E-9F60-0123456789AB|818235000.25"])
      }

      @Test func aMigrationRebuildsTheViews() throws {
        let url = try PostgresCluster.freshDatabaseURL()
        let configuration = ModelConfiguration.postgres(try #require(URL(string: url)))
        let tripID = try #require(Self.tripID)
        do {
          let context = ModelContext(
            try ModelContainer(for: ViewTrip.self, configurations: configuration))
          let trip = ViewTrip(id: tripID, name: "Kyoto", startsAt: .distantPast)
          try context.insert(trip)
          try context.save()
        }
        let columns =
          "SELECT column_name || ' ' || data_type FROM information_schema.columns WHERE "
          + "table_schema = 'public_readable' AND table_name = 'view_trips' ORDER BY "
          + "ordinal_position"
        #expect(
          try psql(url, columns)
            == ["id uuid", "name text", "startsAt timestamp with time zone"])
        let context = ModelContext(
          try ModelContainer(for: ViewTripWithNotes.self, configurations: configuration))
        var trip = try #require(try context.model(for: tripID, as: ViewTripWithNotes.self))
        trip.isFavourite = true
        try context.insert(trip)
        try context.save()
        #expect(
          try psql(url, columns)
            == [
              "id uuid", "name text", "startsAt timestamp with time zone", "isFavourite boolean",
            ])
        #expect(
          try psql(url, "SELECT name, \"isFavourite\" FROM public_readable.view_trips")
            == ["Kyoto|t"])
        // Opening the store again changes nothing: the views are current (not made again).
        let before = try psql(
          url, "SELECT oid FROM pg_catalog.pg_class WHERE relname = 'view_trips' AND relkind = 'v'")
        _ = try ModelContainer(for: ViewTripWithNotes.self, configurations: configuration)
        #expect(
          try psql(
            url,
            "SELECT oid FROM pg_catalog.pg_class WHERE relname = 'view_trips' AND relkind = 'v'")
            == before)
        #expect(before.count == 1)
        // A change that rebuilds the table (the views would keep the old one): made again.
        let widened = ModelContext(
          try ModelContainer(for: ViewTripWidened.self, configurations: configuration))
        #expect(try widened.fetch(FetchDescriptor<ViewTripWidened>()).map(\.isFavourite) == [1])
        #expect(
          try psql(url, columns)
            == ["id uuid", "name text", "startsAt timestamp with time zone", "isFavourite bigint"])
        #expect(
          try psql(url, "SELECT name, \"isFavourite\" FROM public_readable.view_trips")
            == ["Kyoto|1"])
      }

      /// Views made again keep what others built on them: a migration that only adds a column
      /// replaces the view in place (its grants and a view of the user's reading it stay); one
      /// that changes a column's type is refused while the user's view reads it, naming that
      /// view and changing nothing; once the user's view is gone it remakes the view and
      /// grants its `SELECT` again. The schema's `USAGE` grant stays throughout.
      @Test func aRebuildKeepsGrantsAndRefusesToDropTheUsersViews() throws {
        let url = try PostgresCluster.freshDatabaseURL()
        let database = try #require(URL(string: url)?.path.dropFirst())
        let reader = try PostgresCluster.shared().url(
          database: String(database), user: "kura_view_reader")
        let configuration = ModelConfiguration.postgres(try #require(URL(string: url)))
        let tripID = try #require(Self.tripID)
        do {
          let context = ModelContext(
            try ModelContainer(for: ViewTrip.self, configurations: configuration))
          try context.insert(ViewTrip(id: tripID, name: "Kyoto", startsAt: .distantPast))
          try context.save()
        }
        _ = try psql(
          url,
          "CREATE ROLE kura_view_reader LOGIN; GRANT USAGE ON SCHEMA public_readable TO "
            + "kura_view_reader; GRANT SELECT ON public_readable.view_trips TO kura_view_reader; "
            + "CREATE SCHEMA reports; CREATE VIEW reports.trip_names AS SELECT name FROM "
            + "public_readable.view_trips")
        let viewOID =
          "SELECT 'public_readable.view_trips'::regclass::oid"
        let oid = try psql(url, viewOID)
        // A column added: replaced in place.
        do {
          let context = ModelContext(
            try ModelContainer(for: ViewTripWithNotes.self, configurations: configuration))
          var trip = try #require(try context.model(for: tripID, as: ViewTripWithNotes.self))
          trip.isFavourite = true
          try context.insert(trip)
          try context.save()
        }
        #expect(try psql(url, viewOID) == oid)
        #expect(try psql(url, "SELECT name FROM reports.trip_names") == ["Kyoto"])
        #expect(
          try psql(reader, "SELECT name, \"isFavourite\" FROM public_readable.view_trips")
            == ["Kyoto|t"])
        // A column's type changed: refused while the user's view reads the view.
        let error = try #require(throws: StoreError.self) {
          try ModelContainer(for: ViewTripWidened.self, configurations: configuration)
        }
        #expect("\(error)".contains("`view reports.trip_names` depends on it"), "\(error)")
        #expect("\(error)".contains("public_readable.view_trips"), "\(error)")
        let type =
          "SELECT data_type FROM information_schema.columns WHERE table_schema = "
          + "'public_readable' AND table_name = 'view_trips' AND column_name = 'isFavourite'"
        #expect(try psql(url, type) == ["boolean"])
        #expect(try psql(url, "SELECT name FROM reports.trip_names") == ["Kyoto"])
        // Without the user's view: made again, its grant applied again.
        _ = try psql(url, "DROP VIEW reports.trip_names")
        _ = try ModelContainer(for: ViewTripWidened.self, configurations: configuration)
        #expect(try psql(url, type) == ["bigint"])
        #expect(try psql(url, viewOID) != oid)
        #expect(
          try psql(reader, "SELECT name, \"isFavourite\" FROM public_readable.view_trips")
            == ["Kyoto|1"])
      }
    }
  }
#endif
