import Foundation
import KuraBase
import KuraSQLite
import Synchronization

extension Preferences {
  /// The values of a key: the current one first, then the value after each change by this or any
  /// other process (within milliseconds, through the process's file watcher). Coalescing: a
  /// reader that falls behind gets the newest value, not every intermediate one; use the key's
  /// own history if you need each write.
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
  /// - Returns: An endless sequence of values; it ends when the reading task is cancelled.
  public func changes<Value>(of key: Preferences.Key<Value>) -> AsyncStream<Value> {
    let changes = ChangeStream<Value>()
    startWatching()
    let slot = self.slot(named: key.name)
    let token = slot.addListener { [weak self, weak changes] in
      guard let self, let changes else { return }
      changes.send(self[key])
    }
    changes.onTermination { slot.removeListener(token) }
    changes.send(self[key])
    return changes.stream
  }

  /// The names of the keys that changed, after each change by this or any other process. It
  /// starts with the next change (there is no current value of "what changed"). Coalescing: while
  /// the reader is busy, the names of several changes are united into one element.
  ///
  /// For example:
  ///
  /// ```swift
  /// for await names in preferences.changedKeys {
  ///   print("changed:", names.sorted())
  /// }
  /// ```
  public var changedKeys: AsyncStream<Set<String>> {
    let changes = ChangeStream<Set<String>>(merging: { $0.union($1) })
    startWatching()
    let token = state.withLock { state in
      state.nextListenerToken += 1
      state.suiteListeners[state.nextListenerToken] = { [weak changes] names in
        changes?.send(names)
      }
      return state.nextListenerToken
    }
    changes.onTermination { [weak self] in
      _ = self?.state.withLock { $0.suiteListeners.removeValue(forKey: token) }
    }
    return changes.stream
  }

  package func slot(named name: String) -> PreferenceSlot {
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
