import Foundation
import Synchronization

/// Tracks what can hold a file lock in this process, for ``KuraLibrary/suspend(waitingAtMost:)``:
/// the operations running now (each SQLite read or write, each document `flock`) and the pools
/// whose open connections hold SQLite's WAL locks even between operations.
///
/// Operations are counted per epoch (two counters, by the epoch's parity); suspending starts a new
/// epoch and waits for the operations of the old one, so operations that keep starting never
/// starve it. Counting costs an operation two atomic additions and two loads, no lock. While
/// suspended, pools close their connections after each operation instead of keeping them open.
package final class FileLockActivity: Sendable {
  /// The process's one tracker.
  package static let shared = FileLockActivity()

  /// One running operation, as `begin()` returned it.
  package struct Operation {
    fileprivate let parity: UInt64
  }

  private final class WeakPool: Sendable {
    weak let pool: (any SuspendableConnections)?
    init(_ pool: any SuspendableConnections) { self.pool = pool }
  }

  private let epoch = Atomic<UInt64>(0)
  private let runningEven = Atomic<Int>(0)
  private let runningOdd = Atomic<Int>(0)
  private let suspended = Atomic<Bool>(false)
  private let draining = Atomic<Bool>(false)
  /// Wakes a suspension waiting for the old epoch's operations.
  private let drained = NSCondition()
  /// Serializes suspensions.
  private let suspending = NSLock()
  /// The pools on files, by identity.
  private let pools = Mutex<[ObjectIdentifier: WeakPool]>([:])

  /// Whether ``KuraLibrary/suspend(waitingAtMost:)`` was called and ``KuraLibrary/resume()`` not
  /// yet.
  package var isSuspended: Bool { suspended.load(ordering: .acquiring) }

  /// Counts an operation that may take a file lock; pair it with `end(_:)`.
  package func begin() -> Operation {
    while true {
      let current = epoch.load(ordering: .sequentiallyConsistent)
      add(1, parity: current & 1)
      // A suspension that moved to a new epoch meanwhile may have seen this counter at zero:
      // count the operation in the new epoch instead.
      if epoch.load(ordering: .sequentiallyConsistent) == current {
        return Operation(parity: current & 1)
      }
      add(-1, parity: current & 1)
    }
  }

  /// Ends an operation `begin()` counted.
  package func end(_ operation: Operation) {
    add(-1, parity: operation.parity)
  }

  private func add(_ delta: Int, parity: UInt64) {
    let now =
      parity == 0
      ? runningEven.wrappingAdd(delta, ordering: .sequentiallyConsistent).newValue
      : runningOdd.wrappingAdd(delta, ordering: .sequentiallyConsistent).newValue
    if now == 0 && draining.load(ordering: .sequentiallyConsistent) {
      drained.lock()
      drained.broadcast()
      drained.unlock()
    }
  }

  private func count(parity: UInt64) -> Int {
    parity == 0
      ? runningEven.load(ordering: .sequentiallyConsistent)
      : runningOdd.load(ordering: .sequentiallyConsistent)
  }

  /// Remembers a pool on a file, so suspending can close its connections.
  package func register(_ pool: any SuspendableConnections) {
    pools.withLock { pools in
      pools = pools.filter { $0.value.pool != nil }
      pools[ObjectIdentifier(pool)] = WeakPool(pool)
    }
  }

  /// Enters the suspended state, waits (until `deadline`) for the operations already running, then
  /// closes every pool's connections. Returns whether no lock is left held by them.
  package func suspend(until deadline: Date) -> Bool {
    suspending.lock()
    defer { suspending.unlock() }
    suspended.store(true, ordering: .sequentiallyConsistent)
    let old = epoch.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
    drained.lock()
    draining.store(true, ordering: .sequentiallyConsistent)
    var finished = count(parity: old & 1) == 0
    while !finished && drained.wait(until: deadline) {
      finished = count(parity: old & 1) == 0
    }
    finished = count(parity: old & 1) == 0
    draining.store(false, ordering: .sequentiallyConsistent)
    drained.unlock()
    let live = pools.withLock { pools in pools.values.compactMap(\.pool) }
    var released = finished
    for pool in live where !pool.closeConnections() { released = false }
    return released
  }

  /// Leaves the suspended state: pools keep connections open between operations again.
  package func resume() {
    suspended.store(false, ordering: .sequentiallyConsistent)
  }
}

/// Connections that hold file locks between operations and close them when the process is
/// suspended (an SQLite `DatabasePool`), registered with ``FileLockActivity/register(_:)``.
package protocol SuspendableConnections: AnyObject, Sendable {
  /// Closes the connections not in use; returns whether no file lock is left held by them.
  func closeConnections() -> Bool
}
