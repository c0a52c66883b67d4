import Foundation
import KuraBase

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The disk side of a ``DocumentStore``: loading the JSON file and its journal, noticing other
/// processes' changes, appending journal records, and replacing the file. Every method expects
/// the caller to hold the document's lock (shared to read, exclusive to write) and the store's
/// mutex.
package struct DocumentEngine<Value: Codable & Sendable>: Sendable {
  package let url: URL
  package let path: String
  package let journalPath: String
  package let options: DocumentOptions
  package let defaultValue: Value

  /// What the store knows: the value and which versions of the file and journal it reflects.
  package struct State: Sendable {
    package var value: Value
    /// The JSON file the value was loaded from or last written to; `nil` when there is none.
    package var file: FileIdentity?
    /// The length and hash of that file's bytes (what a journal must be based on).
    package var base: DocumentJournal.Base?
    /// The journal file read so far; `nil` when there is none.
    package var journal: FileIdentity?
    /// How many bytes of the journal have been applied (header included).
    package var journalEnd = 0
    /// Whether the journal on disk does not apply to the file (already compacted, or orphaned).
    package var journalIsStale = false
    /// Whether that stale journal holds changes the file lacks (it is set aside, not removed).
    package var journalIsUnmerged = false
    /// The journal length below which no compaction is tried again after one failed (a full
    /// disk, a file that can't be replaced): each retry rewrites the whole file.
    package var nextCompactionAttempt = 0
    /// An open descriptor on the journal, for appends; -1 when none.
    package var journalDescriptor: Int32 = -1
    /// Element positions by identifier, for collections (built on first use).
    package var positions: PositionIndex?
    /// The file and journal stamp this state reflects; `nil` to look at the disk on next read.
    package var seenStamp: DocumentStamp?
    package var isClosed = false
    package var recoveredDamage: DocumentError?
    package var reloadError: DocumentError?

    /// Records that no journal applies any more (none on disk, or it was removed).
    package mutating func forgetJournal() {
      nextCompactionAttempt = 0
      journal = nil
      journalEnd = 0
      journalIsStale = false
    }

    /// Records a value that the file itself now holds, with no journal on top.
    package mutating func settle(value: Value, file: FileIdentity?, base: DocumentJournal.Base?) {
      self.value = value
      self.file = file
      self.base = base
      forgetJournal()
      positions = nil
    }
  }

  package init(url: URL, options: DocumentOptions, defaultValue: Value) {
    self.url = url
    self.path = url.path
    let folder = url.deletingLastPathComponent()
    self.journalPath = folder.appendingPathComponent(".\(url.lastPathComponent).journal").path
    self.options = options
    self.defaultValue = defaultValue
  }

  /// Runs a system-level operation, turning its failure into a ``DocumentError``.
  @discardableResult
  package func io<T>(_ code: DocumentError.Code, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as SystemCallError {
      throw DocumentError(code, file: url, reason: error.reason, underlying: error.posixError)
    }
  }

  // MARK: Reading

  /// Reads the file and its journal from scratch. A damaged file or journal throws, or, when
  /// `allowQuarantine` and the options say so, is moved aside with its partner and an empty
  /// document is started.
  package func load(_ state: inout State, allowQuarantine: Bool) throws {
    if allowQuarantine {
      // Opening, under the exclusive lock: clear what writers killed mid-replacement left.
      DocumentFile.removeTemporaryFiles(of: path)
    }
    do {
      try loadAsItIs(&state, allowQuarantine: allowQuarantine)
    } catch var error as DocumentError where error.code == .damaged {
      guard allowQuarantine, options.onDamage == .quarantine else { throw error }
      closeJournal(&state)
      let suffix = ".damaged-\(Self.timestamp())"
      if try io(.cannotRead, { try DocumentFile.identity(of: path) }) != nil {
        let moved = try io(.cannotWrite) { try DocumentFile.moveAside(path, suffix: suffix) }
        error.quarantinedFile = URL(fileURLWithPath: moved)
      }
      if try io(.cannotRead, { try DocumentFile.identity(of: journalPath) }) != nil {
        let moved = try io(.cannotWrite) {
          try DocumentFile.moveAside(journalPath, suffix: suffix)
        }
        error.quarantinedJournal = URL(fileURLWithPath: moved)
      }
      state.recoveredDamage = error
      state.value = defaultValue
      state.positions = nil
      state.file = nil
      state.base = nil
      state.forgetJournal()
    }
  }

  /// The error for a journal that can't be read to the end: `reason` says why, `offset` (when
  /// known) is where in the journal the unreadable part starts.
  package func journalDamage(at offset: Int? = nil, _ reason: String) -> DocumentError {
    let name = (journalPath as NSString).lastPathComponent
    let place = offset.map { " at byte \($0)" } ?? ""
    var error = DocumentError(
      .damaged, file: url, reason: "its journal `\(name)` can't be read\(place): \(reason)")
    error.journal = URL(fileURLWithPath: journalPath)
    return error
  }

  /// Reads the file and its journal from scratch; throws when either is damaged.
  private func loadAsItIs(_ state: inout State, allowQuarantine: Bool) throws {
    closeJournal(&state)
    state.positions = nil
    guard let (data, identity) = try io(.cannotRead, { try DocumentFile.read(path) }) else {
      // A journal without a file is what a `delete()` killed between its two removals leaves.
      let journal = try io(.cannotRead) { try DocumentFile.read(journalPath) }
      if let journalData = journal?.0 {
        switch DocumentJournal.header(of: journalData) {
        case .unknownVersion(let version):
          throw journalDamage("it was written by another version of Kura (`\(version)`)")
        case .damaged(let reason):
          throw journalDamage(reason)
        case .torn, .valid:
          break
        }
      }
      state.value = defaultValue
      state.file = nil
      state.base = nil
      state.journal = journal?.1
      state.journalEnd = 0
      state.journalIsStale = state.journal != nil
      state.journalIsUnmerged = false
      return
    }
    state.value = try DocumentDecoding.decode(Value.self, from: data, file: url)
    state.file = identity
    state.base = DocumentJournal.Base(of: data)
    guard let (journalData, journal) = try io(.cannotRead, { try DocumentFile.read(journalPath) })
    else {
      state.forgetJournal()
      return
    }
    state.journal = journal
    state.journalIsUnmerged = false
    switch DocumentJournal.header(of: journalData) {
    case .unknownVersion(let version):
      throw journalDamage("it was written by another version of Kura (`\(version)`)")
    case .damaged(let reason):
      throw journalDamage(reason)
    case .torn:
      state.journalEnd = 0
      state.journalIsStale = true
    case .valid(let base) where base != state.base:
      state.journalEnd = 0
      state.journalIsStale = true
      state.journalIsUnmerged = DocumentJournal.holdsUnmergedChanges(
        journalData, current: state.base)
      if allowQuarantine && state.journalIsUnmerged { try setAsideJournal(&state) }
    case .valid:
      let scan = DocumentJournal.scan(journalData.dropFirst(DocumentJournal.headerSize))
      if let damage = scan.damage {
        throw journalDamage(at: DocumentJournal.headerSize + scan.length, damage)
      }
      try apply(scan.records, to: &state)
      state.journalEnd = DocumentJournal.headerSize + scan.length
      state.journalIsStale = false
    }
  }

  /// Brings the state up to date with the disk. Returns whether anything was loaded.
  package func refresh(_ state: inout State) throws -> Bool {
    let file = try io(.cannotRead) { try DocumentFile.identity(of: path) }
    if file != state.file {
      try load(&state, allowQuarantine: false)
      return true
    }
    let journal = try io(.cannotRead) { try DocumentFile.identity(of: journalPath) }
    switch (journal, state.journal) {
    case (nil, nil):
      return false
    case (let now?, let known?)
    where now.isSameFile(as: known) && (state.journalIsStale || now.size >= state.journalEnd):
      // (A journal shorter than what was read was cut by another program: read it anew.)
      guard !state.journalIsStale, now.size > state.journalEnd else { return false }
      guard
        let (tail, _) = try io(
          .cannotRead, { try DocumentFile.read(journalPath, from: state.journalEnd) })
      else { return false }
      let scan = DocumentJournal.scan(tail)
      if let damage = scan.damage {
        throw journalDamage(at: state.journalEnd + scan.length, damage)
      }
      try apply(scan.records, to: &state)
      state.journalEnd += scan.length
      return !scan.records.isEmpty
    default:
      try load(&state, allowQuarantine: false)
      return true
    }
  }

  /// Applies journal records to the value (the value must be a journaled collection).
  package func apply(_ records: [DocumentJournal.Record], to state: inout State) throws {
    guard !records.isEmpty else { return }
    guard var collection = state.value as? any JournalReplayable else {
      throw journalDamage("it holds collection changes but the document is a `\(Value.self)`")
    }
    state.value = defaultValue
    do {
      try collection.replay(records, positions: &state.positions)
    } catch {
      // Nothing was applied: the value stays as it was.
      if let unchanged = collection as? Value { state.value = unchanged }
      throw journalDamage("a record does not decode: \(error)")
    }
    guard let value = collection as? Value else {
      // `collection` is `state.value` opened as a collection, so it casts back; were it not to,
      // the change is refused (not taken for damage, which could move the file aside).
      throw DocumentError(
        .cannotRead, file: url,
        reason: "replaying its journal gave a `\(type(of: collection))`, not a `\(Value.self)`"
          + " (a defect in Kura: please report it)")
    }
    state.value = value
  }

  // MARK: Writing

  /// Brings the state up to date before a write and clears the way for new journal records:
  /// a stale journal is removed, a torn tail left by a killed writer is cut off.
  package func prepareWrite(_ state: inout State) throws {
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
  package func append(_ frame: Data, to state: inout State) throws {
    // The journal's header names the file it is based on: the one loaded or last written, or
    // (none yet) the one written now.
    let base: DocumentJournal.Base
    if state.file != nil, let known = state.base {
      base = known
    } else {
      base = try replaceFile(with: state.value, &state)
    }
    if state.journal == nil {
      let fd = open(journalPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      if fd < 0 {
        throw DocumentError(
          .cannotWrite, file: url,
          reason: "can't create `\(journalPath)`: \(String(cString: strerror(errno)))")
      }
      do {
        try DocumentFile.write(fd, DocumentJournal.header(for: base), at: 0, path: journalPath)
        if options.durability == .powerLoss {
          try DocumentFile.syncData(fd, path: journalPath)
          try DocumentFile.syncFolder(of: journalPath)
        }
      } catch let error as SystemCallError {
        close(fd)
        unlink(journalPath)
        throw DocumentError(
          .cannotWrite, file: url, reason: error.reason, underlying: error.posixError)
      }
      state.journalDescriptor = fd
      var status = stat()
      fstat(fd, &status)
      state.journal = FileIdentity(status)
      state.journalEnd = DocumentJournal.headerSize
    }
    try writeToJournal(frame, &state)
  }

  /// Writes a framed record at the end of the existing journal.
  package func writeToJournal(_ frame: Data, _ state: inout State) throws {
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
    do {
      try DocumentFile.write(fd, frame, at: state.journalEnd, path: journalPath)
      if options.durability == .powerLoss { try DocumentFile.syncData(fd, path: journalPath) }
    } catch let error as SystemCallError {
      // A record written in part (the disk filled up) or not flushed is taken back, so that a
      // change reported as failed leaves nothing behind. Should even that fail, the partial
      // record is a torn tail, which readers ignore and the next writer cuts off.
      _ = ftruncate(fd, off_t(state.journalEnd))
      throw DocumentError(
        .cannotWrite, file: url, reason: error.reason, underlying: error.posixError)
    }
    state.journalEnd += frame.count
  }

  /// Moves a journal holding changes the file lacks to `.<name>.journal.unmerged-<timestamp>`
  /// and reports it in ``DocumentStore/recoveredDamage``.
  package func setAsideJournal(_ state: inout State) throws {
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
  package func needsCompaction(_ state: State) -> Bool {
    let journal = state.journalEnd - DocumentJournal.headerSize
    return journal > max(options.compactionThreshold, Int(state.base?.length ?? 0))
      && state.journalEnd >= state.nextCompactionAttempt
  }

  /// Whether the journal holds records not yet in the file.
  package func hasJournalRecords(_ state: State) -> Bool {
    state.journal != nil && state.journalEnd > DocumentJournal.headerSize
  }

  /// Writes a whole new value atomically and drops the journal (its records are in the value).
  ///
  /// - Returns: The length and hash of the bytes written (the new file's base).
  @discardableResult
  package func replaceFile(with value: Value, _ state: inout State) throws -> DocumentJournal.Base {
    let data: Data
    do {
      data = try DocumentDecoding.encoder().encode(value)
    } catch {
      throw DocumentError(.cannotEncode, file: url, reason: "\(error)", underlying: error)
    }
    let base = DocumentJournal.Base(of: data)
    if hasJournalRecords(state) && !state.journalIsStale {
      // Marks the journal as compacted into the new file before the file is replaced.
      try writeToJournal(DocumentJournal.compactionMarker(for: base), &state)
    }
    let identity = try io(.cannotWrite) { try DocumentFile.replace(path, with: data) }
    // The file now holds the value: what follows can't make the change fail. A crash here, or
    // a journal that can't be removed, leaves a journal based on the old file ending with the
    // marker for the new one: it is recognised as already compacted and removed later.
    closeJournal(&state)
    _ = try? DocumentFile.remove(journalPath)
    state.settle(value: value, file: identity, base: base)
    if let leftOver = (try? DocumentFile.identity(of: journalPath)) ?? nil {
      state.journal = leftOver
      state.journalIsStale = true
    }
    return base
  }

  /// Writes the journal's records into the file. A failure changes nothing on disk: the
  /// records stay in the journal (``DocumentError/Code/compactionFailed``).
  package func compact(_ state: inout State) throws {
    do {
      try replaceFile(with: state.value, &state)
    } catch var error as DocumentError where error.code == .cannotWrite {
      error.code = .compactionFailed
      error.journal = URL(fileURLWithPath: journalPath)
      throw error
    }
  }

  /// Removes the file and its journal; the value goes back to the default.
  package func removeFiles(_ state: inout State) throws {
    closeJournal(&state)
    try io(.cannotWrite) {
      try DocumentFile.remove(path)
      try DocumentFile.remove(journalPath)
      try DocumentFile.syncFolder(of: path)
    }
    state.settle(value: defaultValue, file: nil, base: nil)
  }

  package func closeJournal(_ state: inout State) {
    if state.journalDescriptor >= 0 { close(state.journalDescriptor) }
    state.journalDescriptor = -1
  }

  /// The current UTC time as `20261130T101500Z`, for quarantined file names.
  package static func timestamp() -> String {
    var now = time(nil)
    var parts = tm()
    gmtime_r(&now, &parts)
    return String(
      format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
  }
}
