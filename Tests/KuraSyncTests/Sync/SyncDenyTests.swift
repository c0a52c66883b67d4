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

  private struct DenyTrip: PersistentModel, Equatable {
    var id: UUID
    var name: String
  }

  /// Deleted with its trip.
  private struct DenyActivity: PersistentModel, Equatable {
    var id: UUID
    var trip: UUID
    var title: String
    static var schema: Schema<DenyActivity> {
      Schema(.reference(\.trip, to: DenyTrip.self, deleteRule: .cascade))
    }
  }

  /// Refuses a delete of its trip, on the server too.
  private struct DenyBooking: PersistentModel, Equatable {
    var id: UUID
    var trip: UUID
    var code: String
    static var schema: Schema<DenyBooking> {
      Schema(.reference(\.trip, to: DenyTrip.self, deleteRule: .deny))
    }
  }

  /// The server enforces `.deny`: a pushed delete of a model that a live model elsewhere
  /// refers to through a `.deny` reference is refused, and its device gets it back.
  @Suite("Sync deny rule on the server")
  struct SyncDenyTests {
    private struct Rows: Equatable {
      var trips: [DenyTrip]
      var activities: [DenyActivity]
      var bookings: [DenyBooking]
    }

    private static func rows(_ container: ModelContainer) throws -> Rows {
      let context = ModelContext(container)
      return Rows(
        trips: try context.fetch(FetchDescriptor<DenyTrip>(sortBy: [SortDescriptor(\.name)])),
        activities: try context.fetch(
          FetchDescriptor<DenyActivity>(sortBy: [SortDescriptor(\.title)])),
        bookings: try context.fetch(
          FetchDescriptor<DenyBooking>(sortBy: [SortDescriptor(\.code)])))
    }

    /// B books a trip and syncs; A, which has not pulled the booking, deletes the trip (its
    /// activity goes with it, by cascade). The server refuses the save's deletes: A lists the
    /// rejection naming the booking and has the trip and the activity back; nothing was
    /// deleted anywhere. Once B deletes the booking, A's delete of the trip goes through and
    /// cascades on every replica.
    @Test func aDeleteOfAModelABookingElsewhereDeniesIsRefusedAndRestored() async throws {
      let world = try SyncRulesWorld([DenyTrip.self, DenyActivity.self, DenyBooking.self])
      let (a, syncA) = try world.replica("a")
      defer { syncA.stop() }
      let (b, syncB) = try world.replica("b")
      defer { syncB.stop() }
      let trip = DenyTrip(id: UUID(), name: "Kyoto")
      let activity = DenyActivity(id: UUID(), trip: trip.id, title: "Temples")
      do {
        let context = ModelContext(a)
        try context.insert(trip)
        try context.insert(activity)
        try context.save()
      }
      try await syncA.syncNow()
      try await syncB.syncNow()
      let booking = DenyBooking(id: UUID(), trip: trip.id, code: "K-1")
      do {
        let context = ModelContext(b)
        try context.insert(booking)
        try context.save()
      }
      try await syncB.syncNow()
      // A deletes the trip: it has no booking of it, so locally nothing refuses.
      do {
        let context = ModelContext(a)
        try context.delete(trip)
        try context.save()
      }
      #expect(try Self.rows(a).trips.isEmpty)
      try await syncA.syncNow()
      let everything = Rows(trips: [trip], activities: [activity], bookings: [booking])
      #expect(try Self.rows(a) == everything)
      #expect(syncA.status.pending == 0)
      let rejections = try syncA.rejections()
      try #require(rejections.count == 1)
      #expect(rejections[0].status == 409)
      #expect(Set(rejections[0].ids) == [trip.id.uuidString, activity.id.uuidString])
      #expect(rejections[0].reason.contains("DenyBooking `\(booking.id.uuidString)`"))
      #expect(rejections[0].reason.contains("DenyTrip `\(trip.id.uuidString)`"))
      // The server published no delete.
      let deletes = try world.serverQuery("SELECT changes FROM kura_sync_log") {
        try JSONDecoder().decode([SyncChange].self, from: Data($0.string(at: 0).utf8))
      }.flatMap { $0 }.filter(\.deleted)
      #expect(deletes.isEmpty)
      try await syncB.syncNow()
      #expect(try Self.rows(b) == everything)
      // The booking goes; the trip can go now, with its activity, everywhere.
      do {
        let context = ModelContext(b)
        try context.delete(booking)
        try context.save()
      }
      try await syncB.syncNow()
      try await syncA.syncNow()
      do {
        let context = ModelContext(a)
        try context.delete(trip)
        try context.save()
      }
      try await syncA.syncNow()
      try await syncB.syncNow()
      let none = Rows(trips: [], activities: [], bookings: [])
      #expect(try Self.rows(a) == none)
      #expect(try Self.rows(b) == none)
      #expect(try syncA.rejections().count == 1)
    }

    /// A save that deletes the booking and its trip together is not denied: the referring
    /// model goes in the same save.
    @Test func aBookingAndTheTripsDeleteInOneSaveAreNotDenied() async throws {
      let world = try SyncRulesWorld([DenyTrip.self, DenyActivity.self, DenyBooking.self])
      let (a, syncA) = try world.replica("a")
      defer { syncA.stop() }
      let (b, syncB) = try world.replica("b")
      defer { syncB.stop() }
      let trip = DenyTrip(id: UUID(), name: "Nara")
      let booking = DenyBooking(id: UUID(), trip: trip.id, code: "N-1")
      do {
        let context = ModelContext(a)
        try context.insert(trip)
        try context.insert(booking)
        try context.save()
      }
      try await syncA.syncNow()
      try await syncB.syncNow()
      // One save deleting the booking and then the trip: the save drops the referrer itself.
      do {
        let context = ModelContext(a)
        try context.delete(booking)
        try context.delete(trip)
        try context.save()
      }
      try await syncA.syncNow()
      try await syncB.syncNow()
      #expect(try syncA.rejections().isEmpty)
      let none = Rows(trips: [], activities: [], bookings: [])
      #expect(try Self.rows(a) == none)
      #expect(try Self.rows(b) == none)
    }
  }
#endif
