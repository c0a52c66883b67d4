import Foundation
import KuraBase
import KuraSQLite
import Synchronization

// Keeping the in-memory copy in step with the file: a read first compares the shared change
// counter with the last value seen (one atomic load each) and, when they differ, reads only the
// rows whose version is newer than the newest one applied.
extension Preferences {
  @inline(__always)
  package func refreshIfNeeded() {
    // Optional chaining reads the counter without retaining the pool (a binding would retain
    // and release it: slow-path reference counting, since the pool is weakly referenced).
    guard let count = pool?.changeCount else { return }
    if count != lastSeenChangeCount.load(ordering: .acquiring) { reload() }
  }

  /// Reads the rows changed since the last load and announces the keys whose value changed.
  package func reload() {
    guard let pool else { return }
    let changed = reloading.withLock { _ -> Set<String> in
      let count = pool.changeCount
      if count == lastSeenChangeCount.load(ordering: .acquiring) { return [] }
      let loaded = state.withLock { $0.loadedVersion }
      // On failure the old values keep being served and the next read tries again.
      guard
        let rows = try? pool.read({ db in
          try PreferenceTable.exists(db) ? try PreferenceTable.rows(db, after: loaded) : []
        })
      else {
        return []
      }
      let changed = apply(rows, upTo: nil)
      lastSeenChangeCount.store(count, ordering: .releasing)
      return changed
    }
    announce(changed)
  }

  /// Applies rows newer than what each entry holds; returns the names whose value changed.
  /// `upTo` is a version known to be complete (every row up to it applied).
  package func apply(_ rows: [PreferenceTable.Row], upTo complete: Int64?) -> Set<String> {
    state.withLock { state in
      var changed: Set<String> = []
      var newest = state.loadedVersion
      for row in rows {
        newest = max(newest, row.version)
        let entry: Entry
        if let existing = state.entries[row.name] {
          entry = existing
        } else {
          entry = Entry()
          state.entries[row.name] = entry
        }
        guard row.version > entry.version else { continue }
        if entry.value != row.value { changed.insert(row.name) }
        if entry.unreadable != row.unreadable { changed.insert(row.name) }
        entry.value = row.value
        entry.unreadable = row.unreadable
        entry.version = row.version
        entry.decoded = nil
      }
      state.loadedVersion = max(newest, complete ?? newest)
      return changed
    }
  }

  /// Fires the observers of changed keys and the suite's listeners.
  package func announce(_ changed: Set<String>) {
    guard !changed.isEmpty else { return }
    let (slots, listeners) = state.withLock { state in
      (
        changed.compactMap { state.entries[$0]?.slot },
        Array(state.suiteListeners.values)
      )
    }
    for slot in slots { slot.changed() }
    for listener in listeners { listener(changed) }
  }

  /// Starts watching the file for other processes' changes (once), so observers fire without
  /// waiting for a read.
  package func startWatching() {
    guard fileURL != nil, let pool,
      !isWatching.exchange(true, ordering: .acquiringAndReleasing)
    else {
      return
    }
    let observation = pool.observeChanges { [weak self] _ in self?.refreshIfNeeded() }
    watcher.withLock { $0 = observation }
  }
}
