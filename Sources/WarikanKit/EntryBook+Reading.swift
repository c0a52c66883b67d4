import Foundation
import Kura

extension EntryBook {
  /// The entries of a bill as read at one moment, with its total and split: what the read-only
  /// commands (`warikan list`, `total`, `split`) show.
  ///
  /// For example:
  ///
  /// ```swift
  /// let contents = try EntryBook.read()
  /// print(contents.newestFirst.count, Amount.format(try contents.total))
  /// ```
  public struct Contents: Sendable, Equatable {
    /// Every entry, oldest first (the order of the file).
    ///
    /// For example: `contents.entries.count`.
    public let entries: [CashData]

    /// Contents holding `entries`, oldest first.
    ///
    /// For example: `let contents = EntryBook.Contents(entries: [])`.
    ///
    /// - Parameter entries: The entries, oldest first.
    public init(entries: [CashData]) {
      self.entries = entries
    }

    /// Every entry, newest first (index 1 of `warikan list` is the newest).
    ///
    /// For example: `contents.newestFirst.first?.memo`.
    public var newestFirst: [CashData] { entries.reversed() }

    /// The sum of every entry, in yen.
    ///
    /// For example: `print(Amount.format(try contents.total))`.
    ///
    /// - Throws: ``WarikanError/totalTooLarge`` when the sum does not fit in an `Int`.
    public var total: Int {
      get throws {
        var sum = 0
        for entry in entries {
          let (next, overflow) = sum.addingReportingOverflow(entry.cash)
          if overflow { throw WarikanError.totalTooLarge }
          sum = next
        }
        return sum
      }
    }

    /// The total split exactly among `people`.
    ///
    /// For example: `let split = try contents.split(among: 3)`.
    ///
    /// - Parameter people: How many people share the bill (1 or more).
    /// - Returns: The split.
    /// - Throws: ``WarikanError/invalidPeople(_:)`` or ``WarikanError/totalTooLarge``.
    public func split(among people: Int) throws -> BillSplit {
      try BillSplit(total: try total, people: people)
    }
  }

  /// Reads the bill without opening it for writing: no folder, file, lock file or journal is
  /// created, nothing is compacted or moved aside (a damaged file is an error), so a read-only
  /// command leaves the Documents folder exactly as it found it.
  ///
  /// For example:
  ///
  /// ```swift
  /// let entries = try EntryBook.read().newestFirst
  /// ```
  ///
  /// - Parameter location: Where `cashData.json` is; warikan's Documents folder by default.
  /// - Returns: The entries, with the journal's changes applied (none when there is no file).
  /// - Throws: ``DocumentError`` when the file can't be read or is damaged.
  public static func read(
    location: DocumentLocation = .documents(EntryBook.fileName, app: EntryBook.appIdentifier)
  ) throws -> Contents {
    Contents(entries: try DocumentStore<[CashData]>.read(location, defaultValue: []))
  }
}
