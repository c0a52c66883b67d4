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

  /// A trip with properties of several kinds, for the admission tests.
  private struct GuardedTrip: PersistentModel, Equatable {
    static var schemaName: String { "GuardedTrip" }
    var id: UUID
    var name: String
    var start: Date
    var nights: Int16
    var note: String?
  }

  /// A stop of a trip (a required reference).
  private struct GuardedStop: PersistentModel, Equatable {
    static var schemaName: String { "GuardedStop" }
    static var schema: Schema<GuardedStop> {
      Schema(.reference(\.trip, to: GuardedTrip.self, deleteRule: .cascade))
    }
    var id: UUID
    var name: String
    var trip: UUID
  }

  /// The trip of a later app version, whose nights are an `Int`.
  private struct GuardedTripV2: PersistentModel, Equatable {
    static var schemaName: String { "GuardedTrip" }
    var id: UUID
    var name: String
    var start: Date
    var nights: Int
    var note: String?
  }

  /// Hostile but authorized pushes against honest replicas (in-process engines on their own
  /// SQLite files) through a real `kura sync serve`: what the replicas can't hold is quarantined,
  /// visibly, and nothing else changes.
  @Suite("Sync admission fuzzing")
  struct SyncAdmissionFuzzTests {
    private static func all<Model: PersistentModel>(_ type: Model.Type, _ container: ModelContainer)
      throws -> [Model]
    {
      try ModelContext(container).fetch(FetchDescriptor<Model>()).sorted {
        "\($0.id)" < "\($1.id)"
      }
    }

    @Test func aDeleteWithTheHighestIncarnationIsRefusedAndReCreatingTheIdWorks() async throws {
      let world = try SyncSpaceWorld("sync-admission-incarnation")
      let (a, syncA) = try world.replica("a", for: GuardedTrip.self, GuardedStop.self)
      defer { syncA.stop() }
      let trip = GuardedTrip(id: UUID(), name: "Kyoto", start: Date(), nights: 3, note: nil)
      let context = ModelContext(a)
      try context.insert(trip)
      try context.save()
      try await syncA.syncNow()
      let hostile = HostileReplica(
        server: world.server.url, space: "family", token: world.token.token,
        database: world.database)
      let delete = hostile.delete(
        "GuardedTrip", id: trip.id.uuidString, incarnation: .max, tick: 60_000)
      #expect(try await hostile.push(sequence: 1, [delete]) == 200)
      try await syncA.syncNow()
      #expect(try Self.all(GuardedTrip.self, a) == [trip])
      let entries = try syncA.quarantine()
      #expect(entries.count == 1)
      let entry = try #require(entries.first)
      #expect(entry.kind == .refused)
      #expect(entry.property == nil && entry.value == nil)
      #expect(entry.replica == SyncStamp.hex(hostile.replica))
      #expect(
        entry.reason
          == "Can't take the change of `GuardedTrip` `\(trip.id.uuidString)`: its incarnation "
          + "9223372036854775807 is above 4611686018427387904, which no replica reaches by "
          + "deleting and inserting an id again. It was not applied; the model stays as it was.")
      #expect(syncA.status.quarantined == 1)
      // The app deletes the trip and makes it again under the same id: no trap, and it syncs.
      try context.delete(trip)
      try context.save()
      var again = trip
      again.name = "Kyōto"
      try context.insert(again)
      try context.save()
      try await syncA.syncNow()
      let (b, syncB) = try world.replica("b", for: GuardedTrip.self, GuardedStop.self)
      defer { syncB.stop() }
      try await syncB.syncNow()
      #expect(try Self.all(GuardedTrip.self, b) == [again])
      // B pulled the refused delete, then A's delete of the trip, which replaced it.
      #expect(try syncB.quarantine().isEmpty)
      // A keeps its entry (its own saves don't clear the quarantine) until it is cleared.
      #expect(try syncA.quarantine() == entries)
      try syncA.clearQuarantine()
      #expect(try syncA.quarantine().isEmpty)
    }

    @Test func aRefusedChangeIsAdmittedWhenAnUpgradedAppCanHoldIt() async throws {
      let world = try SyncSpaceWorld("sync-admission-upgrade")
      let trip = GuardedTrip(id: UUID(), name: "Kyoto", start: Date(), nights: 3, note: nil)
      do {
        let (a, syncA) = try world.replica("a", for: GuardedTrip.self)
        defer { syncA.stop() }
        let context = ModelContext(a)
        try context.insert(trip)
        try context.save()
        try await syncA.syncNow()
        let hostile = HostileReplica(
          server: world.server.url, space: "family", token: world.token.token,
          database: world.database)
        let nights = hostile.set(
          "GuardedTrip", id: trip.id.uuidString, "nights", WireValue.integer(40_000),
          tick: 60_000)
        #expect(try await hostile.push(sequence: 1, [nights]) == 200)
        try await syncA.syncNow()
        #expect(try Self.all(GuardedTrip.self, a) == [trip])
        #expect(
          try syncA.quarantine().map(\.reason) == [
            "Can't store `GuardedTrip` `\(trip.id.uuidString)`'s `nights`: 40000 does not fit "
              + "`Int16`. The change was not applied (the model keeps its value); a later change "
              + "of `nights` replaces it."
          ])
      }
      // The app's next version stores nights as an Int: the kept change fits, and is applied.
      let (a, syncA) = try world.replica("a", for: GuardedTripV2.self)
      defer { syncA.stop() }
      #expect(try syncA.quarantine().isEmpty)
      #expect(
        try Self.all(GuardedTripV2.self, a) == [
          GuardedTripV2(id: trip.id, name: "Kyoto", start: trip.start, nights: 40_000, note: nil)
        ])
    }

    /// One hostile push's changes and the quarantine entries each honest replica must show for
    /// them (`kind model id property`).
    private struct Attack {
      var changes: [String] = []
      var expected: [String] = []
    }

    /// A hostile save of one of the kinds below, against the honest `trips`.
    private static func attack(
      _ hostile: HostileReplica, trips: [GuardedTrip], number: Int,
      random: inout SeededGenerator
    ) -> Attack {
      var attack = Attack()
      func refused(_ model: String, _ id: String, _ property: String?) {
        attack.expected.append("refused \(model) \(id) \(property ?? "-")")
      }
      func waiting(_ model: String, _ id: String, _ property: String) {
        attack.expected.append("waiting \(model) \(id) \(property)")
      }
      let trip = trips[Int.random(in: 0..<trips.count, using: &random)].id.uuidString
      let tick = UInt64.random(in: 0...120_000, using: &random)
      switch Int.random(in: 0..<8, using: &random) {
      case 0:  // wrong kinds
        let (property, value) = [
          ("name", WireValue.integer(7)), ("start", WireValue.text("tomorrow")),
          ("nights", WireValue.real(bits: 1.5.bitPattern)), ("note", WireValue.integer(1)),
          ("nights", "{\"blob\":\"AAE=\"}"),
        ][Int.random(in: 0..<5, using: &random)]
        attack.changes.append(hostile.set("GuardedTrip", id: trip, property, value, tick: tick))
        refused("GuardedTrip", trip, property)
      case 1:  // null for a required property
        let property = ["name", "start", "nights"][Int.random(in: 0..<3, using: &random)]
        attack.changes.append(hostile.set("GuardedTrip", id: trip, property, "null", tick: tick))
        refused("GuardedTrip", trip, property)
      case 2:  // a new model missing required properties
        let id = UUID().uuidString
        attack.changes.append(
          hostile.set("GuardedTrip", id: id, "name", WireValue.text("Ghost \(number)")))
        waiting("GuardedTrip", id, "start")
        waiting("GuardedTrip", id, "nights")
      case 3:  // a wrong reference
        let id = UUID().uuidString
        let target = [
          WireValue.integer(5), WireValue.text("not-a-uuid"), WireValue.text(trip.lowercased()),
          "{\"real\":\"4014000000000000\"}",
        ][Int.random(in: 0..<4, using: &random)]
        attack.changes += [
          hostile.set("GuardedStop", id: id, "name", WireValue.text("Stop \(number)")),
          hostile.set("GuardedStop", id: id, "trip", target),
        ]
        refused("GuardedStop", id, "trip")
        waiting("GuardedStop", id, "trip")
      case 4:  // NaN and infinite dates
        let bits: [UInt64] = [
          0x7FF8_0000_0000_0000, 0x7FF0_0000_0000_0000, 0xFFF0_0000_0000_0000,
          0x7FF8_0000_0000_0001,
        ]
        let value = WireValue.real(bits: bits[Int.random(in: 0..<4, using: &random)])
        attack.changes.append(hostile.set("GuardedTrip", id: trip, "start", value, tick: tick))
        refused("GuardedTrip", trip, "start")
      case 5:  // a foreign id type, on a complete model
        let id = ["trip-\(number)", "\(number)", UUID().uuidString.lowercased()][
          Int.random(in: 0..<3, using: &random)]
        for (property, value) in [
          ("name", WireValue.text("Foreign \(number)")), ("start", WireValue.date(Date())),
          ("nights", WireValue.integer(2)),
        ] {
          attack.changes.append(hostile.set("GuardedTrip", id: id, property, value))
          refused("GuardedTrip", id, property)
        }
      case 6:  // huge values
        if Bool.random(using: &random) {
          let nights = [Int64.max, Int64.min, 40_000, -40_000][
            Int.random(in: 0..<4, using: &random)]
          attack.changes.append(
            hostile.set("GuardedTrip", id: trip, "nights", WireValue.integer(nights), tick: tick))
          refused("GuardedTrip", trip, "nights")
        } else {
          let incarnation = Int64.max - Int64.random(in: 0..<1_000, using: &random)
          attack.changes.append(
            hostile.delete("GuardedTrip", id: trip, incarnation: incarnation, tick: tick))
          refused("GuardedTrip", trip, nil)
        }
      default:  // a newer app version's property and model: kept, not quarantined
        attack.changes += [
          hostile.set("GuardedTrip", id: trip, "rating", WireValue.integer(4), tick: tick),
          hostile.set("FutureModel", id: "f\(number)", "anything", WireValue.text("x")),
        ]
      }
      return attack
    }

    @Test func twoThousandHostilePushesLeaveHonestReplicasSyncingAndAgreeing() async throws {
      let seed: UInt64 = 39
      var random = SeededGenerator(seed: seed)
      let world = try SyncSpaceWorld("sync-admission-fuzz")
      let (a, syncA) = try world.replica("a", for: GuardedTrip.self, GuardedStop.self)
      defer { syncA.stop() }
      let (b, syncB) = try world.replica("b", for: GuardedTrip.self, GuardedStop.self)
      defer { syncB.stop() }
      let trips = (0..<10).map { index in
        GuardedTrip(
          id: UUID(), name: "Trip \(index)", start: Date(timeIntervalSince1970: 1.8e9),
          nights: Int16(index), note: index.isMultiple(of: 2) ? "note" : nil)
      }
      let stops = trips.map { GuardedStop(id: UUID(), name: "Stop of \($0.name)", trip: $0.id) }
      let context = ModelContext(a)
      for trip in trips { try context.insert(trip) }
      for stop in stops { try context.insert(stop) }
      try context.save()
      try await syncA.syncNow()
      try await syncB.syncNow()
      // 2,000 pushes from 8 hostile replicas at once (each in its own order).
      let hostiles = (0..<8).map { _ in
        HostileReplica(
          server: world.server.url, space: "family", token: world.token.token,
          database: world.database)
      }
      var plans: [[Attack]] = Array(repeating: [], count: hostiles.count)
      for number in 0..<2_000 {
        let which = number % hostiles.count
        plans[which].append(
          Self.attack(hostiles[which], trips: trips, number: number, random: &random))
      }
      let outcomes = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
        for (which, plan) in plans.enumerated() {
          let hostile = hostiles[which]
          group.addTask {
            var accepted = 0
            var expected: [String] = []
            for (index, attack) in plan.enumerated() {
              let status = try await hostile.push(sequence: Int64(index + 1), attack.changes)
              // A server that refuses such a push (400) keeps it out of every replica.
              guard status == 200 else { continue }
              accepted += 1
              expected += attack.expected
            }
            return (accepted, expected)
          }
        }
        var accepted = 0
        var expected: [String] = []
        for try await (count, entries) in group {
          accepted += count
          expected += entries
        }
        return (accepted, expected.sorted())
      }
      #expect(outcomes.0 == 2_000, "seed \(seed)")
      // The honest replicas pull all of it, a new one too, and keep syncing.
      try await syncA.syncNow()
      try await syncB.syncNow()
      let (c, syncC) = try world.replica("c", for: GuardedTrip.self, GuardedStop.self)
      defer { syncC.stop() }
      try await syncC.syncNow()
      let late = GuardedTrip(
        id: UUID(), name: "Late", start: Date(timeIntervalSince1970: 1.9e9), nights: 1, note: nil)
      try context.insert(late)
      try context.save()
      try await syncA.syncNow()
      for (container, sync) in [(a, syncA), (b, syncB), (c, syncC)] {
        try await sync.syncNow()
        #expect(
          try Self.all(GuardedTrip.self, container)
            == (trips + [late]).sorted {
              "\($0.id)" < "\($1.id)"
            }, "seed \(seed)")
        #expect(
          try Self.all(GuardedStop.self, container)
            == stops.sorted { "\($0.id)" < "\($1.id)" }, "seed \(seed)")
        let shown = try sync.quarantine().map {
          "\($0.kind.rawValue) \($0.model) \($0.id) \($0.property ?? "-")"
        }.sorted()
        #expect(shown == outcomes.1, "seed \(seed)")
        #expect(sync.status.quarantined == outcomes.1.count)
      }
    }
  }
#endif
