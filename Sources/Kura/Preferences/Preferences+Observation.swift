import Foundation
import Synchronization

extension Preferences {
  /// The values of a key: the current one first, then the value after each change by any process
  /// (other processes' changes arrive within milliseconds, through a file watch).
  ///
  /// For example:
  ///
  /// ```swift
  /// for await option in preferences.changes(of: .sortOption) {
  ///   print("sorting by", option)
  /// }
  /// ```
  ///
  /// - Parameter key: The key.
  /// - Returns: An endless sequence of values; it stops when the task is cancelled.
  public func changes<Value>(of key: Preferences.Key<Value>) -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Value.self, bufferingPolicy: .unbounded)
    startWatching()
    let slot = self.slot(named: key.name)
    let token = slot.addListener { [weak self] in
      guard let self else { return }
      continuation.yield(self[key])
    }
    continuation.yield(self[key])
    continuation.onTermination = { _ in slot.removeListener(token) }
    return stream
  }

  /// Calls `handler` (on a background thread) with the names of the keys that changed, after
  /// each change by this or any other process, until the observation is cancelled or released.
  ///
  /// For example:
  ///
  /// ```swift
  /// let observation = preferences.observeChanges { names in print("changed:", names.sorted()) }
  /// // … later …
  /// observation.cancel()
  /// ```
  ///
  /// - Parameter handler: Called with the changed key names.
  /// - Returns: The observation; keep it alive while you want calls.
  public func observeChanges(_ handler: @escaping @Sendable (Set<String>) -> Void)
    -> ChangeObservation
  {
    startWatching()
    let token = state.withLock { state in
      state.nextListenerToken += 1
      state.suiteListeners[state.nextListenerToken] = handler
      return state.nextListenerToken
    }
    return ChangeObservation { [weak self] in
      _ = self?.state.withLock { $0.suiteListeners.removeValue(forKey: token) }
    }
  }

  func slot(named name: String) -> PreferenceSlot {
    state.withLock { state in
      let entry: Entry
      if let existing = state.entries[name] {
        entry = existing
      } else {
        entry = Entry()
        state.entries[name] = entry
      }
      if let slot = entry.slot { return slot }
      let slot = PreferenceSlot()
      entry.slot = slot
      return slot
    }
  }
}
