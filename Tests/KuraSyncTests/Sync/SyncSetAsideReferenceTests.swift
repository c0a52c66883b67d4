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

  /// A city with a unique name.
  private struct AsideCity: PersistentModel, Equatable {
    var id: UUID
    var name: String
    static var schema: Schema<AsideCity> { Schema(.unique(\.name)) }
  }

  /// Deleted with its city.
  private struct AsideVisit: PersistentModel, Equatable {
    var id: UUID
    var city: UUID
    var day: Int
    static var schema: Schema<AsideVisit> {
      Schema(.reference(\.city, to: AsideCity.self, deleteRule: .cascade))
    }
  }

  /// Loses its city when the city is deleted.
  private struct AsideTip: PersistentModel, Equatable {
    var id: UUID
    var city: UUID?
    var text: String
    static var schema: Schema<AsideTip> {
      Schema(.reference(\.city, to: AsideCity.self, deleteRule: .nullify))
    }
  }

  /// A model referring to a model set aside for its unique value (the server refused it)
  /// reached the other replicas and stayed parked there forever. The server now sends them a
  /// delete of the refused model instead of nothing, so its dependents are settled by their
  /// delete rules on every replica, the loser's device included.
  @Suite("Sync of models referring to a set-aside model")
  struct SyncSetAsideReferenceTests {
    private struct Rows: Equatable {
      var cities: [AsideCity]
      var visits: [AsideVisit]
      var tips: [AsideTip]
      var parked: Int
    }

    private static func rows(_ container: ModelContainer) throws -> Rows {
      let context = ModelContext(container)
      return Rows(
        cities: try context.fetch(FetchDescriptor<AsideCity>(sortBy: [SortDescriptor(\.name)])),
        visits: try context.fetch(FetchDescriptor<AsideVisit>(sortBy: [SortDescriptor(\.day)])),
        tips: try context.fetch(FetchDescriptor<AsideTip>(sortBy: [SortDescriptor(\.text)])),
        parked: try container.pool.read { try SyncLocalStore.parked($0).count })
    }

    @Test func dependentsOfASetAsideModelAreSettledByTheirDeleteRulesEverywhere() async throws {
      let world = try SyncRulesWorld([AsideCity.self, AsideVisit.self, AsideTip.self])
      let (a, syncA) = try world.replica("a")
      defer { syncA.stop() }
      let (c, syncC) = try world.replica("c")
      defer { syncC.stop() }
      let winner = AsideCity(id: UUID(), name: "Kyoto")
      do {
        let context = ModelContext(a)
        try context.insert(winner)
        try context.save()
      }
      try await syncA.syncNow()
      // B, offline, makes its own Kyoto with a visit (cascade) and a tip (nullify).
      let b = try world.container("b")
      let loser = AsideCity(id: UUID(), name: "Kyoto")
      let visit = AsideVisit(id: UUID(), city: loser.id, day: 1)
      var tip = AsideTip(id: UUID(), city: loser.id, text: "temples at dawn")
      do {
        let context = ModelContext(b)
        try context.insert(loser)
        try context.insert(visit)
        try context.insert(tip)
        try context.save()
      }
      let syncB = try SyncEngine(container: b)
      defer { syncB.stop() }
      try await syncB.syncNow()
      #expect(try syncB.conflicts().map(\.kind) == [.setAside])
      // On B itself: the visit went with its city, the tip lost its city.
      tip.city = nil
      let settled = Rows(cities: [winner], visits: [], tips: [tip], parked: 0)
      #expect(try Self.rows(b) == settled)
      // On the others: nothing parked, the same rows.
      try await syncC.syncNow()
      #expect(try Self.rows(c) == settled)
      try await syncA.syncNow()
      #expect(try Self.rows(a) == settled)
      // The others' own rule outcomes come back to B, changing nothing.
      try await syncB.syncNow()
      #expect(try Self.rows(b) == settled)
      #expect(syncB.status.pending == 0)
      // The server published a delete of the refused model (in place of its changes).
      let published = try world.serverQuery("SELECT changes FROM kura_sync_log ORDER BY position") {
        try JSONDecoder().decode([SyncChange].self, from: Data($0.string(at: 0).utf8))
      }.flatMap { $0 }.filter { $0.id == loser.id.uuidString }
      #expect(published.map(\.deleted) == [true])
    }
  }
#endif
