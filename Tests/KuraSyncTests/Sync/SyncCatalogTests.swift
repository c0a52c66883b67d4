#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura
  import KuraPostgreSQL
  import KuraSync
  import KuraSyncCore
  import KuraSyncServer
  import KuraTestSupport
  import KuraEngineTestSupport
  import KuraCLI
  import KuraStoreCLI

  /// A trip with a required start date and optional notes.
  private struct CatalogTrip: PersistentModel, Equatable {
    var id: UUID
    var name: String
    var startDate: Date
    var notes: String?
  }

  /// An activity of a trip.
  private struct CatalogActivity: PersistentModel, Equatable {
    static var schema: Schema<CatalogActivity> {
      Schema(.reference(\.trip, to: CatalogTrip.self, deleteRule: .cascade))
    }
    var id: UUID
    var trip: UUID
    var title: String
    var isComplete: Bool
  }

  /// A city with a unique name.
  private struct CatalogCity: PersistentModel, Equatable {
    static var schema: Schema<CatalogCity> { Schema(.unique(\.name)) }
    var id: UUID
    var name: String
    var visits: Int
  }

  /// A note as the app's first version has it.
  private struct NoteV1: PersistentModel, Equatable {
    static var schemaName: String { "CatalogNote" }
    var id: UUID
    var text: String
  }

  /// The second version: an optional rating.
  private struct NoteV2: PersistentModel, Equatable {
    static var schemaName: String { "CatalogNote" }
    var id: UUID
    var text: String
    var rating: Int?
  }

  /// A third version adding a required property without a default: refused by the catalogue.
  private struct NoteV3: PersistentModel, Equatable {
    static var schemaName: String { "CatalogNote" }
    var id: UUID
    var text: String
    var rating: Int?
    var pages: Int
  }

  /// A version that changed the text's kind: contradicts the catalogue.
  private struct NoteWrongKind: PersistentModel, Equatable {
    static var schemaName: String { "CatalogNote" }
    var id: UUID
    var text: Int
  }

  /// The server's schema catalogue: learnt from the replicas' declarations, it refuses what
  /// contradicts it before it enters the log (HTTP 400 naming the model and the property), lets
  /// a newer app version add optional properties, and arbitrates unique values whatever a push
  /// declares.
  @Suite("Sync catalogue")
  struct SyncCatalogTests {
    private static func save(_ models: [any PersistentModel], in container: ModelContainer)
      throws
    {
      let context = ModelContext(container)
      for model in models { try context.insert(model) }
      try context.save()
    }

    private static func fetch<Model: PersistentModel>(
      _ type: Model.Type, _ container: ModelContainer
    ) throws -> [Model] {
      try ModelContext(container).fetch(FetchDescriptor<Model>())
    }

    /// A raw push of one save (sequence 1) by `replica`, with no schema declared unless given.
    private static func push(
      _ changes: [SyncChange], replica: UUID, world: SyncRulesWorld,
      schema: [SyncModelDeclaration]? = nil
    ) async throws -> (status: Int, body: Data) {
      try await push(
        changes, replica: replica, server: world.server.url, token: world.token.token,
        schema: schema)
    }

    private static func push(
      _ changes: [SyncChange], replica: UUID, server: URL, token: String,
      schema: [SyncModelDeclaration]?
    ) async throws -> (status: Int, body: Data) {
      let body = try JSONEncoder().encode(
        SyncPushRequest(
          replica: SyncStamp.hex(replica), saves: [SyncSave(sequence: 1, changes: changes)],
          schema: schema))
      return try await send(
        "POST", server.appendingPathComponent("v1/spaces/family/push"), token: token, body: body)
    }

    /// The log's changes, as `model id property` lines (`deleted` for a delete).
    private static func logged(_ world: SyncRulesWorld) throws -> [String] {
      try world.serverQuery("SELECT changes FROM kura_sync_log ORDER BY position") {
        try JSONDecoder().decode([SyncChange].self, from: Data($0.string(at: 0).utf8))
      }.flatMap { $0 }.map { "\($0.model) \($0.id) \($0.deleted ? "deleted" : $0.property ?? "")" }
    }

    /// Each hostile change of the issue's reproductions, pushed with the space's token by a
    /// replica of its own: refused with 400 `refused` naming the model and property, nothing
    /// logged, and honest replicas (one joining after) still sync and list the same models.
    @Test func contradictionsAreRefusedNamingTheModelAndProperty() async throws {
      let world = try SyncRulesWorld([CatalogTrip.self, CatalogActivity.self])
      let (a, syncA) = try world.replica("a")
      defer { syncA.stop() }
      let trip = CatalogTrip(
        id: UUID(), name: "Kyoto", startDate: Date(timeIntervalSinceReferenceDate: 800_000_000),
        notes: nil)
      let activity = CatalogActivity(id: UUID(), trip: trip.id, title: "Temples", isComplete: false)
      try Self.save([trip, activity], in: a)
      try await syncA.syncNow()
      let honest = try Self.logged(world)
      #expect(honest.count == 6)
      let catalogued = try world.serverQuery(
        "SELECT model FROM kura_sync_catalog WHERE space = 'family' ORDER BY model"
      ) { $0.string(at: 0) }
      #expect(catalogued == ["CatalogActivity", "CatalogTrip"])

      let hostile = UUID()
      let wall = UInt64(Date().timeIntervalSince1970 * 1000)
      var counter: UInt16 = 0
      func stamp() -> SyncStamp {
        counter += 1
        return SyncStamp(wall: wall, counter: counter, replica: hostile)
      }
      func set(_ model: String, _ id: String, _ property: String, _ value: DatabaseValue)
        -> SyncChange
      {
        .set(model, id: id, incarnation: 1, property: property, to: value, stamp: stamp())
      }
      let newID = UUID().uuidString
      let date = DatabaseValue.real(100)
      let cases: [(name: String, changes: [SyncChange], model: String, property: String?)] = [
        (
          "a new trip without its start date", [set("CatalogTrip", newID, "name", .text("Nara"))],
          "CatalogTrip", "startDate"
        ),
        (
          "a null name", [set("CatalogTrip", trip.id.uuidString, "name", .null)],
          "CatalogTrip", "name"
        ),
        (
          "a NaN date", [set("CatalogTrip", trip.id.uuidString, "startDate", .real(.nan))],
          "CatalogTrip", "startDate"
        ),
        (
          "a NaN date in its exact form",
          [
            set(
              "CatalogTrip", trip.id.uuidString, "startDate",
              .blob(try #require(Double.nan.exactSQLiteBlob)))
          ],
          "CatalogTrip", "startDate"
        ),
        (
          "an infinite date",
          [set("CatalogTrip", trip.id.uuidString, "startDate", .real(-.infinity))],
          "CatalogTrip", "startDate"
        ),
        (
          "a name of another kind", [set("CatalogTrip", trip.id.uuidString, "name", .integer(5))],
          "CatalogTrip", "name"
        ),
        (
          "an id that is not a UUID",
          [
            set("CatalogTrip", "not-a-uuid", "name", .text("Osaka")),
            set("CatalogTrip", "not-a-uuid", "startDate", date),
            set("CatalogTrip", "not-a-uuid", "notes", .null),
          ], "CatalogTrip", "id"
        ),
        (
          "a reference of the wrong form",
          [set("CatalogActivity", activity.id.uuidString, "trip", .integer(5))],
          "CatalogActivity", "trip"
        ),
        (
          "a reference that is not a UUID",
          [set("CatalogActivity", activity.id.uuidString, "trip", .text("not-a-uuid"))],
          "CatalogActivity", "trip"
        ),
        (
          "a reference to another model",
          [set("CatalogActivity", activity.id.uuidString, "trip", .text(activity.id.uuidString))],
          "CatalogActivity", "trip"
        ),
        (
          "a property the catalogue doesn't hold",
          [set("CatalogTrip", trip.id.uuidString, "owner", .text("mallory"))],
          "CatalogTrip", "owner"
        ),
        (
          "a model the catalogue doesn't hold",
          [set("Wallet", UUID().uuidString, "balance", .integer(1))], "Wallet", "balance"
        ),
        (
          "a delete with incarnation Int64.max",
          [
            .delete(
              "CatalogTrip", id: trip.id.uuidString, incarnation: .max, stamp: stamp())
          ], "CatalogTrip", nil
        ),
      ]
      for hostileCase in cases {
        let answer = try await Self.push(hostileCase.changes, replica: hostile, world: world)
        #expect(answer.status == 400, "\(hostileCase.name)")
        let error = try JSONDecoder().decode(SyncErrorResponse.self, from: answer.body)
        #expect(error.error == "refused", "\(hostileCase.name)")
        #expect(error.model == hostileCase.model, "\(hostileCase.name)")
        #expect(error.property == hostileCase.property, "\(hostileCase.name): \(error.message)")
        if let property = hostileCase.property {
          #expect(error.message.contains("`\(property)`"), "\(error.message)")
        }
      }
      // A declaration contradicting the catalogue: the name declared an integer.
      var declarations = SyncModelDeclaration.declarations(of: a)
      let tripIndex = try #require(declarations.firstIndex { $0.model == "CatalogTrip" })
      let nameIndex = try #require(
        declarations[tripIndex].properties.firstIndex { $0.name == "name" })
      declarations[tripIndex].properties[nameIndex].kind = "integer"
      let contradiction = try await Self.push(
        [set("CatalogTrip", trip.id.uuidString, "notes", .text("fine"))], replica: hostile,
        world: world, schema: declarations)
      #expect(contradiction.status == 400)
      let error = try JSONDecoder().decode(SyncErrorResponse.self, from: contradiction.body)
      #expect(error.error == "schemaConflict")
      #expect(error.model == "CatalogTrip")
      #expect(error.property == "name")
      #expect(
        error.message
          == "`CatalogTrip.name` is declared of kind `integer`, but the space's catalogue holds "
          + "it of kind `text`: an app version can't change a property's kind; add a property "
          + "of another name instead. Nothing was applied.")

      // Nothing entered the log, and the hostile replica holds no place in the space.
      #expect(try Self.logged(world) == honest)
      let replicas = try world.serverQuery(
        "SELECT count(*) FROM kura_sync_replicas WHERE replica = '\(SyncStamp.hex(hostile))'"
      ) { $0.int64(at: 0) }
      #expect(replicas == [0])
      // Honest replicas, one of them new, sync on and hold the same models.
      try Self.save(
        [CatalogTrip(id: UUID(), name: "Nara", startDate: Date(), notes: "deer")], in: a)
      try await syncA.syncNow()
      let (b, syncB) = try world.replica("b")
      defer { syncB.stop() }
      try await syncB.syncNow()
      let tripsA = try Self.fetch(CatalogTrip.self, a).sorted { $0.name < $1.name }
      #expect(tripsA.map(\.name) == ["Kyoto", "Nara"])
      #expect(try Self.fetch(CatalogTrip.self, b).sorted { $0.name < $1.name } == tripsA)
      #expect(try Self.fetch(CatalogActivity.self, b) == [activity])
      #expect(syncA.status.pending == 0)
      #expect(try syncA.rejections().isEmpty)
    }

    /// A newer app version adding an optional property is accepted, and replicas of the older
    /// version keep syncing with it; a version adding a required property without a default is
    /// refused, its save listed in its rejections with the model and property.
    @Test func aNewerVersionMayAddAnOptionalPropertyOnly() async throws {
      let world = try SyncSpaceWorld("sync-catalog-versions")
      let (old, syncOld) = try world.replica("old", for: NoteV1.self)
      defer { syncOld.stop() }
      let first = NoteV1(id: UUID(), text: "Pack")
      try Self.save([first], in: old)
      try await syncOld.syncNow()
      let (new, syncNew) = try world.replica("new", for: NoteV2.self)
      defer { syncNew.stop() }
      try await syncNew.syncNow()
      let rated = NoteV2(id: UUID(), text: "Book the inn", rating: 5)
      try Self.save([rated], in: new)
      try await syncNew.syncNow()
      #expect(try syncNew.rejections().isEmpty)
      #expect(syncNew.status.pending == 0)
      let declaration = try world.connection().queryFirst(
        "SELECT declaration FROM kura_sync_catalog WHERE space = 'family' AND model = 'CatalogNote'"
      ) { $0.string(at: 0) }
      #expect(
        declaration
          == #"{"id":"uuid","model":"CatalogNote","properties":[{"kind":"integer","name":"rating","optional":true},{"kind":"text","name":"text","optional":false}]}"#
      )
      // The older replica still pushes (its notes lack the rating) and pulls the newer one's.
      try await syncOld.syncNow()
      let second = NoteV1(id: UUID(), text: "Buy film")
      try Self.save([second, NoteV1(id: rated.id, text: "Book the ryokan")], in: old)
      try await syncOld.syncNow()
      #expect(try syncOld.rejections().isEmpty)
      #expect(
        Set(try Self.fetch(NoteV1.self, old).map(\.text))
          == ["Pack", "Book the ryokan", "Buy film"])
      try await syncNew.syncNow()
      #expect(
        Set(
          try Self.fetch(NoteV2.self, new).map { "\($0.text) \($0.rating.map(String.init) ?? "-")" }
        )
          == ["Pack -", "Book the ryokan 5", "Buy film -"])

      // A third version whose new property is required without a default: its declaration
      // is refused (its replicas could not store the others' notes either).
      let third = try world.container("third", for: NoteV3.self)
      let replica = UUID()
      let stamp = SyncStamp(
        wall: UInt64(Date().timeIntervalSince1970 * 1000), counter: 0, replica: replica)
      let id = UUID().uuidString
      let answer = try await Self.push(
        [
          .set(
            "CatalogNote", id: id, incarnation: 1, property: "text", to: .text("Read"),
            stamp: stamp),
          .set(
            "CatalogNote", id: id, incarnation: 1, property: "pages", to: .integer(3),
            stamp: stamp),
        ], replica: replica, server: world.server.url, token: world.token.token,
        schema: SyncModelDeclaration.declarations(of: third))
      #expect(answer.status == 400)
      let error = try JSONDecoder().decode(SyncErrorResponse.self, from: answer.body)
      #expect(error.model == "CatalogNote")
      #expect(error.property == "pages")
      #expect(error.error == "schemaConflict")
      #expect(error.message.hasPrefix("`CatalogNote.pages` is new to the space"))
      // A replica of a version that changed a property's kind: its pushes are refused with
      // `schemaConflict`, and its save stays in its outbox (not set aside as rejected).
      let (wrong, syncWrong) = try world.replica("wrong", for: NoteWrongKind.self)
      defer { syncWrong.stop() }
      try Self.save([NoteWrongKind(id: UUID(), text: 7)], in: wrong)
      await #expect(throws: SyncError.self) { try await syncWrong.syncNow() }
      #expect(try syncWrong.rejections().isEmpty)
      #expect(syncWrong.outboxCount() == 1)
      // The older replicas never see it.
      try await syncOld.syncNow()
      #expect(try Self.fetch(NoteV1.self, old).count == 3)
    }

    /// Reproduction 7: a push that declares no unique attributes, holding a value another
    /// model holds. The server arbitrates from the catalogue: it refuses the pushed model
    /// (listed in the push's answer), and every replica, one joining later too, keeps the
    /// model the server accepted.
    @Test func uniqueValuesAreArbitratedFromTheCatalogue() async throws {
      let world = try SyncRulesWorld([CatalogCity.self])
      let (a, syncA) = try world.replica("a")
      defer { syncA.stop() }
      let winner = CatalogCity(id: UUID(), name: "Kyoto", visits: 1)
      try Self.save([winner], in: a)
      try await syncA.syncNow()
      let hostile = UUID()
      let stamp = SyncStamp(
        wall: UInt64(Date().timeIntervalSince1970 * 1000), counter: 0, replica: hostile)
      let impostor = UUID().uuidString
      let answer = try await Self.push(
        [
          .set(
            "CatalogCity", id: impostor, incarnation: 1, property: "name", to: .text("Kyoto"),
            stamp: stamp),
          .set(
            "CatalogCity", id: impostor, incarnation: 1, property: "visits", to: .integer(9),
            stamp: stamp),
        ], replica: hostile, world: world)
      #expect(answer.status == 200)
      let decoded = try JSONDecoder().decode(SyncPushResponse.self, from: answer.body)
      #expect(decoded.conflicts?.map(\.id) == [impostor])
      #expect(decoded.conflicts?.map(\.existingID) == [winner.id.uuidString])
      #expect(decoded.conflicts?.first?.restored == nil)
      // The log holds the winner and, in the impostor's place, only its delete.
      #expect(
        try Self.logged(world) == [
          "CatalogCity \(winner.id.uuidString) name", "CatalogCity \(winner.id.uuidString) visits",
          "CatalogCity \(impostor) deleted",
        ])
      try await syncA.syncNow()
      #expect(try Self.fetch(CatalogCity.self, a) == [winner])
      #expect(try syncA.conflicts().isEmpty)
      let (late, syncLate) = try world.replica("late")
      defer { syncLate.stop() }
      try await syncLate.syncNow()
      #expect(try Self.fetch(CatalogCity.self, late) == [winner])
    }

    /// A replica removes a model only when the server says it refused it: two models holding
    /// one unique value that the server accepted both (pushed before any device declared the
    /// model, by a version that names no unique attributes) leave the first in every replica's
    /// table and the second waiting, with no model set aside.
    @Test func aReplicaNeverRemovesAModelTheServerAccepted() async throws {
      let world = try SyncRulesWorld([CatalogCity.self])
      let legacy = UUID()
      let wall = UInt64(Date().timeIntervalSince1970 * 1000)
      let first = CatalogCity(id: UUID(), name: "Kyoto", visits: 1)
      let second = CatalogCity(id: UUID(), name: "Kyoto", visits: 2)
      var saves: [SyncSave] = []
      for (offset, city) in [first, second].enumerated() {
        let stamp = SyncStamp(wall: wall, counter: UInt16(offset), replica: legacy)
        let id = city.id.uuidString
        saves.append(
          SyncSave(
            sequence: Int64(offset + 1),
            changes: [
              .set(
                "CatalogCity", id: id, incarnation: 1, property: "name", to: .text(city.name),
                stamp: stamp),
              .set(
                "CatalogCity", id: id, incarnation: 1, property: "visits",
                to: .integer(Int64(city.visits)), stamp: stamp),
            ]))
      }
      let answer = try await send(
        "POST", world.server.url.appendingPathComponent("v1/spaces/family/push"),
        token: world.token.token,
        body: try JSONEncoder().encode(
          SyncPushRequest(replica: SyncStamp.hex(legacy), saves: saves)))
      #expect(answer.status == 200)
      for name in ["a", "b"] {
        let (replica, sync) = try world.replica(name)
        defer { sync.stop() }
        try await sync.syncNow()
        #expect(try Self.fetch(CatalogCity.self, replica) == [first], "\(name)")
        #expect(try sync.conflicts().isEmpty, "\(name)")
      }
    }

    /// A server database made before the catalogue (no catalogue tables) is upgraded in place
    /// when a server starts: the ids already in the log are known, so an edit of one property
    /// of a model synced before is an edit, not a new model without its required properties.
    @Test func aDatabaseFromBeforeTheCatalogueIsUpgradedInPlace() async throws {
      let world = try SyncSpaceWorld("sync-catalog-upgrade")
      let trip = CatalogTrip(
        id: UUID(), name: "Kyoto", startDate: Date(timeIntervalSinceReferenceDate: 0), notes: nil)
      do {
        let (a, syncA) = try world.replica("a", for: CatalogTrip.self)
        defer { syncA.stop() }
        try Self.save([trip], in: a)
        try await syncA.syncNow()
      }
      // The tables an earlier version didn't have, gone; then a server of this version starts.
      try world.connection().execute(
        "DROP TABLE kura_sync_catalog; DROP TABLE kura_sync_catalog_ids")
      let upgraded = try SyncTestServer(
        store: world.database, tokens: world.tokensFile, directory: world.directory)
      let ids = try world.connection().query(
        "SELECT space, model, id, incarnation FROM kura_sync_catalog_ids"
      ) { "\($0.string(at: 0)) \($0.string(at: 1)) \($0.string(at: 2)) \($0.int64(at: 3))" }
      #expect(ids == ["family CatalogTrip \(trip.id.uuidString) 1"])
      let (a, syncA) = try world.replica("a", for: CatalogTrip.self, server: upgraded.url)
      defer { syncA.stop() }
      var edited = trip
      edited.notes = "temples"
      try Self.save([edited], in: a)
      try await syncA.syncNow()
      #expect(try syncA.rejections().isEmpty)
      #expect(syncA.status.pending == 0)
      let (b, syncB) = try world.replica("b", for: CatalogTrip.self, server: upgraded.url)
      defer { syncB.stop() }
      try await syncB.syncNow()
      #expect(try Self.fetch(CatalogTrip.self, b) == [edited])
    }
  }
#endif
