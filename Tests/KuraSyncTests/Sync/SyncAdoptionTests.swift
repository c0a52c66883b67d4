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

  /// A trip of the adoption tests.
  private struct AdoptedTrip: PersistentModel, Equatable {
    var id: UUID
    var name: String
  }

  /// An activity of an adopted trip (a reference, so the trips must travel first).
  private struct AdoptedActivity: PersistentModel, Equatable {
    var id: UUID
    var trip: UUID
    var title: String
    static var schema: Schema<AdoptedActivity> {
      Schema(.reference(\.trip, to: AdoptedTrip.self, deleteRule: .cascade))
    }
  }

  /// Rows saved before sync was turned on for a store are uploaded once when it is, and not on
  /// every open.
  @Suite("Sync of rows saved before sync")
  struct SyncAdoptionTests {
    @Test func rowsSavedBeforeSyncAreUploadedOnceWhenSyncIsTurnedOn() async throws {
      let world = try SyncRulesWorld([AdoptedActivity.self, AdoptedTrip.self])
      let trips = (0..<3).map { AdoptedTrip(id: UUID(), name: "trip \($0)") }
      let activities = trips.map { AdoptedActivity(id: UUID(), trip: $0.id, title: $0.name) }
      do {
        let before = try world.container("a", sync: false)
        let context = ModelContext(before)
        for activity in activities { try context.insert(activity) }
        for trip in trips { try context.insert(trip) }
        try context.save()
      }
      let logged = {
        try world.serverQuery("SELECT sequence FROM kura_sync_log ORDER BY position") {
          $0.int64(at: 0)
        }
      }
      do {
        let a = try world.container("a")
        let sync = try SyncEngine(container: a)
        defer { sync.stop() }
        #expect(sync.status.pending == 2)
        try await sync.syncNow()
        #expect(sync.status.pending == 0)
      }
      // One save per model, the trips first.
      #expect(try logged() == [1, 2])
      let models = try world.serverQuery("SELECT changes FROM kura_sync_log ORDER BY position") {
        try JSONDecoder().decode([SyncChange].self, from: Data($0.string(at: 0).utf8))
      }.map { Set($0.map(\.model)) }
      #expect(models == [["AdoptedTrip"], ["AdoptedActivity"]])
      // Opened again with sync on: nothing new to send.
      do {
        let a = try world.container("a")
        let sync = try SyncEngine(container: a)
        defer { sync.stop() }
        #expect(sync.status.pending == 0)
        try await sync.syncNow()
      }
      #expect(try logged() == [1, 2])
      let (b, syncB) = try world.replica("b")
      defer { syncB.stop() }
      try await syncB.syncNow()
      let context = ModelContext(b)
      #expect(
        try context.fetch(FetchDescriptor<AdoptedTrip>(sortBy: [SortDescriptor(\.name)])) == trips)
      #expect(
        try context.fetch(FetchDescriptor<AdoptedActivity>(sortBy: [SortDescriptor(\.title)]))
          == activities)
      // The pulled rows have sync records: B sends nothing back.
      #expect(syncB.status.pending == 0)
    }
  }
#endif
