import Foundation

/// One entry of the bill: an amount in yen, a memo and the short local time it was added, kept
/// in `cashData.json` exactly as the seed app writes it:
/// `{"id":"3F4D8393-8D86-4C81-AFB9-1854A5E38BDC","memo":"高速代金","cash":2800,"time":"22:38"}`.
///
/// For example:
///
/// ```swift
/// let entry = CashData(memo: "高速代金", cash: 2800, time: "22:38")
/// ```
public struct CashData: Codable, Identifiable, Hashable, Sendable {
  /// The entry's identifier (written as an upper-case UUID string).
  public var id: UUID
  /// What the money was for; may be empty.
  public var memo: String
  /// The amount in whole yen.
  public var cash: Int
  /// The local time the entry was added, as `H:mm` (`22:38`, `6:06`).
  public var time: String

  /// Creates an entry.
  ///
  /// For example:
  ///
  /// ```swift
  /// let entry = CashData(memo: "昼食", cash: 1200, time: ShortTime.string(from: Date()))
  /// ```
  ///
  /// - Parameters:
  ///   - id: The identifier; a new one by default.
  ///   - memo: What the money was for.
  ///   - cash: The amount in whole yen.
  ///   - time: The short local time, as `H:mm`.
  public init(id: UUID = UUID(), memo: String, cash: Int, time: String) {
    self.id = id
    self.memo = memo
    self.cash = cash
    self.time = time
  }
}
