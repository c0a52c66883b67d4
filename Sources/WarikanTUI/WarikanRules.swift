import TerminalUI
import WarikanKit

/// The bill-splitting rules as the screen uses them, from WarikanKit: reading an amount or a
/// number of people as typed, the exact split and how yen are written.
///
/// For example:
///
/// ```swift
/// WarikanRules.amount("¥2,800")  // 2800
/// WarikanRules.yen(12_800)       // "¥12,800"
/// ```
package enum WarikanRules {
  /// The yen an amount field holds (see WarikanKit's `Amount.parse`).
  ///
  /// - Parameter text: What was typed.
  /// - Returns: The amount, or `nil` when it is not an amount.
  package static func amount(_ text: String) -> Int? {
    try? Amount.parse(text)
  }

  /// Why an amount field's text is not an amount, in WarikanKit's words (it quotes the text).
  ///
  /// - Parameter text: What was typed.
  /// - Returns: The message, or `nil` when the text is an amount.
  package static func amountProblem(_ text: String) -> String? {
    do {
      _ = try Amount.parse(text)
      return nil
    } catch {
      return "\(error)"
    }
  }

  /// The most people a bill is split among (WarikanKit's `BillSplit.maximumPeople`).
  package static var maximumPeople: Int { BillSplit.maximumPeople }

  /// The number of people a custom field holds: a whole number from 1 to ``maximumPeople``.
  ///
  /// - Parameter text: What was typed.
  /// - Returns: The number, or `nil` when it is not a whole number in that range.
  package static func people(_ text: String) -> Int? {
    let text = FullWidthDigits.ascii(text)
    guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }),
      let value = Int(text), (1...maximumPeople).contains(value)
    else { return nil }
    return value
  }

  /// Whether the text is all digits and more than ``maximumPeople``.
  ///
  /// - Parameter text: What was typed.
  /// - Returns: `true` for a number of people above the cap.
  package static func isAboveMaximumPeople(_ text: String) -> Bool {
    let text = FullWidthDigits.ascii(text)
    guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
    return Int(text).map { $0 > maximumPeople } ?? true
  }

  /// Yen written with a sign and thousands separators: `¥12,800`.
  ///
  /// - Parameter amount: The yen.
  /// - Returns: The text.
  package static func yen(_ amount: Int) -> String {
    Amount.format(amount)
  }
}
