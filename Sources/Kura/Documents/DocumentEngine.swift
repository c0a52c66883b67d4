import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The disk side of a ``DocumentStore``: loading the JSON file and its journal, noticing other
/// processes' changes, appending journal records, and replacing the file. Every method expects
/// the caller to hold the document's lock (shared to read, exclusive to write) and the store's
/// mutex.
struct DocumentEngine<Value: Codable & Sendable>: Sendable {
  let url: URL
  let path: String
  let journalPath: String
  let options: DocumentOptions
  let defaultValue: Value

  /// What the store knows: the value and which versions of the file and journal it reflects.
  struct State: Sendable {
    var value: Value
    /// The JSON file the value was loaded from or last written to; `nil` when there is none.
    var file: FileIdentity?
    /// The length and hash of that file's bytes (what a journal must be based on).
    var base: DocumentJournal.Base?
    /// The journal file read so far; `nil` when there is none.
    var journal: FileIdentity?
    /// How many bytes of the journal have been applied (header included).
    var journalEnd = 0
    /// Whether the journal on disk does not apply to the file (already compacted, or orphaned).
    var journalIsStale = false
    /// Whether that stale journal holds changes the file lacks (it is set aside, not removed).
    var journalIsUnmerged = false
    /// An open descriptor on the journal, for appends; -1 when none.
    var journalDescriptor: Int32 = -1
    /// Element positions by identifier, for collections (built on first use).
    var positions: PositionIndex?
    /// The file and journal stamp this state reflects; `nil` to look at the disk on next read.
    var seenStamp: DocumentStamp?
    var isClosed = false
    var recoveredDamage: DocumentError?
    var reloadError: DocumentError?

    /// Records that no journal applies any more (none on disk, or it was removed).
    mutating func forgetJournal() {
      journal = nil
      journalEnd = 0
      journalIsStale = false
    }

    /// Records a value that the file itself now holds, with no journal on top.
    mutating func settle(value: Value, file: FileIdentity?, base: DocumentJournal.Base?) {
      self.value = value
      self.file = file
      self.base = base
      forgetJournal()
      positions = nil
    }
  }

  init(url: URL, options: DocumentOptions, defaultValue: Value) {
    self.url = url
    self.path = url.path
    let folder = url.deletingLastPathComponent()
    self.journalPath = folder.appendingPathComponent(".\(url.lastPathComponent).journal").path
    self.options = options
    self.defaultValue = defaultValue
  }

  /// Runs a system-level operation, turning its failure into a ``DocumentError``.
  @discardableResult
  func io<T>(_ code: DocumentError.Code, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as SystemCallError {
      throw DocumentError(code, file: url, reason: error.reason)
    }
  }

  // MARK: Reading

  /// Reads the file and its journal from scratch.
  func load(_ state: inout State, allowQuarantine: Bool) throws {
    closeJournal(&state)
    state.positions = nil
    guard let (data, identity) = try io(.cannotRead, { try DocumentFile.read(path) }) else {
      state.value = defaultValue
      state.file = nil
      state.base = nil
      state.journal = try io(.cannotRead) { try DocumentFile.identity(of: journalPath) }
      state.journalEnd = 0
      state.journalIsStale = state.journal != nil
      return
    }
    do {
      state.value = try DocumentDecoding.decode(Value.self, from: data, file: url)
    } catch var error as DocumentError {
      guard allowQuarantine, options.onDamage == .quarantine else { throw error }
      let suffix = ".damaged-\(Self.timestamp())"
      let moved = try io(.cannotWrite) { try DocumentFile.moveAside(path, suffix: suffix) }
      if try io(.cannotRead, { try DocumentFile.identity(of: journalPath) }) != nil {
        _ = try io(.cannotWrite) { try DocumentFile.moveAside(journalPath, suffix: suffix) }
      }
      error.quarantinedFile = URL(fileURLWithPath: moved)
      state.recoveredDamage = error
      state.value = defaultValue
      state.file = nil
      state.base = nil
      state.forgetJournal()
      return
    }
    state.file = identity
    state.base = DocumentJournal.Base(of: data)
    guard let (journalData, journal) = try io(.cannotRead, { try DocumentFile.read(journalPath) })
    else {
      state.forgetJournal()
      return
    }
    state.journal = journal
    guard let base = DocumentJournal.base(ofHeader: journalData), base == state.base else {
      state.journalEnd = 0
      state.journalIsStale = true
      state.journalIsUnmerged = DocumentJournal.holdsUnmergedChanges(
        journalData, current: state.base)
      if allowQuarantine && state.journalIsUnmerged { try setAsideJournal(&state) }
      return
    }
    let (records, length) = DocumentJournal.records(
      in: journalData.dropFirst(DocumentJournal.headerSize))
    try apply(records, to: &state)
    state.journalEnd = DocumentJournal.headerSize + length
    state.journalIsStale = false
  }

  /// Brings the state up to date with the disk. Returns whether anything was loaded.
  func refresh(_ state: inout State) throws -> Bool {
    let file = try io(.cannotRead) { try DocumentFile.identity(of: path) }
    if file != state.file {
      try load(&state, allowQuarantine: false)
      return true
    }
    let journal = try io(.cannotRead) { try DocumentFile.identity(of: journalPath) }
    switch (journal, state.journal) {
    case (nil, nil):
      return false
    case (let now?, let known?) where now.isSameFile(as: known):
      guard !state.journalIsStale, now.size > state.journalEnd else { return false }
      guard
        let (tail, _) = try io(
          .cannotRead, { try DocumentFile.read(journalPath, from: state.journalEnd) })
      else { return false }
      let (records, length) = DocumentJournal.records(in: tail)
      try apply(records, to: &state)
      state.journalEnd += length
      return !records.isEmpty
    default:
      try load(&state, allowQuarantine: false)
      return true
    }
  }

  /// Applies journal records to the value (the value must be a journaled collection).
  func apply(_ records: [DocumentJournal.Record], to state: inout State) throws {
    guard !records.isEmpty else { return }
    guard var collection = state.value as? any JournalReplayable else {
      throw DocumentError(
        .damaged, file: URL(fileURLWithPath: journalPath),
        reason: "the journal holds collection changes but the document is a `\(Value.self)`")
    }
    state.value = defaultValue
    do {
      try collection.replay(records, positions: &state.positions)
    } catch {
      throw DocumentError(
        .damaged, file: URL(fileURLWithPath: journalPath),
        reason: "a journal record does not decode: \(error)")
    }
    guard let value = collection as? Value else {
      fatalError("A replayed `\(Value.self)` changed type; this cannot happen.")
    }
    state.value = value
  }

  // MARK: Writing

  /// Brings the state up to date before a write and clears the way for new journal records:
  /// a stale journal is removed, a torn tail left by a killed writer is cut off.
  func prepareWrite(_ state: inout State) throws {
    _ = try refresh(&state)
    if state.journalIsStale && state.journalIsUnmerged {
      try setAsideJournal(&state)
    } else if state.journalIsStale {
      closeJournal(&state)
      try io(.cannotWrite) { try DocumentFile.remove(journalPath) }
      state.forgetJournal()
    } else if let journal = try io(.cannotRead, { try DocumentFile.identity(of: journalPath) }),
      journal.size > state.journalEnd
    {
      if truncate(journalPath, off_t(state.journalEnd)) != 0 {
        throw DocumentError(
          .cannotWrite, file: url,
          reason: "can't cut the torn end off `\(journalPath)`: \(String(cString: strerror(errno)))"
        )
      }
    }
  }

  /// Appends one framed record to the journal, creating the file and journal when needed.
  func append(_ frame: Data, to state: inout State) throws {
    if state.file == nil { try replaceFile(with: state.value, &state) }
    if state.journal == nil {
      guard let base = state.base else { fatalError("A document file exists without a base.") }
      let fd = open(journalPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      if fd < 0 {
        throw DocumentError(
          .cannotWrite, file: url,
          reason: "can't create `\(journalPath)`: \(String(cString: strerror(errno)))")
      }
      state.journalDescriptor = fd
      try io(.cannotWrite) {
        try DocumentFile.write(fd, DocumentJournal.header(for: base), at: 0, path: journalPath)
        if options.durability == .powerLoss {
          try DocumentFile.syncData(fd, path: journalPath)
          try DocumentFile.syncFolder(of: journalPath)
        }
      }
      var status = stat()
      fstat(fd, &status)
      state.journal = FileIdentity(status)
      state.journalEnd = DocumentJournal.headerSize
    }
    try writeToJournal(frame, &state)
  }

  /// Writes a framed record at the end of the existing journal.
  func writeToJournal(_ frame: Data, _ state: inout State) throws {
    if state.journalDescriptor < 0 {
      let fd = open(journalPath, O_RDWR | O_CLOEXEC)
      if fd < 0 {
        throw DocumentError(
          .cannotWrite, file: url,
          reason: "can't open `\(journalPath)`: \(String(cString: strerror(errno)))")
      }
      state.journalDescriptor = fd
    }
    let fd = state.journalDescriptor
    try io(.cannotWrite) {
      try DocumentFile.write(fd, frame, at: state.journalEnd, path: journalPath)
      if options.durability == .powerLoss { try DocumentFile.syncData(fd, path: journalPath) }
    }
    state.journalEnd += frame.count
  }

  /// Moves a journal holding changes the file lacks to `.<name>.journal.unmerged-<timestamp>`
  /// and reports it in ``DocumentStore/recoveredDamage``.
  func setAsideJournal(_ state: inout State) throws {
    closeJournal(&state)
    let suffix = ".unmerged-\(Self.timestamp())"
    let moved = try io(.cannotWrite) { try DocumentFile.moveAside(journalPath, suffix: suffix) }
    state.recoveredDamage = DocumentError(
      .unmergedJournal, file: url,
      reason: "another program replaced the file after these changes were saved",
      quarantinedFile: URL(fileURLWithPath: moved))
    state.forgetJournal()
    state.journalIsUnmerged = false
  }

  /// Whether the journal has grown past the threshold and past the file itself.
  func needsCompaction(_ state: State) -> Bool {
    let journal = state.journalEnd - DocumentJournal.headerSize
    return journal > max(options.compactionThreshold, Int(state.base?.length ?? 0))
  }

  /// Whether the journal holds records not yet in the file.
  func hasJournalRecords(_ state: State) -> Bool {
    state.journal != nil && state.journalEnd > DocumentJournal.headerSize
  }

  /// Writes a whole new value atomically and drops the journal (its records are in the value).
  func replaceFile(with value: Value, _ state: inout State) throws {
    let data: Data
    do {
      data = try DocumentDecoding.encoder().encode(value)
    } catch {
      throw DocumentError(.cannotEncode, file: url, reason: "\(error)")
    }
    let base = DocumentJournal.Base(of: data)
    if hasJournalRecords(state) && !state.journalIsStale {
      // Marks the journal as compacted into the new file before the file is replaced.
      try writeToJournal(DocumentJournal.compactionMarker(for: base), &state)
    }
    let identity = try io(.cannotWrite) { try DocumentFile.replace(path, with: data) }
    // A crash here leaves a journal based on the old file, ending with the marker for the new
    // one: it is recognised as already compacted and removed.
    closeJournal(&state)
    try io(.cannotWrite) { try DocumentFile.remove(journalPath) }
    state.settle(value: value, file: identity, base: base)
  }

  /// Removes the file and its journal; the value goes back to the default.
  func removeFiles(_ state: inout State) throws {
    closeJournal(&state)
    try io(.cannotWrite) {
      try DocumentFile.remove(path)
      try DocumentFile.remove(journalPath)
      try DocumentFile.syncFolder(of: path)
    }
    state.settle(value: defaultValue, file: nil, base: nil)
  }

  func closeJournal(_ state: inout State) {
    if state.journalDescriptor >= 0 { close(state.journalDescriptor) }
    state.journalDescriptor = -1
  }

  /// The current UTC time as `20261130T101500Z`, for quarantined file names.
  static func timestamp() -> String {
    var now = time(nil)
    var parts = tm()
    gmtime_r(&now, &parts)
    return String(
      format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
  }
}
