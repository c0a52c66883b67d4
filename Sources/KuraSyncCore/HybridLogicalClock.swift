import Foundation
import KuraBase
import KuraStore

/// Issues ``SyncStamp``s for one replica: never one lower than or equal to a stamp it issued
/// or received before, and close to the wall clock (Kulkarni et al., "Logical Physical Clocks",
/// 2014).
///
/// The wall clock is injected, so tests can skew it by hours or move it backwards. When the
/// wall clock stands still or goes back, the counter moves on; when the counter is used up, the
/// clock borrows the next millisecond — issuing a stamp never fails.
package struct HybridLogicalClock: Sendable {
  /// The replica whose stamps this clock issues.
  package let replica: UUID
  /// The wall clock, in milliseconds since 1970.
  package let wallClock: @Sendable () -> UInt64
  /// The highest time issued or received (the part persisted across restarts).
  package private(set) var latest: (wall: UInt64, counter: UInt16)

  /// The wall clock of the machine.
  package static let systemWallClock: @Sendable () -> UInt64 = {
    UInt64(max(0, Date().timeIntervalSince1970 * 1000))
  }

  /// A clock starting after `latest` (the persisted high-water mark; zero for a new replica).
  package init(
    replica: UUID, latest: (wall: UInt64, counter: UInt16) = (0, 0),
    wallClock: @escaping @Sendable () -> UInt64 = HybridLogicalClock.systemWallClock
  ) {
    self.replica = replica
    self.latest = latest
    self.wallClock = wallClock
  }

  /// A new stamp for a local write: greater than every stamp issued or received so far.
  package mutating func now() -> SyncStamp {
    let physical = min(wallClock(), SyncStamp.maximumWall)
    if physical > latest.wall {
      latest = (physical, 0)
    } else {
      advanceCounter()
    }
    return SyncStamp(wall: latest.wall, counter: latest.counter, replica: replica)
  }

  /// Takes in a stamp from another replica, so every later local stamp is greater than it.
  package mutating func receive(_ stamp: SyncStamp) {
    if (stamp.wall, stamp.counter) > latest { latest = (stamp.wall, stamp.counter) }
  }

  private mutating func advanceCounter() {
    if latest.counter == .max {
      latest = (latest.wall + 1, 0)
    } else {
      latest.counter += 1
    }
  }
}
