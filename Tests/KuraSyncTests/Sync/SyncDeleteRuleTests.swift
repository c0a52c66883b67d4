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

  private struct RuleTrip: PersistentModel, Equatable {
    var id: UUID
    var name: String
  }

  /// Deleted with its trip.
  private struct RuleActivity: PersistentModel, Equatable {
    var id: UUID
    var trip: UUID
    var title: String
    static var schema: Schema<RuleActivity> {
      Schema(.reference(\.trip, to: RuleTrip.self, deleteRule: .cascade))
    }
  }

  /// Loses its trip when the trip is deleted.
  private struct RuleNote: PersistentModel, Equatable {
    var id: UUID
    var trip: UUID?
    var text: String
    static var schema: Schema<RuleNote> {
      Schema(.reference(\.trip, to: RuleTrip.self, deleteRule: .nullify))
    }
  }

  /// Refuses a local delete of its trip.
  private struct RuleBooking: PersistentModel, Equatable {
    var id: UUID
    var trip: UUID
    var code: String
    static var schema: Schema<RuleBooking> {
      Schema(.reference(\.trip, to: RuleTrip.self, deleteRule: .deny))
    }
  }

  /// Delete rules hold after sync: a pulled delete applies them as a local delete would, and
  /// every replica ends with the same rows.
  @Suite("Sync delete rules")
  struct SyncDeleteRuleTests {
    private static let models: [any PersistentModel.Type] = [
      RuleTrip.self, RuleActivity.self, RuleNote.self, RuleBooking.self,
    ]

    private struct Rows: Equatable {
      var trips: [RuleTrip]
      var activities: [RuleActivity]
      var notes: [RuleNote]
      var bookings: [RuleBooking]
    }

    private static func rows(_ container: ModelContainer) throws -> Rows {
      let context = ModelContext(container)
      return Rows(
        trips: try context.fetch(FetchDescriptor<RuleTrip>(sortBy: [SortDescriptor(\.name)])),
        activities: try context.fetch(
          FetchDescriptor<RuleActivity>(sortBy: [SortDescriptor(\.title)])),
        notes: try context.fetch(FetchDescriptor<RuleNote>(sortBy: [SortDescriptor(\.text)])),
        bookings: try context.fetch(
          FetchDescriptor<RuleBooking>(sortBy: [SortDescriptor(\.code)])))
    }

    /// A trip another device deleted while this one, offline, gave it an activity (cascade), a
    /// note (nullify) and a booking (deny): on both devices the activity is gone, the note has
    /// no trip, the booking is gone (listed with its values where it was held) and the trip
    /// stays deleted.
    @Test func aDeleteFromElsewhereSettlesEveryDependentByItsRuleOnEveryReplica() async throws {
      let world = try SyncRulesWorld(Self.models)
      let (a, syncA) = try world.replica("a")
      let (b, firstSyncB) = try world.replica("b")
      defer {
        syncA.stop()
        firstSyncB.stop()
      }
      let trip = RuleTrip(id: UUID(), name: "Kyoto")
      let contextA = ModelContext(a)
      try contextA.insert(trip)
      try contextA.save()
      try await syncA.syncNow()
      try await firstSyncB.syncNow()
      firstSyncB.stop()
      // B, offline, adds the dependents; A deletes the trip and syncs first.
      let activity = RuleActivity(id: UUID(), trip: trip.id, title: "temple")
      let note = RuleNote(id: UUID(), trip: trip.id, text: "bring cash")
      let booking = RuleBooking(id: UUID(), trip: trip.id, code: "R-1")
      let contextB = ModelContext(b)
      try contextB.insert(activity)
      try contextB.insert(note)
      try contextB.insert(booking)
      try contextB.save()
      try contextA.delete(trip)
      try contextA.save()
      try await syncA.syncNow()
      let syncB = try SyncEngine(container: b)
      defer { syncB.stop() }
      try await syncB.syncNow()
      var expectedNote = note
      expectedNote.trip = nil
      let expected = Rows(trips: [], activities: [], notes: [expectedNote], bookings: [])
      #expect(try Self.rows(b) == expected)
      // B's rules travel as B's own changes; A settles what it received the same way.
      try await syncB.syncNow()
      try await syncA.syncNow()
      try await syncB.syncNow()
      #expect(try Self.rows(a) == expected)
      #expect(try Self.rows(b) == expected)
      #expect(syncA.status.pending == 0)
      #expect(syncB.status.pending == 0)
      // The booking is listed, with its values, where it was held: on B.
      let conflicts = try syncB.conflicts()
      #expect(conflicts.map(\.kind) == [.targetDeleted])
      #expect(conflicts.map(\.id) == [booking.id.uuidString])
      #expect(conflicts.map(\.existingID) == [trip.id.uuidString])
      #expect(conflicts.first?.keptValues?.contains(#""code":{"text":"R-1"}"#) == true)
      #expect(try syncA.conflicts().isEmpty)
    }

    /// A pulled model whose reference points at a model this replica doesn't know yet is kept
    /// out of its table (the pull commits) and written when a later pull brings the target.
    @Test func aPulledChildWhoseParentIsNotKnownYetIsParkedUntilTheParentArrives() throws {
      let directory = TemporaryDirectory("sync-rules-parked")
      var configuration = ModelConfiguration.url(directory.file("a.store"))
      configuration.sync = SyncSettings(
        server: URL(fileURLWithPath: "/nowhere"), space: "family", token: "unused")
      let container = try ModelContainer(
        models: Self.models, configurations: [configuration], migration: nil)
      let other = UUID()
      let wall = UInt64(Date().timeIntervalSince1970 * 1000)
      let stamp = SyncStamp(wall: wall, counter: 0, replica: other)
      let trip = RuleTrip(id: UUID(), name: "Nara")
      let activity = RuleActivity(id: UUID(), trip: trip.id, title: "deer")
      let child = SyncLoggedSave(
        position: 1, replica: SyncStamp.hex(other), sequence: 1,
        changes: [
          .set(
            "RuleActivity", id: activity.id.uuidString, incarnation: 1, property: "trip",
            to: .text(trip.id.uuidString), stamp: stamp),
          .set(
            "RuleActivity", id: activity.id.uuidString, incarnation: 1, property: "title",
            to: .text("deer"), stamp: stamp),
        ])
      let parent = SyncLoggedSave(
        position: 2, replica: SyncStamp.hex(other), sequence: 2,
        changes: [
          .set(
            "RuleTrip", id: trip.id.uuidString, incarnation: 1, property: "name",
            to: .text("Nara"), stamp: stamp)
        ])
      try container.pool.write { db in
        try db.execute(SyncLocalStore.schemaSQL)
        _ = try SyncLocalStore.applyPulled([child], container: container, db: db)
      }
      #expect(try Self.rows(container).activities.isEmpty)
      let parked = try container.pool.read { try SyncLocalStore.parked($0) }
      #expect(parked.map(\.id) == [activity.id.uuidString])
      try container.pool.write { db in
        _ = try SyncLocalStore.applyPulled([parent], container: container, db: db)
      }
      #expect(try Self.rows(container).trips == [trip])
      #expect(try Self.rows(container).activities == [activity])
      #expect(try container.pool.read { try SyncLocalStore.parked($0) }.isEmpty)
      // Nothing of it goes back out.
      #expect(try container.pool.read { try SyncLocalStore.pendingCount($0) } == 0)
    }
  }
#endif
