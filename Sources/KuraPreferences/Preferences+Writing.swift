import Foundation
import KuraBase
import KuraSQLite
import Synchronization

extension Preferences {
  /// Stores a value durably: when this returns, the value is in the file and survives a crash of
  /// the process; other processes read it on their next read. Setting `nil` (for an optional key)
  /// removes the key.
  ///
  /// For example:
  ///
  /// ```swift
  /// try preferences.set(.date, for: .sortOption)
  /// ```
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - key: The key.
  /// - Throws: ``PreferencesError/Code/cannotEncode``,
  ///   ``PreferencesError/Code/cannotSave`` or ``PreferencesError/Code/sceneDiscarded``;
  ///   nothing is changed then.
  public func set<Value>(_ value: Value, for key: Preferences.Key<Value>) throws {
    let encoded = try key.encode(value)
    try batch { batch in try batch.setValue(encoded, forKey: key.name) }
  }

  /// Removes a key's stored value; reads return the default again.
  ///
  /// For example: `try preferences.remove(.sortOption)`.
  ///
  /// - Parameter key: The key.
  /// - Throws: ``PreferencesError/Code/cannotSave``.
  public func remove<Value>(_ key: Preferences.Key<Value>) throws {
    try removeValue(forKey: key.name)
  }

  /// Stores a raw value under a key name, for tools.
  ///
  /// For example: `try preferences.setValue(.integer(3), forKey: "launchCount")`.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - name: The key's name.
  /// - Throws: ``PreferencesError/Code/cannotSave``.
  public func setValue(_ value: PreferenceValue, forKey name: String) throws {
    try batch { batch in try batch.setValue(value, forKey: name) }
  }

  /// Removes the value stored under a key name, for tools.
  ///
  /// For example: `try preferences.removeValue(forKey: "launchCount")`.
  ///
  /// - Parameter name: The key's name.
  /// - Throws: ``PreferencesError/Code/cannotSave``.
  public func removeValue(forKey name: String) throws {
    try batch { batch in try batch.setValue(nil, forKey: name) }
  }

  /// Removes every stored value of the suite.
  ///
  /// For example: `try preferences.reset()`.
  ///
  /// - Throws: ``PreferencesError/Code/cannotSave``.
  public func reset() throws {
    try batch { batch in
      for name in try PreferenceTable.names(batch.connection) {
        try batch.setValue(nil, forKey: name)
      }
    }
  }

  /// Reads, changes and stores a key's value atomically, even against other processes: the value
  /// is read from the file inside the write transaction, so concurrent updates lose nothing.
  ///
  /// For example:
  ///
  /// ```swift
  /// let count = try preferences.update(.launchCount) { $0 + 1 }
  /// ```
  ///
  /// A stored value that doesn't decode as the key's type (say, written by another version of
  /// the app), or that this version can't read at all, is not replaced by a transform of the
  /// default: the update throws instead.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - transform: Returns the new value from the current one (the default when none is stored).
  /// - Returns: The new value.
  /// - Throws: What `transform` throws, what ``set(_:for:)`` throws,
  ///   ``PreferencesError/Code/undecodableValue`` or
  ///   ``PreferencesError/Code/unreadableValue``; nothing is changed
  ///   then.
  @discardableResult
  public func update<Value>(
    _ key: Preferences.Key<Value>, _ transform: (Value) throws -> Value
  ) throws -> Value {
    try batch { batch in
      var current = key.defaultValue
      if let stored = try batch.storedValue(forKey: key.name) {
        guard let decoded = key.decode(stored) else {
          throw PreferencesError.undecodableValue(
            key: key.name, suite: suiteName, storedType: stored.typeName,
            expectedType: "\(Value.self)")
        }
        current = decoded
      }
      let newValue = try transform(current)
      try batch.set(newValue, for: key)
      return newValue
    }
  }

  /// Runs several reads and writes in one write transaction: all of them are stored, or none
  /// when `body` throws. Other processes wait for it and then see every change at once.
  ///
  /// For example:
  ///
  /// ```swift
  /// try preferences.batch { batch in
  ///   batch[.sortOption] = .date
  ///   batch[.launchCount] = 0
  /// }
  /// ```
  ///
  /// Inside `body` (and inside ``update(_:_:)``'s transform), write through the batch, not
  /// through the suite itself: a nested write to the same suite throws
  /// ``PreferencesError/Code/nestedWrite`` (a subscript write reports it in
  /// ``Preferences/lastWriteError``). Reading the suite there is fine.
  ///
  /// - Parameter body: The work, given the batch.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws, ``PreferencesError/Code/cannotSave``,
  ///   ``PreferencesError/Code/nestedWrite`` or ``PreferencesError/Code/sceneDiscarded``.
  public func batch<Result>(_ body: (PreferencesBatch) throws -> Result) throws -> Result {
    if let deferredOpen {
      // A standard suite whose file did not open: store in the file or fail, never in memory.
      let registered = state.withLock { $0.registeredDefaults }
      return try deferredOpen.suiteForWriting(registeredDefaults: registered).batch(body)
    }
    if let sceneID, state.withLock({ $0.isDiscarded }) {
      throw PreferencesError.sceneDiscarded(sceneID: sceneID)
    }
    guard let pool else {
      throw openFailure
        ?? .cannotOpen(path: suiteName, reason: "its in-memory database could not be created")
    }
    if pool.isReadOnly {
      throw PreferencesError.cannotSave(
        path: fileURL?.path ?? suiteName,
        reason:
          "the suite was opened only to read (`Preferences.readOnly`), so nothing was written; "
          + "open it with `Preferences(suite:)` to change it")
    }
    let thread = CurrentThread.identifier
    if writingThread.load(ordering: .relaxed) == thread {
      throw PreferencesError.nestedWrite(suite: suiteName)
    }
    let countBefore = pool.changeCount
    let loaded = state.withLock { $0.loadedVersion }
    let outcome: (Result, [String: PreferenceValue?], [PreferenceTable.Row], Int64)
    do {
      outcome = try pool.write { db in
        writingThread.store(thread, ordering: .relaxed)
        defer { writingThread.store(0, ordering: .relaxed) }
        let latest = try PreferenceTable.latestVersion(db)
        // Rows other processes wrote since our last load, so our copy stays complete.
        let missed = latest > loaded ? try PreferenceTable.rows(db, after: loaded) : []
        let batch = PreferencesBatch(connection: db, version: latest + 1, suiteName: suiteName)
        let result = try body(batch)
        if let error = batch.firstError { throw error }
        return (result, batch.changes, missed, latest + 1)
      }
    } catch let error as SQLiteError {
      throw PreferencesError.cannotSave(
        path: fileURL?.path ?? suiteName, reason: error.message, underlying: error)
    }
    let (result, changes, missed, version) = outcome
    let countAfter = pool.changeCount
    let own = changes.map { PreferenceTable.Row(name: $0.key, value: $0.value, version: version) }
    var changed = apply(missed + own, upTo: changes.isEmpty ? version - 1 : version)
    for name in changes.keys { changed.insert(name) }
    // Exactly one bump since before the write is ours: nothing else needs reloading.
    if !changes.isEmpty && countAfter == countBefore &+ 1 {
      _ = lastSeenChangeCount.compareExchange(
        expected: countBefore, desired: countAfter, ordering: .acquiringAndReleasing)
    }
    announce(changed)
    return result
  }
}
