import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import KuraSyncServer
import KuraTestSupport
import Synchronization
import Testing

@testable import Kura

/// A replica in the convergence simulations: its clock (skewed), its merged state, and the
/// changes it made.
private struct SimulatedReplica {
  var clock: HybridLogicalClock
  var state = SyncMergeState()
  var made: [SyncChange] = []

  /// Makes one random local change, as a save would: inserts an unknown id (all properties),
  /// inserts a deleted id again (the next incarnation), or sets a property or deletes a live one.
  mutating func edit(using random: inout SeededGenerator, ids: [String], properties: [String]) {
    let id = ids.randomElement(using: &random) ?? "a"
    let key = SyncMergeState.Key(model: "Trip", id: id)
    let record = state.records[key] ?? SyncRecordState()
    var changes: [SyncChange] = []
    if !record.isLive {
      let stamp = clock.now()
      for property in properties {
        changes.append(
          .set(
            "Trip", id: id, incarnation: record.incarnation + 1, property: property,
            to: .integer(Int64.random(in: 0..<5, using: &random)), stamp: stamp))
      }
    } else if Int.random(in: 0..<5, using: &random) == 0 {
      changes.append(.delete("Trip", id: id, incarnation: record.incarnation, stamp: clock.now()))
    } else {
      let property = properties.randomElement(using: &random) ?? "name"
      changes.append(
        .set(
          "Trip", id: id, incarnation: record.incarnation, property: property,
          to: .integer(Int64.random(in: 0..<5, using: &random)), stamp: clock.now()))
    }
    state.apply(changes)
    made += changes
  }

  /// Receives another replica's changes, as a pull would.
  mutating func receive(_ changes: [SyncChange]) {
    for change in changes { clock.receive(change.stamp) }
    state.apply(changes)
  }
}

/// A fixed wall clock, shifted by `skew` milliseconds, moving on by one millisecond per reading
/// every third reading (so stamps of one millisecond, and equal wall times across replicas, occur).
private final class SteppingWallClock: Sendable {
  private let readings = Mutex(UInt64(0))
  private let base: UInt64

  init(base: UInt64) { self.base = base }

  func read() -> UInt64 {
    readings.withLock { count in
      count += 1
      return base + count / 3
    }
  }
}

@Suite("Sync merge")
struct SyncMergeTests {
  private static let replicaA = replicaID(0x0A)
  private static let replicaB = replicaID(0x0B)
  private static let replicaC = replicaID(0x0C)
  private static let hour: UInt64 = 3_600_000
  private static let noon: UInt64 = 1_764_590_400_000  // 2025-12-01T12:00:00Z

  private static func stamp(_ wall: UInt64, _ counter: UInt16 = 0, _ replica: UUID) -> SyncStamp {
    SyncStamp(wall: wall, counter: counter, replica: replica)
  }

  @Test func stampTextsSortAsStampsAndReadBack() throws {
    var random = SeededGenerator(seed: 24)
    var stamps: [SyncStamp] = []
    for _ in 0..<2_000 {
      // Few distinct walls and counters, so ties on them (broken by the replica) are common.
      let replica =
        [Self.replicaA, Self.replicaB, Self.replicaC, UUID()]
        .randomElement(using: &random) ?? Self.replicaA
      stamps.append(
        Self.stamp(
          UInt64.random(in: 0...3, using: &random) * 0xFFFF_FFFF,
          UInt16.random(in: 0...2, using: &random) * 0x7FFF, replica))
    }
    for stamp in stamps {
      #expect(SyncStamp(text: stamp.text) == stamp)
      #expect(stamp.text.utf8.count == 50)
    }
    let byStamp = stamps.sorted()
    let byText = stamps.sorted {
      Array($0.text.utf8).lexicographicallyPrecedes(Array($1.text.utf8))
    }
    #expect(byStamp == byText)
    #expect(
      Self.stamp(1, 0, Self.replicaB).text
        == "000000000001-0000-0000000000000000000000000000000b")
    for bad in [
      "", "000000000001-0000-0000000000000000000000000000000B",
      "000000000001-0000-0000000000000000000000000000000",
      "00000000001-00000-0000000000000000000000000000000b",
      "00000000000g-0000-0000000000000000000000000000000b",
    ] {
      #expect(SyncStamp(text: bad) == nil, "\(bad)")
    }
  }

  @Test func clockStaysAheadOfEverythingItIssuedOrReceived() {
    let wall = Mutex(Self.noon)
    var clock = HybridLogicalClock(replica: Self.replicaA) { wall.withLock { $0 } }
    var issued: [SyncStamp] = [clock.now()]
    #expect(issued[0] == Self.stamp(Self.noon, 0, Self.replicaA))
    // The wall clock stands still, then jumps back an hour: the counter moves on.
    issued.append(clock.now())
    wall.withLock { $0 -= Self.hour }
    issued.append(clock.now())
    #expect(issued[1] == Self.stamp(Self.noon, 1, Self.replicaA))
    #expect(issued[2] == Self.stamp(Self.noon, 2, Self.replicaA))
    // A stamp from a clock an hour ahead: every later local stamp is above it.
    let ahead = Self.stamp(Self.noon + Self.hour, 7, Self.replicaB)
    clock.receive(ahead)
    let next = clock.now()
    #expect(next == Self.stamp(Self.noon + Self.hour, 8, Self.replicaA))
    #expect(next > ahead)
    // The wall clock passes the received time: stamps follow it again, counter back at 0.
    wall.withLock { $0 = Self.noon + 2 * Self.hour }
    #expect(clock.now() == Self.stamp(Self.noon + 2 * Self.hour, 0, Self.replicaA))
  }

  @Test func aUsedUpCounterBorrowsTheNextMillisecond() {
    var clock = HybridLogicalClock(replica: Self.replicaA, latest: (Self.noon, .max)) {
      Self.noon
    }
    #expect(clock.now() == Self.stamp(Self.noon + 1, 0, Self.replicaA))
    #expect(clock.now() == Self.stamp(Self.noon + 1, 1, Self.replicaA))
  }

  @Test func theLatestStampWinsAndEqualTimesGoToTheHigherReplica() {
    var state = SyncRecordState()
    let early = SyncChange.set(
      "Trip", id: "1", incarnation: 1, property: "name", to: .text("Kyoto"),
      stamp: Self.stamp(Self.noon, 0, Self.replicaC))
    let tieLow = SyncChange.set(
      "Trip", id: "1", incarnation: 1, property: "name", to: .text("Nara"),
      stamp: Self.stamp(Self.noon + 5, 3, Self.replicaA))
    let tieHigh = SyncChange.set(
      "Trip", id: "1", incarnation: 1, property: "name", to: .text("Osaka"),
      stamp: Self.stamp(Self.noon + 5, 3, Self.replicaB))
    let outcomes = [
      state.apply(tieHigh), state.apply(tieLow), state.apply(early),
      state.apply(tieHigh),  // a duplicate changes nothing
    ]
    #expect(outcomes == [true, false, false, false])
    #expect(state.properties["name"]?.value == .text("Osaka"))
  }

  /// Every order of a small history — concurrent edits with equal times, a delete against a
  /// concurrent edit, a re-insert after the delete, edits of different properties — with one
  /// change delivered twice: all 5,040 orders end in one state, the one the rule states.
  @Test func everyOrderOfOneHistoryEndsInTheStatedState() {
    let (a, b, c) = (Self.replicaA, Self.replicaB, Self.replicaC)
    let t = Self.noon
    let changes: [SyncChange] = [
      // Trip 1: A and B edit different properties offline; B and C tie on `name` at one time.
      .set(
        "Trip", id: "1", incarnation: 1, property: "name", to: .text("Kyoto"),
        stamp: Self.stamp(t, 0, a)),
      .set(
        "Trip", id: "1", incarnation: 1, property: "budget", to: .integer(900),
        stamp: Self.stamp(t + 9, 0, b)),
      .set(
        "Trip", id: "1", incarnation: 1, property: "name", to: .text("Nara"),
        stamp: Self.stamp(t + 9, 0, c)),
      // Trip 2: A deletes it while B (an hour ahead) edits it; then C inserts id 2 again.
      .delete("Trip", id: "2", incarnation: 1, stamp: Self.stamp(t, 1, a)),
      .set(
        "Trip", id: "2", incarnation: 1, property: "name", to: .text("Late edit"),
        stamp: Self.stamp(t + Self.hour, 0, b)),
      .set(
        "Trip", id: "2", incarnation: 2, property: "name", to: .text("Again"),
        stamp: Self.stamp(t - Self.hour, 0, c)),
    ]
    let delivered = changes + [changes[4]]
    var expected = SyncMergeState()
    expected.records[.init(model: "Trip", id: "1")] = SyncRecordState(
      incarnation: 1, deleted: nil,
      properties: [
        "name": .init(value: .text("Nara"), stamp: Self.stamp(t + 9, 0, c)),
        "budget": .init(value: .integer(900), stamp: Self.stamp(t + 9, 0, b)),
      ])
    expected.records[.init(model: "Trip", id: "2")] = SyncRecordState(
      incarnation: 2, deleted: nil,
      properties: ["name": .init(value: .text("Again"), stamp: Self.stamp(t - Self.hour, 0, c))])
    var orders = 0
    var mismatches = 0
    permute(Array(delivered.indices)) { order in
      orders += 1
      var state = SyncMergeState()
      state.apply(order.map { delivered[$0] })
      if state != expected { mismatches += 1 }
    }
    #expect(orders == 5_040)
    #expect(mismatches == 0)
    // Without the re-insert, the delete wins over the later edit in every order.
    var deletedOnly = SyncMergeState()
    deletedOnly.apply([changes[4], changes[3], changes[4]])
    #expect(
      deletedOnly.records[.init(model: "Trip", id: "2")]
        == SyncRecordState(incarnation: 1, deleted: Self.stamp(t, 1, a), properties: [:]))
  }

  /// Three replicas with clocks an hour apart edit, delete and re-insert a few ids, exchanging
  /// some changes as they go (so later edits build on earlier ones); then fresh replicas receive
  /// everything in shuffled orders, with duplicates and with some changes held back and delivered
  /// last. Every one ends in the state the original replicas reach after a full exchange.
  @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
  func replicasConvergeWhateverTheOrderDuplicationAndDelay(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    let skews: [Int64] = [-Int64(Self.hour), 0, Int64(Self.hour)]
    var replicas = zip([Self.replicaA, Self.replicaB, Self.replicaC], skews).map { replica, skew in
      let wall = SteppingWallClock(base: UInt64(Int64(Self.noon) + skew))
      return SimulatedReplica(clock: HybridLogicalClock(replica: replica) { wall.read() })
    }
    let ids = ["1", "2", "3", "4"]
    let properties = ["name", "budget", "notes"]
    for _ in 0..<120 {
      let index = Int.random(in: 0..<replicas.count, using: &random)
      replicas[index].edit(using: &random, ids: ids, properties: properties)
      if Int.random(in: 0..<4, using: &random) == 0 {
        // A partial exchange: one replica receives another's changes so far.
        let from = Int.random(in: 0..<replicas.count, using: &random)
        let to = Int.random(in: 0..<replicas.count, using: &random)
        replicas[to].receive(replicas[from].made)
      }
    }
    let everything = replicas.flatMap(\.made)
    for index in replicas.indices { replicas[index].receive(everything) }
    let converged = replicas[0].state
    #expect(replicas.allSatisfy { $0.state == converged })
    #expect(converged.records.count == ids.count)
    for _ in 0..<50 {
      var delivery = everything.shuffled(using: &random)
      let duplicates = (0..<20).compactMap { _ in everything.randomElement(using: &random) }
      delivery.insert(
        contentsOf: duplicates, at: Int.random(in: 0...delivery.count, using: &random))
      let heldBack = Int.random(in: 0..<delivery.count, using: &random)
      let late = delivery.remove(at: heldBack)
      var fresh = SyncMergeState()
      fresh.apply(delivery)
      fresh.apply([late])
      #expect(fresh == converged, "seed \(seed)")
    }
  }

  @Test func valuesTravelBitExactlyAsJSON() throws {
    let values: [DatabaseValue] = [
      .null, .integer(.max), .integer(.min), .real(-0.0), .real(.nan), .real(0.1 + 0.2),
      .real(.infinity), .real(.leastNonzeroMagnitude), .text("é\u{301}K\u{212A}\0"),
      .blob(Data([0, 1, 255])),
    ]
    let change = values.map {
      SyncChange.set(
        "Trip", id: "1", incarnation: 3, property: "p", to: $0,
        stamp: Self.stamp(Self.noon, 9, Self.replicaA))
    }
    let data = try JSONEncoder().encode(change)
    let decoded = try JSONDecoder().decode([SyncChange].self, from: data)
    #expect(decoded == change)
    #expect(
      String(decoding: try JSONEncoder().encode(DatabaseValue.real(1.5)), as: UTF8.self)
        == #"{"real":"3ff8000000000000"}"#)
    for bad in [
      #"{"integer":"1.5"}"#, #"{"real":"3ff8"}"#, #"{"blob":"***"}"#,
      #"{"integer":"1","text":"a"}"#,
      #"{}"#, #"3"#,
    ] {
      #expect(throws: DecodingError.self, "\(bad)") {
        try JSONDecoder().decode(DatabaseValue.self, from: Data(bad.utf8))
      }
    }
  }
}

/// A replica id whose last byte is `last` (the others zero), so ids sort as `last` does.
private func replicaID(_ last: UInt8) -> UUID {
  UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, last))
}

/// Calls `body` with every permutation of `items` (Heap's algorithm).
private func permute(_ items: [Int], _ body: ([Int]) -> Void) {
  var items = items
  func generate(_ count: Int) {
    if count <= 1 {
      body(items)
      return
    }
    for index in 0..<count {
      generate(count - 1)
      items.swapAt(count % 2 == 0 ? index : 0, count - 1)
    }
  }
  generate(items.count)
}
