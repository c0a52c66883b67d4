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

  /// A trip as the app's first version has it.
  private struct TripV1: PersistentModel, Equatable {
    static var schemaName: String { "VersionedTrip" }
    var id: UUID
    var name: String
  }

  /// The same trip in the app's second version: a budget, defaulted for older rows.
  private struct TripV2: PersistentModel, Equatable {
    static var schemaName: String { "VersionedTrip" }
    static var schema: Schema<TripV2> { Schema(.defaultValue(\.budget, 0)) }
    var id: UUID
    var name: String
    var budget: Int
  }

  /// A model only the second version has.
  private struct PackingItem: PersistentModel, Equatable {
    var id: UUID
    var label: String
  }

  /// Replicas on two versions of an app's models syncing one space: the older keeps and passes
  /// on what it doesn't know, the newer fills in defaults, and an upgrade shows the kept values
  /// without a download.
  @Suite("Sync versions")
  struct SyncVersionTests {
    private static func trips<Model: PersistentModel>(
      _ type: Model.Type, _ container: ModelContainer
    )
      throws -> [Model]
    {
      try ModelContext(container).fetch(FetchDescriptor<Model>())
    }

    private static func save(_ models: [any PersistentModel], in container: ModelContainer) throws {
      let context = ModelContext(container)
      for model in models { try context.insert(model) }
      try context.save()
    }

    @Test func anOlderReplicaKeepsAndPassesOnWhatItDoesNotKnow() async throws {
      let world = try SyncSpaceWorld("sync-versions")
      let (new, syncNew) = try world.replica("new", for: TripV2.self, PackingItem.self)
      defer { syncNew.stop() }
      let kyoto = TripV2(id: UUID(), name: "Kyoto", budget: 900)
      let passport = PackingItem(id: UUID(), label: "Passport")
      let nara = TripV1(id: UUID(), name: "Nara")
      try Self.save([kyoto, passport], in: new)
      try await syncNew.syncNow()
      do {
        let (old, syncOld) = try world.replica("old", for: TripV1.self)
        defer { syncOld.stop() }
        try await syncOld.syncNow()
        #expect(try Self.trips(TripV1.self, old) == [TripV1(id: kyoto.id, name: "Kyoto")])
        // The older replica renames Kyoto and adds Nara: it sends names only.
        try Self.save([TripV1(id: kyoto.id, name: "Kyōto"), nara], in: old)
        try await syncOld.syncNow()
      }
      try await syncNew.syncNow()
      // Kyoto's budget survived the older replica's edit; Nara has the default budget.
      let expected = [
        TripV2(id: kyoto.id, name: "Kyōto", budget: 900),
        TripV2(id: nara.id, name: "Nara", budget: 0),
      ]
      #expect(try Self.trips(TripV2.self, new).sorted { $0.name < $1.name } == expected)
      #expect(try Self.trips(PackingItem.self, new) == [passport])
      // A newer replica joining later gets the same.
      let (late, syncLate) = try world.replica("late", for: TripV2.self, PackingItem.self)
      defer { syncLate.stop() }
      try await syncLate.syncNow()
      #expect(try Self.trips(TripV2.self, late).sorted { $0.name < $1.name } == expected)
      #expect(try Self.trips(PackingItem.self, late) == [passport])
      // The older replica's app is upgraded: its store migrates (a budget column, a packing
      // table) and the values it kept appear as soon as the engine starts — before it pulls.
      let logged = try world.connection().queryFirst(
        "SELECT count(*) FROM kura_sync_log WHERE space = 'family'"
      ) { $0.int64(at: 0) }
      let upgraded = try world.container("old", for: TripV2.self, PackingItem.self)
      #expect(try Self.trips(TripV2.self, upgraded).map(\.budget).sorted() == [0, 0])
      let syncUpgraded = try SyncEngine(container: upgraded)
      defer { syncUpgraded.stop() }
      #expect(try Self.trips(TripV2.self, upgraded).sorted { $0.name < $1.name } == expected)
      #expect(try Self.trips(PackingItem.self, upgraded) == [passport])
      // Its next edit of Kyoto sends the name only: the budget stays 900 everywhere.
      try Self.save([TripV2(id: kyoto.id, name: "Kyoto!", budget: 900)], in: upgraded)
      try await syncUpgraded.syncNow()
      try await syncNew.syncNow()
      let kyotoNow = try #require(
        try Self.trips(TripV2.self, new).first { $0.id == kyoto.id })
      #expect(kyotoNow == TripV2(id: kyoto.id, name: "Kyoto!", budget: 900))
      let loggedAfter = try world.connection().queryFirst(
        "SELECT count(*) FROM kura_sync_log WHERE space = 'family'"
      ) { $0.int64(at: 0) }
      #expect(loggedAfter == (logged ?? 0) + 1)
    }
  }
#endif
