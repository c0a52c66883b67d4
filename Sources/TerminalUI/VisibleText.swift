/// Makes stored text safe to show on a terminal: every character that could move the cursor,
/// change colours, set the window title or reorder what follows is written as a visible escape
/// such as `\u{1B}`, so text read from a file can never drive the terminal.
///
/// Escaped: C0 control characters (U+0000–U+001F, tab and line feed included, so one value stays
/// on one line), DEL (U+007F), C1 control characters (U+0080–U+009F), the bidirectional
/// formatting characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), the line and
/// paragraph separators (U+2028, U+2029, which break a line as a line feed does) and the
/// invisible characters that hide a difference between two names (U+200B zero width space,
/// U+2060 word joiner, U+FEFF zero width no-break space). Every other character, Japanese text
/// and emoji included (their joiner U+200D too), is kept as it is.
///
/// For example:
///
/// ```swift
/// VisibleText.escaped("red \u{1B}[31m text")  // "red \\u{1B}[31m text"
/// VisibleText.escaped("高速代金")                // "高速代金"
/// ```
package enum VisibleText {
  /// Whether a scalar is written escaped.
  ///
  /// - Parameter scalar: The scalar.
  /// - Returns: `true` for control, bidirectional formatting, line separator and invisible
  ///   characters.
  package static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F: return true
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
    case 0x200B, 0x2028, 0x2029, 0x2060, 0xFEFF: return true
    default: return false
    }
  }

  /// Whether the text holds any character ``escaped(_:)`` would change.
  ///
  /// - Parameter text: The text.
  /// - Returns: `true` when escaping changes it.
  package static func needsEscape(_ text: some StringProtocol) -> Bool {
    text.unicodeScalars.contains(where: needsEscape)
  }

  /// The text with every control and bidirectional formatting character written as `\u{XX}`
  /// (hexadecimal, upper case, at least two digits).
  ///
  /// - Parameter text: Stored text.
  /// - Returns: Text safe to write to a terminal.
  package static func escaped(_ text: some StringProtocol) -> String {
    guard needsEscape(text) else { return String(text) }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      if needsEscape(scalar) {
        result.append(contentsOf: notation(scalar).unicodeScalars)
      } else {
        result.append(scalar)
      }
    }
    return String(result)
  }

  /// `\u{1B}` for U+001B.
  ///
  /// - Parameter scalar: The scalar.
  /// - Returns: Its visible notation.
  package static func notation(_ scalar: Unicode.Scalar) -> String {
    let hex = String(scalar.value, radix: 16, uppercase: true)
    return "\\u{" + (hex.count < 2 ? "0" + hex : hex) + "}"
  }
}
