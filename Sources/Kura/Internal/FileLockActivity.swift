import Foundation

/// Tracks what can hold a file lock in this process, for ``KuraLibrary/suspend(waitingAtMost:)``:
/// the operations running now (each SQLite read or write, each document `flock`) and the pools
/// whose open connections hold SQLite's WAL locks even between operations.
///
/// Operations are counted per epoch; suspending starts a new epoch and waits for the operations
/// of the older ones, so operations that keep starting never starve it. While suspended, pools
/// close their connections after each operation instead of keeping them open.
// Safety: every stored property is read and written only with `condition` locked.
final class FileLockActivity: @unchecked Sendable {
  /// The process's one tracker.
  static let shared = FileLockActivity()

  /// One running operation, as `begin()` returned it.
  struct Operation {
    fileprivate let epoch: UInt64
  }

  private final class WeakPool {
    weak var pool: DatabasePool?
    init(_ pool: DatabasePool) { self.pool = pool }
  }

  private let condition = NSCondition()
  private var epoch: UInt64 = 0
  private var running: [UInt64: Int] = [:]
  private var suspended = false
  private var pools: [ObjectIdentifier: WeakPool] = [:]

  /// Whether ``KuraLibrary/suspend(waitingAtMost:)`` was called and ``KuraLibrary/resume()`` not
  /// yet.
  var isSuspended: Bool {
    condition.lock()
    defer { condition.unlock() }
    return suspended
  }

  /// Counts an operation that may take a file lock; pair it with `end(_:)`.
  func begin() -> Operation {
    condition.lock()
    defer { condition.unlock() }
    running[epoch, default: 0] += 1
    return Operation(epoch: epoch)
  }

  /// Ends an operation `begin()` counted.
  func end(_ operation: Operation) {
    condition.lock()
    defer { condition.unlock() }
    running[operation.epoch, default: 1] -= 1
    if running[operation.epoch] == 0 { running[operation.epoch] = nil }
    condition.broadcast()
  }

  /// Remembers a pool on a file, so suspending can close its connections.
  func register(_ pool: DatabasePool) {
    condition.lock()
    defer { condition.unlock() }
    pools = pools.filter { $0.value.pool != nil }
    pools[ObjectIdentifier(pool)] = WeakPool(pool)
  }

  /// Enters the suspended state, waits (until `deadline`) for the operations already running, then
  /// closes every pool's connections. Returns whether no lock is left held by them.
  func suspend(until deadline: Date) -> Bool {
    condition.lock()
    suspended = true
    epoch += 1
    let current = epoch
    var finished = !running.keys.contains { $0 < current }
    while !finished && condition.wait(until: deadline) {
      finished = !running.keys.contains { $0 < current }
    }
    finished = !running.keys.contains { $0 < current }
    let live = pools.values.compactMap(\.pool)
    condition.unlock()
    var released = finished
    for pool in live where !pool.closeConnections() { released = false }
    return released
  }

  /// Leaves the suspended state: pools keep connections open between operations again.
  func resume() {
    condition.lock()
    defer { condition.unlock() }
    suspended = false
  }
}
