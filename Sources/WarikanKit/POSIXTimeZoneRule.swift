import Foundation

/// The standard part of a POSIX `TZ` rule: `std offset [dst [offset] [,rule]]`.
struct POSIXTimeZoneRule {
  /// Seconds east of UTC (the rule's own offset counts west, so its sign is flipped).
  var standardOffset: Int
  /// Whether a summer-time zone follows the standard offset.
  var hasSummerTime: Bool

  /// Parses a rule; `nil` when `text` is not one.
  init?(_ text: String) {
    var rest = Substring(text)
    guard Self.skipName(&rest), let west = Self.offset(&rest) else { return nil }
    standardOffset = -west
    hasSummerTime = !rest.isEmpty
    if hasSummerTime {
      // The rest must at least start with a zone name for the whole to be a rule.
      guard Self.skipName(&rest) else { return nil }
    }
  }

  /// Skips a zone name: three or more letters, or anything between `<` and `>`.
  private static func skipName(_ text: inout Substring) -> Bool {
    if text.first == "<" {
      guard let end = text.firstIndex(of: ">") else { return false }
      guard text.distance(from: text.startIndex, to: end) >= 4 else { return false }
      text = text[text.index(after: end)...]
      return true
    }
    let letters = text.prefix { $0.isASCII && $0.isLetter }
    guard letters.count >= 3 else { return false }
    text = text.dropFirst(letters.count)
    return true
  }

  /// Reads `[+-]hh[:mm[:ss]]` as seconds.
  private static func offset(_ text: inout Substring) -> Int? {
    var sign = 1
    if let first = text.first, first == "+" || first == "-" {
      sign = first == "-" ? -1 : 1
      text = text.dropFirst()
    }
    var seconds = 0
    var multiplier = 3600
    for part in 0..<3 {
      if part > 0 {
        guard text.first == ":" else { break }
        text = text.dropFirst()
      }
      let digits = text.prefix { $0.isASCII && $0.isNumber }
      guard (1...2).contains(digits.count), let value = Int(digits) else { return nil }
      guard part == 0 ? value <= 24 : value <= 59 else { return nil }
      seconds += value * multiplier
      multiplier /= 60
      text = text.dropFirst(digits.count)
    }
    return sign * seconds
  }
}
