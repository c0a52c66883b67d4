import Synchronization

/// The handlers observing one database's commits, and the source that wakes them (a file
/// watcher's subscription, a listening thread): started for the first handler, cancelled after
/// the last one goes. Both engines' pools keep theirs in one of these.
package final class ChangeObservers: Sendable {
  /// A handler, given the database's change count.
  package typealias Handler = @Sendable (UInt64) -> Void

  private struct State {
    var handlers: [Int: Handler] = [:]
    var next = 0
    var source: ChangeObservation?
  }

  private let state = Mutex(State())

  /// No handler yet.
  package init() {}

  /// Adds `handler` until the returned observation is cancelled or released. For the first
  /// handler (again after the last one went), `start` (called outside the lock) makes the
  /// source, kept until the last handler goes and then cancelled.
  ///
  /// - Parameters:
  ///   - handler: Called with the change count by ``handlers``'s caller.
  ///   - start: Starts what wakes the handlers; `nil` when nothing can (the observation then
  ///     only holds the handler).
  /// - Returns: The observation that removes `handler`.
  package func add(_ handler: @escaping Handler, start: () -> ChangeObservation?)
    -> ChangeObservation
  {
    let (token, first) = state.withLock { state -> (Int, Bool) in
      state.next += 1
      state.handlers[state.next] = handler
      return (state.next, state.handlers.count == 1)
    }
    if first, let source = start() {
      // The handler may have gone while the source started: then nothing keeps the source.
      let unused = state.withLock { state -> ChangeObservation? in
        guard !state.handlers.isEmpty else { return source }
        state.source = source
        return nil
      }
      unused?.cancel()
    }
    return ChangeObservation { [weak self] in self?.remove(token) }
  }

  /// The handlers now, to call outside the lock.
  package var handlers: [Handler] { state.withLock { Array($0.handlers.values) } }

  private func remove(_ token: Int) {
    let unused = state.withLock { state -> ChangeObservation? in
      state.handlers[token] = nil
      guard state.handlers.isEmpty else { return nil }
      defer { state.source = nil }
      return state.source
    }
    unused?.cancel()
  }
}
