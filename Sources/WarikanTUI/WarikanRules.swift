import Foundation

/// The bill-splitting rules the screen needs: reading an amount, reading a number of people,
/// the exact split and how yen are written.
///
/// Pending WarikanKit (issue 4): these delegate to WarikanKit once it is merged.
///
/// For example:
///
/// ```swift
/// WarikanRules.amount("¥2,800")        // 2800
/// WarikanRules.split(10_000, people: 3) // [3334, 3333, 3333]
/// WarikanRules.yen(12_800)              // "¥12,800"
/// ```
package enum WarikanRules {
  /// The yen an amount field holds: a non-negative whole number with optional `¥` and `,`.
  ///
  /// - Parameter text: What was typed.
  /// - Returns: The amount, or `nil` when it is empty or not such a number.
  package static func amount(_ text: String) -> Int? {
    var digits = text.trimmingCharacters(in: .whitespaces)
    if digits.hasPrefix("¥") || digits.hasPrefix("￥") { digits.removeFirst() }
    digits = digits.replacingOccurrences(of: ",", with: "")
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
    return Int(digits)
  }

  /// The number of people a custom field holds: a whole number, 1 or more.
  ///
  /// - Parameter text: What was typed.
  /// - Returns: The number, or `nil` when it is not a whole number ≥ 1.
  package static func people(_ text: String) -> Int? {
    guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }),
      let value = Int(text), value >= 1
    else { return nil }
    return value
  }

  /// Splits a total between people exactly: everyone pays the quotient, and the first
  /// `remainder` people pay one yen more.
  ///
  /// - Parameters:
  ///   - total: The yen to split.
  ///   - people: How many people (at least 1).
  /// - Returns: Each person's share; they add up to `total`.
  package static func split(_ total: Int, people: Int) -> [Int] {
    let count = max(1, people)
    let base = total / count
    let remainder = total % count
    return (0..<count).map { $0 < remainder ? base + 1 : base }
  }

  /// Yen written with a sign and thousands separators: `¥12,800`.
  ///
  /// - Parameter amount: The yen.
  /// - Returns: The text.
  package static func yen(_ amount: Int) -> String {
    let digits = String(amount.magnitude)
    var grouped = ""
    for (index, digit) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
      grouped.append(digit)
    }
    return (amount < 0 ? "-¥" : "¥") + grouped
  }
}
