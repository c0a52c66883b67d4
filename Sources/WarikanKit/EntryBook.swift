import Foundation
import Kura
import Observation

/// The warikan bill: its entries, kept in `cashData.json` in the app's Documents folder (in the
/// seed app's exact JSON format), with adding, deleting, totals, splitting and reset.
///
/// Each change is saved when the call returns — one journal record, not a rewrite of the file —
/// and shows up in every other process that has the book open. It is `Observable`: SwiftUI views
/// and `withObservationTracking` see ``entries`` change; ``changes()`` is the async alternative.
///
/// For example:
///
/// ```swift
/// let book = try EntryBook()
/// try book.add(cash: try Amount.parse("¥2,800"), memo: "高速代金")
/// let split = try book.split(among: 3)
/// print(Amount.format(try book.total), split.shares)
/// ```
public final class EntryBook: Sendable, Observable {
  /// The seed's file name, `cashData.json`.
  public static let fileName = "cashData.json"
  /// The app identifier whose Documents folder holds the file, `warikan`.
  public static let appIdentifier = "warikan"

  /// The document holding the entries.
  public let store: DocumentStore<[CashData]>

  /// Opens the book (an empty one when there is no file yet).
  ///
  /// For example:
  ///
  /// ```swift
  /// let book = try EntryBook(options: DocumentOptions(onDamage: .quarantine))
  /// ```
  ///
  /// - Parameters:
  ///   - location: Where `cashData.json` is; warikan's Documents folder by default.
  ///   - options: Durability, damage handling and watching.
  /// - Throws: ``DocumentError`` when the file can't be read or is damaged.
  public init(
    location: DocumentLocation = .documents(EntryBook.fileName, app: EntryBook.appIdentifier),
    options: DocumentOptions = DocumentOptions()
  ) throws {
    store = try DocumentStore(location, options: options)
  }

  /// The file the entries live in.
  public var url: URL { store.url }

  /// Every entry, oldest first (the order of the file).
  ///
  /// For example: `book.entries.count`.
  public var entries: [CashData] { store.value }

  /// Every entry, newest first (the order `warikan list` shows; index 1 is the newest).
  ///
  /// For example: `book.newestFirst.first?.memo`.
  public var newestFirst: [CashData] { store.value.reversed() }

  /// The sum of every entry, in yen.
  ///
  /// For example: `print(Amount.format(try book.total))`.
  ///
  /// - Throws: ``WarikanError/totalTooLarge`` when the sum does not fit in an `Int`.
  public var total: Int {
    get throws { try Contents(entries: store.value).total }
  }

  /// The damage found at open when the book was opened with quarantine and its file was moved
  /// aside; `nil` otherwise.
  ///
  /// For example: `if let damage = book.recoveredDamage { print(damage) }`.
  public var recoveredDamage: DocumentError? { store.recoveredDamage }

  /// The error met while loading another process's change, when the last attempt failed (the
  /// entries are then the last good ones); `nil` otherwise.
  ///
  /// For example: `if let error = book.reloadError { print(error) }`.
  public var reloadError: DocumentError? { store.reloadError }

  /// Adds an entry stamped with the current short local time.
  ///
  /// For example:
  ///
  /// ```swift
  /// let entry = try book.add(cash: 2800, memo: "高速代金")
  /// ```
  ///
  /// - Parameters:
  ///   - cash: The amount in yen, above zero.
  ///   - memo: What it was for; may be empty.
  ///   - date: The moment it was spent; now by default.
  ///   - timeZone: The time zone for the short time; the user's by default.
  /// - Returns: The new entry.
  /// - Throws: ``WarikanError/zeroAmount(input:)`` for 0,
  ///   ``WarikanError/invalidAmount(input:reason:)`` for a negative or too large amount, or
  ///   ``DocumentError`` when it can't be saved.
  @discardableResult
  public func add(
    cash: Int, memo: String, date: Date = Date(), timeZone: TimeZone = ShortTime.userTimeZone()
  ) throws -> CashData {
    if cash == 0 { throw WarikanError.zeroAmount(input: "0") }
    if cash < 0 { throw WarikanError.invalidAmount(input: "\(cash)", reason: "it is negative") }
    if cash > Amount.maximum {
      throw WarikanError.invalidAmount(
        input: "\(cash)", reason: "it is above the largest amount, \(Amount.format(Amount.maximum))"
      )
    }
    let entry = CashData(memo: memo, cash: cash, time: ShortTime.string(from: date, in: timeZone))
    try store.append(entry)
    return entry
  }

  /// Adds an entry from an amount as typed (`2800`, `¥2,800`).
  ///
  /// For example:
  ///
  /// ```swift
  /// try book.add(amount: "¥2,800", memo: "高速代金")
  /// ```
  ///
  /// - Parameters:
  ///   - amount: The amount as typed; see ``Amount/parse(_:)``.
  ///   - memo: What it was for.
  ///   - date: The moment it was spent; now by default.
  ///   - timeZone: The time zone for the short time; the user's by default.
  /// - Returns: The new entry.
  /// - Throws: ``WarikanError`` quoting the amount, or ``DocumentError``.
  @discardableResult
  public func add(
    amount: String, memo: String, date: Date = Date(),
    timeZone: TimeZone = ShortTime.userTimeZone()
  ) throws -> CashData {
    let cash = try Amount.parse(amount)
    if cash == 0 { throw WarikanError.zeroAmount(input: amount) }
    return try add(cash: cash, memo: memo, date: date, timeZone: timeZone)
  }

  /// The entry a user means by an index (`1` is the newest, as `warikan list` numbers them) or
  /// a prefix of its id (any case; it must have a letter or `-` so it is not read as an index).
  ///
  /// For example:
  ///
  /// ```swift
  /// let newest = try book.entry(matching: "1")
  /// let byID = try book.entry(matching: "3f4d")
  /// ```
  ///
  /// - Parameter reference: The index or id prefix.
  /// - Returns: The entry.
  /// - Throws: ``WarikanError/noSuchEntry(reference:count:)`` or
  ///   ``WarikanError/ambiguousEntry(reference:matches:)``.
  public func entry(matching reference: String) throws -> CashData {
    let entries = newestFirst
    let word = reference.trimmingCharacters(in: .whitespaces)
    if !word.isEmpty, word.allSatisfy({ $0.isASCII && $0.isNumber }) {
      guard let index = Int(word), index >= 1, index <= entries.count else {
        throw WarikanError.noSuchEntry(reference: reference, count: entries.count)
      }
      return entries[index - 1]
    }
    let prefix = word.uppercased()
    let matches = prefix.isEmpty ? [] : entries.filter { $0.id.uuidString.hasPrefix(prefix) }
    if matches.count > 1 {
      throw WarikanError.ambiguousEntry(reference: reference, matches: matches.map(\.id))
    }
    guard let match = matches.first else {
      throw WarikanError.noSuchEntry(reference: reference, count: entries.count)
    }
    return match
  }

  /// Deletes the entry a user means by an index or id prefix (see ``entry(matching:)``).
  ///
  /// For example:
  ///
  /// ```swift
  /// let deleted = try book.delete(matching: "1")   // the newest
  /// ```
  ///
  /// - Parameter reference: The index or id prefix.
  /// - Returns: The deleted entry.
  /// - Throws: ``WarikanError`` when nothing (or several entries) match, or when the entry shares
  ///   its id with another; ``DocumentError`` when it can't be saved.
  @discardableResult
  public func delete(matching reference: String) throws -> CashData {
    let entry = try entry(matching: reference)
    // Removal goes by id: with two entries of one id (a file edited by hand) it could remove
    // the other one.
    let sharing = entries.filter { $0.id == entry.id }
    if sharing.count > 1 {
      throw WarikanError.ambiguousEntry(reference: reference, matches: sharing.map(\.id))
    }
    guard let removed = try store.remove(id: entry.id) else {
      // Another process deleted it in the meantime.
      throw WarikanError.noSuchEntry(reference: reference, count: entries.count)
    }
    return removed
  }

  /// Deletes an entry by id.
  ///
  /// For example: `try book.delete(id: entry.id)`.
  ///
  /// - Parameter id: The entry's id.
  /// - Returns: The deleted entry, or `nil` when there was none.
  /// - Throws: ``DocumentError`` when it can't be saved.
  @discardableResult
  public func delete(id: UUID) throws -> CashData? {
    try store.remove(id: id)
  }

  /// Splits the total among a number of people, exactly (see ``BillSplit``).
  ///
  /// For example:
  ///
  /// ```swift
  /// let split = try book.split(among: 3)
  /// ```
  ///
  /// - Parameter people: How many people share the bill (1 or more).
  /// - Returns: The split.
  /// - Throws: ``WarikanError/invalidPeople(_:)`` or ``WarikanError/totalTooLarge``.
  public func split(among people: Int) throws -> BillSplit {
    try Contents(entries: store.value).split(among: people)
  }

  /// Deletes every entry by removing the file (the seed's Reset).
  ///
  /// For example: `try book.reset()`.
  ///
  /// - Throws: ``DocumentError`` when the file can't be removed.
  public func reset() throws {
    try store.delete()
  }

  /// The entries now and after each change, by this process or another one (coalesced: a slow
  /// reader gets the newest entries).
  ///
  /// For example:
  ///
  /// ```swift
  /// for await entries in book.changes() { print(entries.count) }
  /// ```
  ///
  /// - Returns: An asynchronous sequence of entry lists (oldest first).
  public func changes() -> AsyncStream<[CashData]> {
    store.changes
  }

  /// Compacts the journal into `cashData.json` (plain JSON in the seed's format) and stops
  /// watching.
  ///
  /// For example: `try book.close()`.
  ///
  /// - Throws: ``DocumentError`` when the file can't be written (the changes stay safe in the
  ///   journal).
  public func close() throws {
    try store.close()
  }
}
