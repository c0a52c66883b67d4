/// Full-width digits, signs and decimal point (typed with a Japanese or Chinese input method:
/// `１２`, `－３`, `２．５`) made ASCII, so every number a user types accepts them: the
/// command-line tools and the full-screen app share this one rule.
///
/// For example:
///
/// ```swift
/// FullWidthDigits.ascii("２８００")  // "2800"
/// ```
package enum FullWidthDigits {
  /// The text with U+FF10–U+FF19, U+FF0B, U+FF0D and U+FF0E replaced by `0`–`9`, `+`, `-`, `.`.
  ///
  /// - Parameter text: What was typed.
  /// - Returns: The text with ASCII digits.
  package static func ascii(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { (0xFF0B...0xFF19).contains($0.value) }) else {
      return text
    }
    return String(
      String.UnicodeScalarView(
        text.unicodeScalars.map { scalar in
          switch scalar.value {
          case 0xFF10...0xFF19, 0xFF0B, 0xFF0D, 0xFF0E:
            return Unicode.Scalar(scalar.value - 0xFEE0) ?? scalar
          default: return scalar
          }
        }))
  }
}
