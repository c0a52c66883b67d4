import Foundation
import KuraBase
import KuraSQLite
import Observation
import Synchronization

/// One suite of preferences — the app's own (``standard``), an App Group's shared suite, or a
/// private in-memory one — read and written through typed keys, like `UserDefaults` and
/// `@AppStorage`.
///
/// Each suite is one SQLite file. Reads are served from memory: before a read, the suite compares
/// a change counter kept in shared memory (one atomic load) with the last value it saw, and reloads
/// only the rows changed since — by this process or any other. A ``set(_:for:)`` is a write
/// transaction, on disk when it returns: it survives a crash of the process an instant later.
///
/// `Preferences` takes part in the Observation framework per key: reading a key inside
/// `withObservationTracking` (or a SwiftUI body) registers interest in that key only, and a
/// change by any process fires it. ``changes(of:)`` delivers a key's values as an `AsyncSequence`.
///
/// For example:
///
/// ```swift
/// extension Preferences.Key {
///   static var launchCount: Preferences.Key<Int> { .init("launchCount", default: 0) }
/// }
///
/// let preferences = Preferences.standard
/// preferences[.launchCount] += 1
/// let shared = try Preferences(suite: "group.iOS17.M_Kaku")
/// try shared.update(.launchCount) { $0 + 1 }  // atomic across processes
/// ```
public final class Preferences: Sendable {
  /// The suite's name: an app identifier, an App Group identifier, a scene identifier, a file
  /// name, or `inMemory`.
  public let suiteName: String
  /// The suite's file, or `nil` for an in-memory suite.
  public let fileURL: URL?
  /// The suite's database; `nil` only for an in-memory suite whose database could not be
  /// created (SQLite out of memory): its reads give the defaults and its writes throw
  /// ``openFailure``.
  package let pool: DatabasePool?
  /// Why an in-memory suite has no ``pool``.
  package let openFailure: PreferencesError?
  package let sceneID: String?
  /// Set only for a ``standard`` suite whose file could not be opened yet: the calls are served
  /// by the file's suite once it opens (see `PreferencesDeferredOpen`).
  package let deferredOpen: PreferencesDeferredOpen?

  /// What the suite knows of one key; only touched with `state` locked.
  package final class Entry {
    package var value: PreferenceValue?
    /// Set when the stored value can't be read by this version (``value`` is then `nil`).
    package var unreadable: PreferenceTable.Unreadable?
    package var version: Int64 = 0
    package var slot: PreferenceSlot?
    package var decoded: (any Sendable)?
  }

  package struct State {
    package var entries: [String: Entry] = [:]
    package var loadedVersion: Int64 = 0
    package var registeredDefaults: [String: PreferenceValue] = [:]
    package var isDiscarded = false
    package var nextListenerToken = 0
    package var suiteListeners: [Int: @Sendable (Set<String>) -> Void] = [:]
    package var lastWriteError: PreferencesError?
  }

  package let state = Mutex(State())
  package let lastSeenChangeCount = Atomic<UInt64>(0)
  package let reloading = Mutex(())
  package let watcher = Mutex<ChangeObservation?>(nil)
  package let isWatching = Atomic<Bool>(false)
  /// The thread inside a write transaction of this suite (0 when none): its own nested write
  /// is refused rather than deadlocked.
  package let writingThread = Atomic<UInt>(0)

  /// Opens (creating when missing) a suite kept in a file of your choosing.
  ///
  /// For example:
  ///
  /// ```swift
  /// let preferences = try Preferences(fileURL: folder.appendingPathComponent("test.sqlite"))
  /// ```
  ///
  /// - Parameters:
  ///   - fileURL: The SQLite file; its folder is created (mode 0700) when missing.
  ///   - suiteName: The name to show; the file name without its extension by default.
  /// - Throws: ``PreferencesError/Code/cannotOpen``.
  public convenience init(fileURL: URL, suiteName: String? = nil) throws {
    try self.init(
      fileURL: fileURL, suiteName: suiteName ?? fileURL.deletingPathExtension().lastPathComponent,
      sceneID: nil)
  }

  /// Opens a suite's file; with `readOnly`, one that exists, leaving it and its folder exactly as
  /// found (a zero-length file reads as an empty suite and stays zero-length).
  package init(fileURL: URL, suiteName: String, sceneID: String?, readOnly: Bool = false) throws {
    let path = fileURL.path
    do {
      if readOnly {
        // `stat` follows a symbolic link: a dangling one is a suite that doesn't exist.
        var info = stat()
        guard stat(path, &info) == 0 else {
          // Only a missing file is a suite that doesn't exist; a file where a folder should be,
          // or a folder that can't be searched, is a suite that can't be opened.
          guard errno == ENOENT else {
            throw PreferencesError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
          }
          throw PreferencesError.suiteNotFound(suite: suiteName, path: path)
        }
        try PreferenceTable.checkBeforeOpening(path: path)
        self.pool = try DatabasePool(path: path, readOnly: true)
        self.openFailure = nil
      } else {
        try Locations.ensureDirectory(fileURL.deletingLastPathComponent())
        try PreferenceTable.checkBeforeOpening(path: path)
        let pool = try DatabasePool(path: path)
        try pool.write { db in try PreferenceTable.createSchema(db) }
        self.pool = pool
        self.openFailure = nil
      }
    } catch let error as LocationError {
      throw PreferencesError.cannotOpen(path: path, reason: Self.reason(error), underlying: error)
    } catch let error as SQLiteError {
      throw PreferencesError.cannotOpen(path: path, reason: error.message, underlying: error)
    } catch let error as ForeignDatabase {
      throw PreferencesError.cannotOpen(path: path, reason: error.reason)
    }
    self.suiteName = suiteName
    self.fileURL = fileURL
    self.sceneID = sceneID
    self.deferredOpen = nil
    try loadEverything(path: path)
  }

  /// A suite kept in memory on `pool`, or with none (`failure` says why) when the in-memory
  /// database could not be created.
  private init(
    inMemory pool: Result<DatabasePool, PreferencesError>,
    deferredOpen: PreferencesDeferredOpen? = nil
  ) {
    switch pool {
    case .success(let pool):
      self.pool = pool
      self.openFailure = nil
    case .failure(let failure):
      self.pool = nil
      self.openFailure = failure
    }
    self.suiteName = deferredOpen?.suiteName ?? "inMemory"
    self.fileURL = nil
    self.sceneID = nil
    self.deferredOpen = deferredOpen
  }

  /// The suite that serves a read: the file's suite once a deferred ``standard`` suite opens;
  /// `nil` for this one.
  @usableFromInline
  package func openedSuite() -> Preferences? {
    guard let deferredOpen else { return nil }
    return deferredOpen.suiteForReading()
  }

  /// A new private suite kept in memory, for tests and previews: it starts empty and is gone
  /// when released.
  ///
  /// For example:
  ///
  /// ```swift
  /// let preferences = Preferences.inMemory
  /// preferences[.launchCount] = 3
  /// ```
  public static var inMemory: Preferences { memoryBacked(deferredOpen: nil) }

  /// A suite kept in memory: a private one, or (with `deferredOpen`) the standard suite of an
  /// app whose file can't be opened now, which stores nothing until the file opens (see
  /// ``standard``).
  ///
  /// Should SQLite fail to create the in-memory database (it is out of memory), the suite still
  /// works for reading (every key gives its default) and each write throws
  /// ``PreferencesError/Code/cannotOpen`` with SQLite's error underneath.
  package static func memoryBacked(
    deferredOpen: PreferencesDeferredOpen?,
    openDatabase: () throws -> DatabasePool = { try DatabasePool.inMemory() }
  ) -> Preferences {
    let pool: Result<DatabasePool, PreferencesError>
    do {
      let opened = try openDatabase()
      try opened.write { db in try PreferenceTable.createSchema(db) }
      pool = .success(opened)
    } catch {
      let reason = (error as? SQLiteError)?.message ?? "\(error)"
      pool = .failure(
        .cannotOpen(
          path: "in-memory suite", reason: "SQLite can't create it (\(reason))",
          underlying: error))
    }
    return Preferences(inMemory: pool, deferredOpen: deferredOpen)
  }

  private func loadEverything(path: String) throws {
    guard let pool else { return }
    let count = pool.changeCount
    do {
      // A file opened to read may have no table yet (zero-length, or made by SQLite alone).
      let rows = try pool.read { db in
        try PreferenceTable.exists(db) ? try PreferenceTable.rows(db, after: 0) : []
      }
      _ = apply(rows, upTo: nil)
      lastSeenChangeCount.store(count, ordering: .releasing)
    } catch let error as SQLiteError {
      throw PreferencesError.cannotOpen(path: path, reason: error.message, underlying: error)
    }
  }

  package static func reason(_ error: LocationError) -> String {
    switch error.code {
    case .cannotCreate: return "can't create `\(error.path ?? "")` (\(error.reason ?? ""))"
    case .invalidIdentifier: return error.reason ?? ""
    case .groupNotEntitled: return "this app has no App Group entitlement for it"
    }
  }

  // MARK: Reading

  /// The value of a key: the stored one, else a registered default, else the key's default. A
  /// stored value of another type reads as the default (and stays stored). Setting it stores the
  /// value durably (setting `nil` removes the key); a failed write is reported in
  /// ``lastWriteError`` and on standard error — call ``set(_:for:)`` to handle it yourself.
  ///
  /// For example:
  ///
  /// ```swift
  /// preferences[.sortOption] = .date
  /// let option = preferences[.sortOption]
  /// ```
  ///
  /// - Parameter key: The key.
  @inlinable
  public subscript<Value>(key: Preferences.Key<Value>) -> Value {
    get {
      if key.cachesDecodedValues { return decodedValue(for: key) }
      guard let stored = observedValue(named: key.name) else { return key.defaultValue }
      return key.decode(stored) ?? key.defaultValue
    }
    set { setReportingFailure(newValue, for: key) }
  }

  @usableFromInline
  package func setReportingFailure<Value>(_ newValue: Value, for key: Preferences.Key<Value>) {
    do {
      try set(newValue, for: key)
    } catch {
      let failure =
        error as? PreferencesError
        ?? .cannotSave(path: fileURL?.path ?? suiteName, reason: "\(error)")
      state.withLock { $0.lastWriteError = failure }
      FileHandle.standardError.write(Data("kura: warning: \(failure)\n".utf8))
    }
  }

  /// The error of the last subscript write that failed, if any.
  ///
  /// For example: `if let error = preferences.lastWriteError { print(error) }`.
  public var lastWriteError: PreferencesError? { state.withLock { $0.lastWriteError } }

  /// The stored value of a key (else its registered default), after noticing other processes'
  /// changes; registers the current observation's interest in the key.
  @usableFromInline
  package func observedValue(named name: String) -> PreferenceValue? {
    if let opened = openedSuite() { return opened.observedValue(named: name) }
    refreshIfNeeded()
    let found = state.withLock { state -> PreferenceValue?? in
      guard let entry = state.entries[name], let slot = entry.slot else { return .none }
      // Registering interest only appends to the tracking's list: safe under the lock.
      slot.access()
      return .some(entry.value ?? state.registeredDefaults[name])
    }
    guard let found else { return firstObservedValue(named: name) }
    return found
  }

  /// The first read of a key: give it an observation slot and start watching the file.
  private func firstObservedValue(named name: String) -> PreferenceValue? {
    _ = slot(named: name)
    startWatching()
    return observedValue(named: name)
  }

  /// A key's value decoded once per stored version (for Codable values, costly to decode).
  @usableFromInline
  package func decodedValue<Value>(for key: Preferences.Key<Value>) -> Value {
    if let opened = openedSuite() { return opened.decodedValue(for: key) }
    let name = key.name
    guard let stored = observedValue(named: name) else { return key.defaultValue }
    let (decoded, version) = state.withLock { state -> ((any Sendable)?, Int64) in
      guard let entry = state.entries[name], entry.value != nil else { return (nil, -1) }
      return (entry.decoded, entry.version)
    }
    if let decoded, let typed = decoded as? Value { return typed }
    guard let value = key.decode(stored) else { return key.defaultValue }
    if version >= 0 {
      state.withLock { state in
        if let entry = state.entries[name], entry.version == version { entry.decoded = value }
      }
    }
    return value
  }

  /// Whether the suite stores a value for a key (registered defaults don't count).
  ///
  /// For example: `if preferences.contains(.sortOption) { … }`.
  ///
  /// - Parameter key: The key.
  /// - Returns: `true` when a value is stored, of whatever type.
  public func contains<Value>(_ key: Preferences.Key<Value>) -> Bool {
    if let opened = openedSuite() { return opened.contains(key) }
    refreshIfNeeded()
    return state.withLock { state in
      state.entries[key.name].map { $0.value != nil || $0.unreadable != nil } ?? false
    }
  }

  /// The stored value of a key, whatever its type, for tools; `nil` when none is stored or it
  /// can't be read (``storedValue(forKey:)`` tells the two apart).
  ///
  /// For example:
  ///
  /// ```swift
  /// if let raw = preferences.value(forKey: "sortOption") { print(raw.typeName, raw) }
  /// ```
  ///
  /// - Parameter name: The key's name.
  /// - Returns: The stored value.
  public func value(forKey name: String) -> PreferenceValue? {
    if let opened = openedSuite() { return opened.value(forKey: name) }
    refreshIfNeeded()
    return state.withLock { $0.entries[name]?.value }
  }

  /// The stored value of a key, whatever its type; `nil` when none is stored, an error when one
  /// is stored that this version can't read.
  ///
  /// For example:
  ///
  /// ```swift
  /// if let raw = try preferences.storedValue(forKey: "sortOption") { print(raw) }
  /// ```
  ///
  /// - Parameter name: The key's name.
  /// - Returns: The stored value.
  /// - Throws: ``PreferencesError/Code/unreadableValue`` when the
  ///   stored value has a type this version does not know or is cut short.
  public func storedValue(forKey name: String) throws -> PreferenceValue? {
    if let opened = openedSuite() { return try opened.storedValue(forKey: name) }
    refreshIfNeeded()
    let (value, unreadable) = state.withLock { state in
      (state.entries[name]?.value, state.entries[name]?.unreadable)
    }
    if let unreadable {
      throw PreferencesError.unreadableValue(
        key: name, suite: suiteName, storedType: unreadable.storedType, reason: unreadable.reason)
    }
    return value
  }

  /// The names of the keys whose stored value this version can't read (see
  /// ``storedValue(forKey:)``), sorted; they are left out of ``keys`` and
  /// ``dictionaryRepresentation()``.
  ///
  /// For example:
  ///
  /// ```swift
  /// for name in preferences.unreadableKeys { print("\(name): can't be read") }
  /// ```
  public var unreadableKeys: [String] {
    if let opened = openedSuite() { return opened.unreadableKeys }
    refreshIfNeeded()
    return state.withLock { state in
      state.entries.compactMap { $0.value.unreadable == nil ? nil : $0.key }
    }.sorted()
  }

  /// The names of every key that holds a value, sorted.
  ///
  /// For example: `for name in preferences.keys { print(name) }`.
  public var keys: [String] {
    if let opened = openedSuite() { return opened.keys }
    refreshIfNeeded()
    return state.withLock { state in
      state.entries.compactMap { $0.value.value == nil ? nil : $0.key }
    }.sorted()
  }

  /// Every stored value by key name (registered defaults not included).
  ///
  /// For example: `let all = preferences.dictionaryRepresentation()`.
  ///
  /// - Returns: The stored values.
  public func dictionaryRepresentation() -> [String: PreferenceValue] {
    if let opened = openedSuite() { return opened.dictionaryRepresentation() }
    refreshIfNeeded()
    return state.withLock { state in state.entries.compactMapValues(\.value) }
  }

  /// Sets values read when a key has no stored value (kept in memory, for this instance only),
  /// like `UserDefaults.register(defaults:)`.
  ///
  /// For example:
  ///
  /// ```swift
  /// preferences.registerDefaults(["sortOption": "title", "launchCount": 0])
  /// ```
  ///
  /// - Parameter defaults: Values by key name; they take precedence over the keys' defaults.
  public func registerDefaults(_ defaults: [String: PreferenceValue]) {
    if let opened = openedSuite() { opened.registerDefaults(defaults) }
    let slots = state.withLock { state -> [PreferenceSlot] in
      state.registeredDefaults.merge(defaults) { _, new in new }
      for name in defaults.keys { state.entries[name]?.decoded = nil }
      return defaults.keys.compactMap { state.entries[$0]?.slot }
    }
    for slot in slots { slot.changed() }
  }
}
