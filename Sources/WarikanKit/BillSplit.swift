/// An exact split of a bill: every yen is paid, the remainder spread one yen each over the
/// first people (10,000 yen for 3 → 3,334 + 3,333 + 3,333).
///
/// For example:
///
/// ```swift
/// let split = try BillSplit(total: 10_000, people: 3)
/// print(split.shares)  // [3334, 3333, 3333]
/// ```
public struct BillSplit: Equatable, Sendable {
  /// The most people a bill is split among: one hundred thousand (a stadium's worth), so every
  /// number shown stays readable.
  ///
  /// For example: `try BillSplit(total: 100, people: BillSplit.maximumPeople + 1)` throws.
  public static let maximumPeople = 100_000

  /// The bill in yen.
  public let total: Int
  /// How many people share it (1 or more).
  public let people: Int
  /// What everyone pays at least: `total / people`, rounded down.
  public let baseShare: Int
  /// The yen left over by the division: that many people pay one yen more.
  public let remainder: Int

  /// Splits a bill.
  ///
  /// For example:
  ///
  /// ```swift
  /// let split = try BillSplit(total: 2800, people: 4)   // 700 each, no remainder
  /// ```
  ///
  /// - Parameters:
  ///   - total: The bill in yen (0 or more).
  ///   - people: How many people share it.
  /// - Throws: ``WarikanError/invalidPeople(_:)`` when `people` is below 1 or above
  ///   ``maximumPeople``,
  ///   ``WarikanError/negativeTotal(_:)`` when `total` is below 0.
  public init(total: Int, people: Int) throws {
    guard (1...Self.maximumPeople).contains(people) else {
      throw WarikanError.invalidPeople(people)
    }
    guard total >= 0 else { throw WarikanError.negativeTotal(total) }
    self.total = total
    self.people = people
    baseShare = total / people
    remainder = total % people
  }

  /// The share of each person, largest first; they add up to ``total``. It has ``people``
  /// elements: for a very large number of people, use ``groups``.
  ///
  /// For example: `try BillSplit(total: 10, people: 4).shares` is `[3, 3, 2, 2]`.
  public var shares: [Int] {
    Array(repeating: baseShare + 1, count: remainder)
      + Array(repeating: baseShare, count: people - remainder)
  }

  /// The shares grouped by amount, largest first: `[(3334, 1), (3333, 2)]`.
  ///
  /// For example:
  ///
  /// ```swift
  /// for (yen, count) in split.groups { print("\(count) × \(yen)") }
  /// ```
  public var groups: [(yen: Int, people: Int)] {
    var result: [(yen: Int, people: Int)] = []
    if remainder > 0 { result.append((baseShare + 1, remainder)) }
    if people - remainder > 0 { result.append((baseShare, people - remainder)) }
    return result
  }
}
