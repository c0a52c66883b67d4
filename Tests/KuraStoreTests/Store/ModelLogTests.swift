import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Synchronization
import Testing

@testable import Kura

/// Counts the instances alive, so that a test can tell every logged element was destroyed once.
private final class Tracked: Sendable {
  static let alive = Atomic<Int>(0)
  let value: Int

  init(_ value: Int) {
    self.value = value
    Self.alive.add(1, ordering: .relaxed)
  }

  deinit { Self.alive.subtract(1, ordering: .relaxed) }
}

/// The log a context keeps its unsaved models in (and a fetch its rows): chunks that never move.
/// Serialized: the tests count live instances of one class.
@Suite("Model log", .serialized)
struct ModelLogTests {
  /// Counts that cross the chunk boundaries (16, 32, 64, 128, …) on both sides.
  private static let counts = [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1_000, 5_000]

  @Test func elementsStayWhereTheyWereAppendedAndReadBackInOrder() {
    for count in Self.counts {
      let log = ModelLog<Tracked>()
      var addresses: [UnsafePointer<Tracked>] = []
      for value in 0..<count {
        log.append(Tracked(value))
        addresses.append(log.pointer(at: value))
      }
      #expect(log.count == count)
      #expect((0..<count).allSatisfy { log[$0].value == $0 })
      // Growing moved nothing: every element is where it was put.
      #expect((0..<count).allSatisfy { log.pointer(at: $0) == addresses[$0] })
      #expect(log.elements.map(\.value) == Array(0..<count))
    }
    #expect(Tracked.alive.load(ordering: .relaxed) == 0)
  }

  @Test func truncatingDestroysTheDroppedOnesAndAppendingGoesOnFromThere() {
    for count in Self.counts {
      for kept in Set([0, 1, 15, 16, 17, 40, count / 2, count]) where kept <= count {
        let log = ModelLog<Tracked>()
        for value in 0..<count { log.append(Tracked(value)) }
        withExtendedLifetime(log) {
          log.truncate(to: kept)
          #expect(Tracked.alive.load(ordering: .relaxed) == kept)
          #expect(log.count == kept)
          for value in kept..<(kept + 70) { log.append(Tracked(value)) }
          #expect((0..<(kept + 70)).allSatisfy { log[$0].value == $0 })
          #expect(Tracked.alive.load(ordering: .relaxed) == kept + 70)
        }
      }
    }
    #expect(Tracked.alive.load(ordering: .relaxed) == 0)
  }

  @Test func movingToAnArrayEmptiesTheLog() throws {
    let log = ModelLog<Tracked>()
    for value in 0..<10_000 { log.append(Tracked(value)) }
    let moved = log.moveToArray()
    #expect(log.count == 0)
    withExtendedLifetime(moved) {
      #expect(moved.map(\.value) == Array(0..<10_000))
      #expect(Tracked.alive.load(ordering: .relaxed) == 10_000)
    }
    // The emptied log takes new elements in its kept chunks.
    log.append(Tracked(-1))
    #expect(log[0].value == -1)
    log.appendInPlace { $0.initialize(to: Tracked(-2)) }
    struct Refused: Error {}
    #expect(throws: Refused.self) { try log.appendInPlace { _ in throw Refused() } }
    #expect(log.count == 2)
    #expect(log[1].value == -2)
  }
}
