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

  /// A trip of the sync-off tests.
  private struct OffTrip: PersistentModel, Equatable {
    var id: UUID
    var name: String
    var nights: Int
  }

  /// Edits made with sync off (a container opened without sync settings) to rows that were
  /// synced before are sent once when a sync engine starts on the store again.
  @Suite("Sync of edits made with sync off")
  struct SyncOffEditsTests {
    private static func trips(_ container: ModelContainer) throws -> [OffTrip] {
      try ModelContext(container).fetch(FetchDescriptor<OffTrip>(sortBy: [SortDescriptor(\.name)]))
    }

    /// The server's logged saves, and the changes each holds.
    private static func logged(_ world: SyncRulesWorld) throws -> [[SyncChange]] {
      try world.serverQuery("SELECT changes FROM kura_sync_log ORDER BY position") {
        try JSONDecoder().decode([SyncChange].self, from: Data($0.string(at: 0).utf8))
      }
    }

    @Test func editsAndDeletesMadeWithSyncOffAreSentOnceWhenSyncIsOnAgain() async throws {
      let world = try SyncRulesWorld([OffTrip.self])
      var kyoto = OffTrip(id: UUID(), name: "Kyoto", nights: 2)
      let nara = OffTrip(id: UUID(), name: "Nara", nights: 1)
      let osaka = OffTrip(id: UUID(), name: "Osaka", nights: 3)
      do {
        let (a, sync) = try world.replica("a")
        defer { sync.stop() }
        let context = ModelContext(a)
        for trip in [kyoto, nara, osaka] { try context.insert(trip) }
        try context.save()
        try await sync.syncNow()
      }
      let (b, syncB) = try world.replica("b")
      defer { syncB.stop() }
      try await syncB.syncNow()
      #expect(try Self.trips(b) == [kyoto, nara, osaka])
      // With sync off: one property of Kyoto, Nara deleted, a new trip.
      let kobe = OffTrip(id: UUID(), name: "Kobe", nights: 4)
      do {
        let off = try world.container("a", sync: false)
        let context = ModelContext(off)
        kyoto.nights = 5
        try context.insert(kyoto)
        try context.delete(nara)
        try context.insert(kobe)
        try context.save()
      }
      #expect(try Self.logged(world).count == 1)
      do {
        let (_, sync) = try world.replica("a")
        defer { sync.stop() }
        // The sync-off save, recorded from the history as any save is: one save.
        #expect(sync.status.pending == 1)
        try await sync.syncNow()
        #expect(sync.status.pending == 0)
      }
      let saves = try Self.logged(world)
      #expect(saves.count == 2)
      let edits = try #require(saves.last)
      // Only what changed: Kyoto's nights (not its unchanged name), Nara's delete and the new
      // trip.
      #expect(
        Set(edits.map { "\($0.id) \($0.property ?? "deleted")" }) == [
          "\(kyoto.id.uuidString) nights", "\(nara.id.uuidString) deleted",
          "\(kobe.id.uuidString) name", "\(kobe.id.uuidString) nights",
        ])
      try await syncB.syncNow()
      #expect(try Self.trips(b) == [kobe, kyoto, osaka])
      // Opened with sync again: nothing is sent twice.
      do {
        let (_, sync) = try world.replica("a")
        defer { sync.stop() }
        #expect(sync.status.pending == 0)
        try await sync.syncNow()
      }
      #expect(try Self.logged(world).count == 2)
    }

    /// A sync-off container whose history retention trimmed the saves after the last check:
    /// the engine compares every row with its registers instead, and still sends only what
    /// changed.
    @Test func anEditWhoseHistoryWasTrimmedIsFoundByComparingEveryRow() async throws {
      let world = try SyncRulesWorld([OffTrip.self])
      var trips = (0..<4).map { OffTrip(id: UUID(), name: "trip \($0)", nights: $0) }
      do {
        let (a, sync) = try world.replica("a")
        defer { sync.stop() }
        let context = ModelContext(a)
        for trip in trips { try context.insert(trip) }
        try context.save()
        try await sync.syncNow()
      }
      do {
        var configuration = ModelConfiguration.url(world.directory.file("a.store"))
        configuration.historyRetention = HistoryRetention(maximumAge: nil, maximumCount: 1)
        let off = try ModelContainer(
          for: OffTrip.self, configurations: configuration)
        let context = ModelContext(off)
        trips[1].name = "renamed"
        try context.insert(trips[1])
        try context.save()
        // More saves, each trimming the one before: the rename's entry is gone.
        for nights in 10..<13 {
          trips[2].nights = nights
          try context.insert(trips[2])
          try context.save()
        }
        try #require(
          try off.pool.read { db in
            try db.queryFirst("SELECT count(*) FROM kura_history") { $0.int64(at: 0) }
          } ?? 9 <= 1)
      }
      do {
        let (_, sync) = try world.replica("a")
        defer { sync.stop() }
        #expect(sync.status.pending == 1)
        try await sync.syncNow()
      }
      let edits = try #require(try Self.logged(world).last)
      #expect(
        Set(edits.map { "\($0.id) \($0.property ?? "deleted")" }) == [
          "\(trips[1].id.uuidString) name", "\(trips[2].id.uuidString) nights",
        ])
      let (b, syncB) = try world.replica("b")
      defer { syncB.stop() }
      try await syncB.syncNow()
      #expect(try Self.trips(b) == trips.sorted { $0.name < $1.name })
    }
  }
#endif
