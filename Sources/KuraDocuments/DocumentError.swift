import Foundation
import KuraBase

/// An error raised while opening, reading or saving a ``DocumentStore``.
///
/// Match on ``code``; ``file`` is the input it concerns and ``underlying`` the error underneath,
/// when there is one (the decoder's, or the operating system's as a `POSIXError`). Each error
/// names the file, says why it failed and what to do. A damaged file also carries the line and
/// column where the problem was found, when they are known.
///
/// For example:
///
/// ```swift
/// do {
///   let store = try DocumentStore<[CashData]>(.documents("cashData.json"))
///   print(store.value.count)
/// } catch let error as DocumentError where error.code == .damaged {
///   print(error.line ?? 0, error.column ?? 0, error.reason)
/// }
/// ```
public struct DocumentError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What kind of failure this is.
  ///
  /// For example:
  ///
  /// ```swift
  /// if error.code == .damaged { print("line \(error.line ?? 0)") }
  /// ```
  public enum Code: String, Sendable, Hashable {
    /// The file is not JSON, is truncated or empty, or its JSON does not have the expected shape.
    case damaged
    /// The file or folder could not be read.
    case cannotRead
    /// The file, its journal or its folder could not be written.
    case cannotWrite
    /// The file name or location is not usable.
    case invalidLocation
    /// An element to update is not in the collection.
    case elementNotFound
    /// An element with the same identifier is already in the collection.
    case duplicateElement
    /// The value could not be encoded as JSON.
    case cannotEncode
    /// The store was closed.
    case closed
    /// Changes saved in the journal were made to an earlier version of the file, which another
    /// program replaced; the journal was set aside (``DocumentError/quarantinedFile``), not
    /// applied.
    case unmergedJournal
    /// The changes kept in the journal could not be written into the file itself (when a store
    /// closes or compacts). Nothing was lost: they stay in the journal and are applied on the
    /// next open.
    case compactionFailed
    /// The store was changed (or closed, reloaded, compacted) from inside its own
    /// ``DocumentStore/update(_:)->_``; change the value given to the closure instead.
    case nestedChange
  }

  /// What kind of failure this is.
  public var code: Code
  /// The document's file.
  public var file: URL
  /// The 1-based line of the problem in a damaged file, when known.
  public var line: Int?
  /// The 1-based column (in characters) of the problem in a damaged file, when known.
  public var column: Int?
  /// Why it failed, in words.
  public var reason: String
  /// Where a damaged file was moved, when the store was opened with
  /// ``DocumentOptions/DamagePolicy/quarantine``, or where an unmerged journal was moved
  /// (``Code/unmergedJournal``).
  public var quarantinedFile: URL?
  /// The document's journal, when the damage is in the journal (the changes saved since the
  /// file was last rewritten) rather than in the file.
  ///
  /// For example:
  ///
  /// ```swift
  /// if let journal = error.journal { print("kept: \(journal.path)") }
  /// ```
  public var journal: URL?
  /// Where the journal was moved when the document was moved aside
  /// (``DocumentOptions/DamagePolicy/quarantine``).
  ///
  /// For example:
  ///
  /// ```swift
  /// if let journal = error.quarantinedJournal { print("moved to \(journal.path)") }
  /// ```
  public var quarantinedJournal: URL?
  /// The error underneath, when there is one: the decoder's or encoder's error, or the
  /// operating system's as a `POSIXError`. Not compared by `==`.
  ///
  /// For example:
  ///
  /// ```swift
  /// if let decoding = error.underlying as? DecodingError { print(decoding) }
  /// ```
  public var underlying: (any Error)?

  /// Creates an error.
  ///
  /// For example:
  ///
  /// ```swift
  /// let error = DocumentError(.damaged, file: url, line: 1, column: 2, reason: "unexpected `x`")
  /// ```
  ///
  /// - Parameters:
  ///   - code: What kind of failure this is.
  ///   - file: The document's file.
  ///   - line: The 1-based line of the problem, when known.
  ///   - column: The 1-based column of the problem, when known.
  ///   - reason: Why it failed.
  ///   - quarantinedFile: Where a damaged file was moved, if it was.
  ///   - underlying: The error underneath, if any.
  public init(
    _ code: Code, file: URL, line: Int? = nil, column: Int? = nil, reason: String,
    quarantinedFile: URL? = nil, underlying: (any Error)? = nil
  ) {
    self.code = code
    self.file = file
    self.line = line
    self.column = column
    self.reason = reason
    self.quarantinedFile = quarantinedFile
    self.underlying = underlying
  }

  /// Whether two errors are the same failure: every property but ``underlying``.
  ///
  /// For example: `if error == other { print("the same failure") }`.
  ///
  /// - Parameters:
  ///   - lhs: An error.
  ///   - rhs: Another error.
  /// - Returns: Whether they are equal.
  public static func == (lhs: DocumentError, rhs: DocumentError) -> Bool {
    lhs.code == rhs.code && lhs.file == rhs.file && lhs.line == rhs.line
      && lhs.column == rhs.column && lhs.reason == rhs.reason
      && lhs.quarantinedFile == rhs.quarantinedFile && lhs.journal == rhs.journal
      && lhs.quarantinedJournal == rhs.quarantinedJournal
  }

  /// What failed, the file in backticks, why, and what to do.
  public var description: String {
    let path = "`\(file.path)`"
    switch code {
    case .damaged:
      var where_ = ""
      if let line {
        where_ = "line \(line)"
        if let column { where_ += ", column \(column)" }
        where_ += ": "
      }
      let head = "Can't open document \(path): \(where_)\(reason)."
      let movedJournal = quarantinedJournal.map { "`\($0.path)`" }
      switch (quarantinedFile, movedJournal) {
      case (let file?, let journal?) where self.journal != nil:
        return head
          + " The file and its journal were moved to `\(file.path)` and \(journal) and an empty"
          + " document was started; restore them by hand."
      case (nil, let journal?):
        return head
          + " The journal was moved to \(journal) and an empty document was started; restore it"
          + " by hand."
      case (let file?, let journal):
        let also = journal.map { " Its journal was moved to \($0)." } ?? ""
        return head
          + " The file was moved to `\(file.path)` and an empty document was started; restore it"
          + " by hand.\(also)"
      case (nil, nil) where journal != nil:
        return head
          + " Nothing was changed and the journal was kept; open the document with the"
          + " quarantine damage policy to move the file and its journal aside and start anew."
      case (nil, nil):
        return head + " Fix or remove the file; nothing was changed."
      }
    case .cannotRead:
      return
        "Can't read document \(path): \(reason). Check that the file and its folder are readable."
    case .cannotWrite:
      return
        "Can't save document \(path): \(reason). Check that the folder is writable and the disk"
        + " has space; the document on disk is unchanged."
    case .invalidLocation:
      return "Can't use \(path) as a document: \(reason)."
    case .elementNotFound:
      return "Can't update an element of document \(path): \(reason). Append it instead."
    case .duplicateElement:
      return "Can't append to document \(path): \(reason). Update it instead."
    case .cannotEncode:
      return "Can't save document \(path): \(reason). Nothing was written."
    case .closed:
      return "Can't use document \(path): \(reason). Open a new store."
    case .unmergedJournal:
      let aside = quarantinedFile.map { " They were moved to `\($0.path)`." } ?? ""
      return
        "Can't apply the saved changes of document \(path): \(reason).\(aside) Merge them by"
        + " hand if they matter."
    case .nestedChange:
      return
        "Can't change document \(path): \(reason). Nothing was changed; change the value given to"
        + " `update` instead."
    case .compactionFailed:
      let kept = journal.map { " in its journal `\($0.path)`" } ?? " in its journal"
      return
        "Can't write the saved changes of document \(path) into the file: \(reason). No change"
        + " was lost: they are kept\(kept) and applied on the next open. Check that the file and"
        + " its folder are writable and the disk has space."
    }
  }
}
