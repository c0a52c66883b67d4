import Foundation
import KuraBase
import Observation
import Synchronization

/// A Codable value kept as a JSON file: in the app's Documents folder, an App Group container,
/// or at any URL — the `FileManager` + `JSONEncoder` pattern, made crash-safe and shared.
///
/// - ``value`` is read from memory.
/// - ``update(_:)->_``, ``replace(with:)`` and ``delete()`` replace the file atomically (a temporary
///   file is written, flushed and renamed over the original; the folder is flushed): the file is
///   never truncated or half-written, even when the process is killed mid-write.
/// - For an array of `Identifiable` elements, ``append(_:)``, ``remove(id:)`` and
///   ``update(_:)-(Element)`` add one record to a journal beside the file instead of rewriting it;
///   the journal is replayed on open and compacted into the file on ``close()``, past a size
///   threshold, or on ``compact()``. The file itself is always plain JSON.
/// - A damaged file fails to open with a ``DocumentError`` naming the line and column, or is moved
///   aside when ``DocumentOptions/onDamage`` is ``DocumentOptions/DamagePolicy/quarantine``.
/// - Several processes may open the same document, also by different paths (symbolic links):
///   writers are serialized by a file lock beside the real file, and a change saved by one process
///   is seen by the others' next read (which compares the file's and journal's identity) and
///   delivered to their observers within milliseconds.
/// - Observe it with the Observation framework (it is `Observable`) or with ``changes``.
///
/// A change is saved when the call returns, to the level set by ``DocumentOptions/durability``.
///
/// For example:
///
/// ```swift
/// struct CashData: Codable, Identifiable, Sendable {
///   var id = UUID()
///   var memo: String
///   var cash: Int
///   var time: String
/// }
/// let store = try DocumentStore<[CashData]>(.documents("cashData.json"))
/// try store.append(CashData(memo: "高速代金", cash: 2800, time: "22:38"))
/// print(store.value.map(\.cash).reduce(0, +))
/// ```
public final class DocumentStore<Value: Codable & Sendable>: Sendable, Observable {
  /// The document's file.
  public let url: URL
  /// The options the store was opened with.
  public let options: DocumentOptions
  package let engine: DocumentEngine<Value>
  package let lock: DocumentLock
  package let state: Mutex<DocumentEngine<Value>.State>
  package let registrar = ObservationRegistrar()
  package let watch = Mutex<ChangeObservation?>(nil)
  /// An open descriptor on the file the value was loaded from (see ``DocumentStamp``).
  package let pin: Mutex<DocumentPin>
  /// The readers of ``changes``.
  package let subscribers = Mutex(DocumentSubscribers<Value>())
  /// The encoder for journal records, made once.
  package let recordEncoder = DocumentDecoding.encoder()
  // Made once: instantiating a generic class's key path on every access and change is costly.
  package let valuePath: KeyPath<DocumentStore, Value> & Sendable = \.value
  package let reloadErrorPath: KeyPath<DocumentStore, DocumentError?> & Sendable = \.reloadError
  /// The thread running a change under the mutex (0 when none), and what the store held when
  /// the change began: the change's own code may read the store (it sees that) but not change
  /// it, instead of trapping on the non-recursive mutex.
  package let changingThread = Atomic<UInt>(0)
  package let duringChange = Mutex<(Value, DocumentError?, DocumentError?)?>(nil)

  /// Opens (or starts) the document at a location.
  ///
  /// For example:
  ///
  /// ```swift
  /// let settings = try DocumentStore(.documents("settings.json"), defaultValue: ["theme": "dark"])
  /// ```
  ///
  /// - Parameters:
  ///   - location: Where the file is.
  ///   - defaultValue: The value when there is no file yet (and after ``delete()``).
  ///   - options: Durability, damage handling and watching.
  /// - Throws: ``DocumentError``: ``DocumentError/Code/damaged`` when the file does not decode
  ///   (unless quarantining), ``DocumentError/Code/cannotRead`` or
  ///   ``DocumentError/Code/invalidLocation``.
  public init(
    _ location: DocumentLocation, defaultValue: Value, options: DocumentOptions = DocumentOptions()
  ) throws {
    let url = try location.resolve()
    self.url = url
    self.options = options
    // The journal and lock sit beside the real file, whichever path reached it.
    let real = URL(fileURLWithPath: ResolvedPath.resolve(url.path))
    let engine = DocumentEngine(url: real, options: options, defaultValue: defaultValue)
    self.engine = engine
    let lock = try engine.io(.cannotWrite) { try DocumentLock(documentPath: real.path) }
    self.lock = lock
    var state = DocumentEngine<Value>.State(value: defaultValue)
    var pinned = DocumentPin()
    try engine.io(.cannotRead) {
      try lock.withLock(exclusive: true) {
        let stamp = try DocumentStamp.current(engine)
        try engine.load(&state, allowQuarantine: true)
        state.seenStamp = stamp.ifApplied(in: state)
        pinned.follow(state, engine)
      }
    }
    self.pin = Mutex(pinned)
    self.state = Mutex(state)
    if options.observesOtherProcesses {
      let observation = FileChangeMonitor.shared.subscribe(
        folder: real.deletingLastPathComponent().path,
        names: [real.lastPathComponent, (engine.journalPath as NSString).lastPathComponent]
      ) { [weak self] in self?.refreshFromOtherProcesses(waiting: false) ?? false }
      watch.withLock { $0 = observation }
    }
  }

  /// Opens (or starts) a collection document, empty when there is no file yet.
  ///
  /// For example:
  ///
  /// ```swift
  /// let entries = try DocumentStore<[CashData]>(.documents("cashData.json"))
  /// ```
  ///
  /// - Parameters:
  ///   - location: Where the file is.
  ///   - options: Durability, damage handling and watching.
  /// - Throws: ``DocumentError`` as ``init(_:defaultValue:options:)`` does.
  public convenience init<Element>(
    _ location: DocumentLocation, options: DocumentOptions = DocumentOptions()
  ) throws where Value == [Element] {
    try self.init(location, defaultValue: [], options: options)
  }

  /// Reads a document's current value without opening it for writing: no folder, file, lock
  /// file or journal is created, and nothing is replayed, compacted or moved aside (a damaged
  /// file is an error, whatever ``DocumentOptions/onDamage`` says). A reader waits for a writer
  /// of another process that holds the document's lock, so it never sees half a change.
  ///
  /// For example:
  ///
  /// ```swift
  /// let entries = try DocumentStore<[CashData]>.read(.documents("cashData.json"), defaultValue: [])
  /// print(entries.count)
  /// ```
  ///
  /// - Parameters:
  ///   - location: Where the file is.
  ///   - defaultValue: The value when there is no file yet.
  /// - Returns: The value, with the journal's changes applied.
  /// - Throws: ``DocumentError``: ``DocumentError/Code/damaged``,
  ///   ``DocumentError/Code/cannotRead`` or ``DocumentError/Code/invalidLocation``.
  public static func read(_ location: DocumentLocation, defaultValue: Value) throws -> Value {
    let url = try location.resolve(creatingFolder: false)
    let real = URL(fileURLWithPath: ResolvedPath.resolve(url.path))
    let engine = DocumentEngine(url: real, options: DocumentOptions(), defaultValue: defaultValue)
    var state = DocumentEngine<Value>.State(value: defaultValue)
    try engine.io(.cannotRead) {
      if let lock = try DocumentLock(existingFor: real.path) {
        try lock.withSharedLockAsFound { try engine.load(&state, allowQuarantine: false) }
      } else {
        try engine.load(&state, allowQuarantine: false)
      }
    }
    engine.closeJournal(&state)
    return state.value
  }

  deinit {
    watch.withLock { $0 }?.cancel()
    try? close()
  }

  /// The current value, from memory (kept up to date with other processes' changes).
  ///
  /// For example:
  ///
  /// ```swift
  /// let total = store.value.map(\.cash).reduce(0, +)
  /// ```
  public var value: Value {
    registrar.access(self, keyPath: valuePath)
    if let during = valueDuringOwnChange() { return during.0 }
    refreshFromOtherProcesses()
    return state.withLock { $0.value }
  }

  /// The damage found when the store opened a damaged file and moved it aside
  /// (``DocumentOptions/DamagePolicy/quarantine``); `nil` when the file was fine.
  ///
  /// For example:
  ///
  /// ```swift
  /// if let damage = store.recoveredDamage { print("warning: \(damage)") }
  /// ```
  public var recoveredDamage: DocumentError? {
    if let during = valueDuringOwnChange() { return during.1 }
    return state.withLock { $0.recoveredDamage }
  }

  /// The error met while loading another process's change, if the last attempt failed (for
  /// example, another program wrote a damaged file); the value is then the last good one.
  ///
  /// For example:
  ///
  /// ```swift
  /// if let error = store.reloadError { print(error) }
  /// ```
  public var reloadError: DocumentError? {
    registrar.access(self, keyPath: reloadErrorPath)
    if let during = valueDuringOwnChange() { return during.2 }
    return state.withLock { $0.reloadError }
  }

  /// Changes the value and saves the whole file atomically before returning.
  ///
  /// The change is made on the latest saved value (another process's changes are loaded first)
  /// while holding the document's lock, so concurrent updates from several processes are
  /// serialized and none is lost. Reading ``value`` inside `body` gives the value the change
  /// started from; changing the store there throws ``DocumentError/Code/nestedChange`` (change
  /// the value given to `body` instead).
  ///
  /// For example:
  ///
  /// ```swift
  /// try settings.update { $0["theme"] = "light" }
  /// ```
  ///
  /// - Parameter body: Changes the value; when it throws, nothing is saved.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws, or a ``DocumentError`` when the file can't be written.
  @discardableResult
  public func update<Result: Sendable>(_ body: (inout Value) throws -> Result) throws -> Result {
    try write { state in
      var value = state.value
      duringChange.withLock { $0 = (value, state.recoveredDamage, state.reloadError) }
      defer { duringChange.withLock { $0 = nil } }
      let result = try body(&value)
      try engine.replaceFile(with: value, &state)
      return (result, true)
    }
  }

  /// Replaces the value and saves the whole file atomically before returning.
  ///
  /// For example:
  ///
  /// ```swift
  /// try store.replace(with: [])
  /// ```
  ///
  /// - Parameter value: The new value.
  /// - Throws: ``DocumentError`` when the file can't be written.
  public func replace(with value: Value) throws {
    try update { $0 = value }
  }

  /// Removes the file (and its journal and lock file); the value goes back to the default value.
  ///
  /// For example:
  ///
  /// ```swift
  /// try store.delete()   // warikan's "reset"
  /// ```
  ///
  /// - Throws: ``DocumentError`` when the file can't be removed.
  public func delete() throws {
    try write { state in
      try engine.removeFiles(&state)
      // Under the exclusive lock: a document that holds nothing leaves no lock file behind.
      lock.removeFile()
      return ((), true)
    }
  }

  /// Reads the file again now, surfacing any error (changes from other processes are otherwise
  /// loaded automatically).
  ///
  /// For example:
  ///
  /// ```swift
  /// try store.reload()
  /// ```
  ///
  /// - Throws: ``DocumentError`` when the file can't be read or is damaged; the value is then
  ///   unchanged.
  public func reload() throws {
    let changed = try withState { state -> Bool in
      let stamp = try DocumentStamp.current(engine)
      // The copy reopens the journal when it needs it; the original's descriptor is closed now
      // so the two never share one.
      engine.closeJournal(&state)
      var copy = state
      try engine.io(.cannotRead) {
        try lock.withLock(exclusive: false) {
          try engine.load(&copy, allowQuarantine: false)
          pin.withLock { $0.follow(copy, engine) }
        }
      }
      copy.seenStamp = stamp.ifApplied(in: copy)
      copy.reloadError = nil
      state = copy
      return true
    }
    if changed { notifyChange() }
  }

  /// Writes the journal's changes into the JSON file now (it is otherwise done on ``close()`` and
  /// when the journal grows larger than the file).
  ///
  /// For example:
  ///
  /// ```swift
  /// try store.compact()   // the file is now plain JSON with every change
  /// ```
  ///
  /// - Throws: ``DocumentError/Code/compactionFailed`` when the file can't be written (the
  ///   changes stay in the journal).
  public func compact() throws {
    try write { state in
      if engine.hasJournalRecords(state) { try engine.compact(&state) }
      return ((), false)
    }
  }

  /// Compacts the journal into the file and stops watching; later changes throw
  /// ``DocumentError/Code/closed``. Closing again does nothing. A store that is released without
  /// being closed closes itself; if that compaction fails, the changes stay in the journal and
  /// are replayed on the next open.
  ///
  /// For example:
  ///
  /// ```swift
  /// try store.close()
  /// ```
  ///
  /// - Throws: ``DocumentError/Code/compactionFailed`` when the journal can't be compacted (its
  ///   changes stay in the journal and are replayed on the next open).
  public func close() throws {
    try refuseNestedChange()
    watch.withLock { observation -> ChangeObservation? in
      defer { observation = nil }
      return observation
    }?.cancel()
    defer {
      pin.withLock { $0.release() }
      let readers = subscribers.withLock { subscribers in
        defer { subscribers.streams = [:] }
        return subscribers.live
      }
      for reader in readers { reader.finish() }
    }
    try state.withLock { state in
      guard !state.isClosed else { return }
      defer {
        engine.closeJournal(&state)
        state.isClosed = true
      }
      if engine.hasJournalRecords(state) {
        try engine.io(.cannotWrite) {
          try lock.withLock(exclusive: true) {
            try engine.prepareWrite(&state)
            if engine.hasJournalRecords(state) { try engine.compact(&state) }
          }
        }
      }
    }
  }
}
