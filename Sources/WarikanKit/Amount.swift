import Foundation

/// Amounts in whole yen: parsing what a user types and printing with separators.
///
/// For example:
///
/// ```swift
/// let yen = try Amount.parse("¥2,800")   // 2800
/// print(Amount.format(yen))              // ¥2,800
/// ```
public enum Amount {
  /// The largest amount accepted: one trillion yen (keeps every total far from overflow).
  public static let maximum = 1_000_000_000_000

  /// Parses a non-negative whole number of yen, with an optional `¥` (or `￥`) in front and
  /// optional `,` thousands separators; full-width digits are accepted.
  ///
  /// For example:
  ///
  /// ```swift
  /// try Amount.parse("2800")     // 2800
  /// try Amount.parse("¥10,000")  // 10000
  /// try Amount.parse("12.5")     // throws WarikanError.invalidAmount
  /// ```
  ///
  /// - Parameter text: What the user typed.
  /// - Returns: The amount in yen (0 or more).
  /// - Throws: ``WarikanError/invalidAmount(input:reason:)`` quoting the text.
  public static func parse(_ text: String) throws -> Int {
    func reject(_ reason: String) -> WarikanError { .invalidAmount(input: text, reason: reason) }
    var body = Substring(
      String(
        text.trimmingCharacters(in: .whitespaces).unicodeScalars.map { scalar -> Character in
          // Full-width digits and comma (typed with a Japanese input method).
          if (0xFF10...0xFF19).contains(scalar.value),
            let ascii = UnicodeScalar(scalar.value - 0xFEE0)
          {
            return Character(ascii)
          }
          if scalar == "，" { return "," }
          return Character(scalar)
        }))
    if body.first == "¥" || body.first == "￥" { body = body.dropFirst() }
    if body.hasSuffix("円") { body = body.dropLast() }
    if body.isEmpty { throw reject("it has no digits") }
    if body.first == "-" { throw reject("it is negative") }
    if let bad = body.first(where: { !$0.isASCII || !($0.isNumber || $0 == ",") }) {
      if bad == "." { throw reject("it has a decimal point; yen have no fractions") }
      throw reject("`\(bad)` is not a digit")
    }
    if body.contains(",") {
      let groups = body.split(separator: ",", omittingEmptySubsequences: false)
      guard let first = groups.first, (1...3).contains(first.count),
        groups.dropFirst().allSatisfy({ $0.count == 3 })
      else { throw reject("its `,` separators are not between groups of three digits") }
    }
    let digits = body.filter { $0 != "," }
    guard digits.count <= 13, let value = Int(digits), value <= maximum else {
      throw reject("it is above the largest amount, \(format(maximum))")
    }
    return value
  }

  /// Formats yen with a `¥` and `,` separators: `¥2,800` (`-¥500` below zero).
  ///
  /// For example: `Amount.format(10000)` is `"¥10,000"`.
  ///
  /// - Parameter yen: The amount.
  /// - Returns: The text.
  public static func format(_ yen: Int) -> String {
    (yen < 0 ? "-¥" : "¥") + grouped(Int(clamping: yen.magnitude))
  }

  /// Formats a whole number with `,` separators: `10,000`.
  ///
  /// For example: `Amount.grouped(3334)` is `"3,334"`.
  ///
  /// - Parameter value: The number.
  /// - Returns: The text.
  public static func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
      result.append(digit)
    }
    return (value < 0 ? "-" : "") + result
  }
}
