import Dispatch
import Synchronization

/// The idle connections of a database and how many are open: a caller takes an idle one, or
/// opens one while fewer than the most are open, or else waits a bounded time for one to come
/// back. SQLite's readers (no most: every read gets a connection at once) and the PostgreSQL
/// store's readers (at most its `maximumConnections`, a writer included) are pooled in one.
///
/// Taking and giving back cost one lock each (a `Mutex`); only a caller that has to wait makes
/// a semaphore, which the next connection given back (or place freed) signals. Without a most
/// (SQLite's readers), the connection given back last waits in a slot of its own, taken and
/// given back with one atomic exchange each and no lock (so up to ``maximumIdle`` + 1 are idle).
package final class ConnectionPool<Pooled: AnyObject & Sendable>: Sendable {
  /// What a caller found when it asked for a connection.
  package enum Checkout {
    /// An idle connection, now the caller's.
    case idle(Pooled)
    /// No idle one, and room for one more: the caller opens it (or ``discard()``s the place
    /// when that fails).
    case open
  }

  /// The pool itself, over `AnyObject`: the typed methods below are inlined into each engine,
  /// so no generic type is looked up at run time when a connection is taken or given back.
  @usableFromInline let core: ConnectionPoolCore

  /// The most connections open at once, or `nil` for no most.
  package var limit: Int? { core.limit }
  /// The most idle connections kept; one more given back is closed.
  package var maximumIdle: Int { core.maximumIdle }

  /// Creates a pool with no idle connection.
  ///
  /// - Parameters:
  ///   - limit: The most connections open at once (`nil`: no most).
  ///   - maximumIdle: The most idle connections kept.
  ///   - alreadyOpen: Connections open outside the pool that count towards `limit` (a writer).
  package init(limit: Int?, maximumIdle: Int = .max, alreadyOpen: Int = 0) {
    core = ConnectionPoolCore(limit: limit, maximumIdle: maximumIdle, alreadyOpen: alreadyOpen)
  }

  /// An idle connection, else the right to open one while fewer than ``limit`` are open, else
  /// the first to come back (or a place freed by ``discard()``) within `wait`.
  ///
  /// - Parameters:
  ///   - wait: How long to wait when ``limit`` connections are open and none is idle.
  ///   - ignoringLimit: Whether to open one beyond ``limit`` rather than wait (a read nested in
  ///     another one, which would wait for itself).
  /// - Returns: What the caller got, or `nil` when the wait ran out.
  @inlinable
  package func checkOut(waiting wait: Duration, ignoringLimit: Bool = false) -> Checkout? {
    switch core.checkOut(waiting: wait, ignoringLimit: ignoringLimit) {
    case nil: return nil
    case .open?: return .open
    // Only `Pooled` values are ever given to the core (checkIn), so this is one.
    case .idle(let connection)?: return .idle(unsafeDowncast(connection, to: Pooled.self))
    }
  }

  /// Takes back a connection from ``checkOut(waiting:ignoringLimit:)``: kept idle when `keep`
  /// and fewer than ``maximumIdle`` are, else closed (released by the caller).
  @inlinable
  package func checkIn(_ connection: Pooled, keep: Bool) {
    core.checkIn(connection, keep: keep)
  }

  /// Counts a connection from ``checkOut(waiting:ignoringLimit:)`` that closed (or failed to
  /// open), letting a waiting caller open one.
  @inlinable
  package func discard() { core.discard() }

  /// Closes every idle connection (releases them), letting the waiting callers open theirs.
  @inlinable
  package func closeIdle() { core.closeIdle() }
}

/// The untyped pool behind ``ConnectionPool``; only ``ConnectionPool`` uses it, which gives it
/// connections of one type.
package final class ConnectionPoolCore: Sendable {
  /// What a caller found when it asked for a connection.
  package enum Checkout {
    /// An idle connection, now the caller's.
    case idle(any PooledConnection)
    /// No idle one, and room for one more: the caller opens it (or ``discard()``s the place
    /// when that fails).
    case open
  }

  private struct State {
    var idle: [any PooledConnection] = []
    /// The connections open: idle, in use, or being opened by a caller.
    var openCount: Int
    /// The callers waiting for a connection, first come first served.
    var waiters: [DispatchSemaphore] = []
  }

  private let state: Mutex<State>
  /// The idle connection given back last, retained, while there is no ``limit``.
  private let spare = Atomic<Unmanaged<any PooledConnection>?>(nil)
  /// The most connections open at once, or `nil` for no most.
  package let limit: Int?
  /// The most idle connections kept; one more given back is closed.
  package let maximumIdle: Int

  /// Creates a pool with no idle connection.
  ///
  /// - Parameters:
  ///   - limit: The most connections open at once (`nil`: no most).
  ///   - maximumIdle: The most idle connections kept.
  ///   - alreadyOpen: Connections open outside the pool that count towards `limit` (a writer).
  package init(limit: Int?, maximumIdle: Int = .max, alreadyOpen: Int = 0) {
    self.limit = limit
    self.maximumIdle = maximumIdle
    self.state = Mutex(State(openCount: alreadyOpen))
  }

  deinit {
    spare.exchange(nil, ordering: .acquiring)?.release()
  }

  /// An idle connection, else the right to open one while fewer than ``limit`` are open, else
  /// the first to come back (or a place freed by ``discard()``) within `wait`.
  ///
  /// - Parameters:
  ///   - wait: How long to wait when ``limit`` connections are open and none is idle.
  ///   - ignoringLimit: Whether to open one beyond ``limit`` rather than wait (a read nested in
  ///     another one, which would wait for itself).
  /// - Returns: What the caller got, or `nil` when the wait ran out.
  package func checkOut(waiting wait: Duration, ignoringLimit: Bool = false) -> Checkout? {
    if limit == nil, let taken = spare.exchange(nil, ordering: .acquiring) {
      return .idle(taken.takeRetainedValue())
    }
    var deadline: DispatchTime?
    while true {
      let (checkout, waiter) = state.withLock { state -> (Checkout?, DispatchSemaphore?) in
        if let checkout = Self.take(&state, limit: ignoringLimit ? nil : limit) {
          return (checkout, nil)
        }
        let waiter = DispatchSemaphore(value: 0)
        state.waiters.append(waiter)
        return (nil, waiter)
      }
      guard let waiter else { return checkout }
      let until = deadline ?? .now() + Self.nanoseconds(wait)
      deadline = until
      if waiter.wait(timeout: until) == .success { continue }
      // Timed out: leave the queue, unless a connection came back just now (then its signal
      // is ours: taken, and tried once more).
      let queued = state.withLock { state -> Bool in
        guard let index = state.waiters.firstIndex(where: { $0 === waiter }) else { return false }
        state.waiters.remove(at: index)
        return true
      }
      if !queued { waiter.wait() }
      return state.withLock { Self.take(&$0, limit: limit) }
    }
  }

  /// Takes back a connection from ``checkOut(waiting:ignoringLimit:)``: kept idle when `keep`
  /// and fewer than ``maximumIdle`` are, else closed (released by the caller).
  package func checkIn(_ connection: any PooledConnection, keep: Bool) {
    // No caller ever waits without a most: the slot takes it when empty.
    if limit == nil && keep {
      let retained = Unmanaged.passRetained(connection)
      if spare.compareExchange(expected: nil, desired: retained, ordering: .acquiringAndReleasing)
        .exchanged
      {
        return
      }
      retained.release()
    }
    let waiter = state.withLock { state -> DispatchSemaphore? in
      if keep && state.idle.count < maximumIdle {
        state.idle.append(connection)
      } else {
        state.openCount -= 1
      }
      return state.waiters.isEmpty ? nil : state.waiters.removeFirst()
    }
    waiter?.signal()
  }

  /// Counts a connection from ``checkOut(waiting:ignoringLimit:)`` that closed (or failed to
  /// open), letting a waiting caller open one.
  package func discard() {
    let waiter = state.withLock { state -> DispatchSemaphore? in
      state.openCount -= 1
      return state.waiters.isEmpty ? nil : state.waiters.removeFirst()
    }
    waiter?.signal()
  }

  /// Closes every idle connection (releases them), letting the waiting callers open theirs.
  package func closeIdle() {
    if let taken = spare.exchange(nil, ordering: .acquiring) {
      taken.release()
      state.withLock { $0.openCount -= 1 }
    }
    let waiters = state.withLock { state -> [DispatchSemaphore] in
      state.openCount -= state.idle.count
      state.idle.removeAll()
      defer { state.waiters.removeAll() }
      return state.waiters
    }
    for waiter in waiters { waiter.signal() }
  }

  /// An idle connection, or the right to open one while fewer than `limit` are open.
  private static func take(_ state: inout State, limit: Int?) -> Checkout? {
    if let connection = state.idle.popLast() { return .idle(connection) }
    if let limit, state.openCount >= limit { return nil }
    state.openCount += 1
    return .open
  }

  /// A duration in whole nanoseconds, for a dispatch deadline.
  private static func nanoseconds(_ duration: Duration) -> DispatchTimeInterval {
    let (seconds, attoseconds) = duration.components
    let total = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    guard !total.overflow, total.partialValue < Int64(Int.max) else { return .never }
    return .nanoseconds(Int(total.partialValue + attoseconds / 1_000_000_000))
  }
}

/// What ``ConnectionPoolCore`` holds: any connection that may cross threads.
package typealias PooledConnection = AnyObject & Sendable
