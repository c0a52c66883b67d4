import Foundation

/// A mistake in what the user asked of warikan: an amount that is not whole yen, a number of
/// people below one, an entry that isn't there.
///
/// For example:
///
/// ```swift
/// do {
///   _ = try Amount.parse("12.5")
/// } catch let error as WarikanError {
///   print(error)  // `12.5` is not an amount in yen: …
/// }
/// ```
public enum WarikanError: Error, Equatable, Sendable, CustomStringConvertible {
  /// An amount that is not a non-negative whole number of yen.
  ///
  /// - Parameters:
  ///   - input: The text, as given.
  ///   - reason: What is wrong with it.
  case invalidAmount(input: String, reason: String)
  /// An entry of zero yen (the seed app registers only amounts above zero).
  case zeroAmount(input: String)
  /// A number of people below one or above ``BillSplit/maximumPeople``.
  case invalidPeople(Int)
  /// No entry matches an index or identifier prefix.
  ///
  /// - Parameters:
  ///   - reference: The index or prefix, as given.
  ///   - count: How many entries there are.
  case noSuchEntry(reference: String, count: Int)
  /// Several entries match an identifier prefix, or the entry meant shares its identifier with
  /// another (possible only in a file edited by hand).
  ///
  /// - Parameters:
  ///   - reference: The prefix, as given.
  ///   - matches: The matching identifiers.
  case ambiguousEntry(reference: String, matches: [UUID])
  /// A total that would not fit in a whole number.
  case totalTooLarge
  /// A bill below zero (only possible when the file holds negative amounts).
  case negativeTotal(Int)

  /// What is wrong, quoting the input, and how to fix it.
  public var description: String {
    switch self {
    case .invalidAmount(let input, _) where input.allSatisfy(\.isWhitespace):
      return "The amount is empty: write a whole number of yen such as 2800, 2,800 or ¥2,800."
    case .invalidAmount(let input, let reason):
      return
        "`\(input)` is not an amount in yen: \(reason). Write a whole number of yen such as"
        + " 2800, 2,800 or ¥2,800."
    case .zeroAmount(let input):
      return "`\(input)` is zero yen: an entry needs an amount above zero."
    case .invalidPeople(let people):
      return
        "`\(people)` is not a number of people: use 1 to"
        + " \(Amount.grouped(BillSplit.maximumPeople))."
    case .noSuchEntry(let reference, let count):
      let entries = count == 1 ? "1 entry" : "\(count) entries"
      if reference.trimmingCharacters(in: .whitespaces).isEmpty {
        return
          "`\(reference)` names no entry: give a number shown by `warikan list` (1 is the newest)"
          + " or the start of an entry's id."
      }
      if reference.allSatisfy(\.isNumber) {
        return
          "There is no entry number `\(reference)`: there \(count == 1 ? "is" : "are")"
          + " \(entries). Use a number shown by `warikan list` (1 is the newest), or an id prefix"
          + " with a letter or `-` in it."
      }
      return
        "No entry has an id starting with `\(reference)` (\(entries)). See `warikan list`"
        + " for the ids."
    case .ambiguousEntry(let reference, let matches):
      if let first = matches.first, matches.allSatisfy({ $0 == first }) {
        return
          "`\(reference)` matches \(matches.count) entries that share the id `\(first.uuidString)`,"
          + " so warikan can't tell them apart: give one of them a new id in cashData.json."
      }
      let shown = matches.map { "`\($0.uuidString)`" }.joined(separator: ", ")
      return "`\(reference)` matches \(matches.count) entries (\(shown)): give more of the id."
    case .totalTooLarge:
      return "The total is too large to add up: delete some entries or `warikan reset`."
    case .negativeTotal(let total):
      return
        "The total is `\(Amount.format(total))`, below zero, so it can't be split: delete the"
        + " entries with negative amounts (see `warikan list`)."
    }
  }
}
