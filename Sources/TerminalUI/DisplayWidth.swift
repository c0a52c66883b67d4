/// The number of terminal columns text takes, like POSIX `wcwidth`: East Asian wide and fullwidth
/// characters (kanji, kana, hangul, fullwidth forms, most emoji) take 2, combining marks and other
/// zero-width characters 0, everything else printable 1.
///
/// The wide ranges follow Unicode's EastAsianWidth.txt (`W` and `F`); zero width comes from the
/// general category (nonspacing and enclosing marks, format characters) and the hangul jamo
/// vowels and final consonants. Control characters count 0 here; ``ScreenBuffer`` never writes
/// them.
///
/// For example:
///
/// ```swift
/// DisplayWidth.of("高速代金")  // 8
/// DisplayWidth.of("¥2,800")    // 6
/// DisplayWidth.truncate("高速代金です", toWidth: 7)  // "高速代…"
/// ```
package enum DisplayWidth {
  /// The columns one Unicode scalar takes: 0, 1 or 2.
  ///
  /// - Parameter scalar: The scalar.
  /// - Returns: Its width.
  package static func of(_ scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if value < 0x20 || (0x7F...0x9F).contains(value) { return 0 }
    if value < 0x300 { return 1 }
    if value == 0xAD { return 1 }
    if isZeroWidth(value, scalar) { return 0 }
    if isWide(value) || scalar.properties.isEmojiPresentation { return 2 }
    return 1
  }

  /// The columns one character (a grapheme cluster) takes: the width of its first scalar, or 2
  /// when an emoji is asked for its emoji presentation (U+FE0F).
  ///
  /// - Parameter character: The character.
  /// - Returns: Its width.
  package static func of(_ character: Character) -> Int {
    if let ascii = character.asciiValue { return ascii < 0x20 || ascii == 0x7F ? 0 : 1 }
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    var width = of(first)
    if width == 0 {
      // A cluster made only of marks (rare): take the widest part.
      width = scalars.map { of($0) }.max() ?? 0
    }
    if width == 1, scalars.contains("\u{FE0F}"), first.properties.isEmoji { width = 2 }
    return width
  }

  /// The columns a string takes.
  ///
  /// - Parameter text: The string.
  /// - Returns: The sum of its characters' widths.
  package static func of(_ text: some StringProtocol) -> Int {
    text.reduce(0) { $0 + of($1) }
  }

  /// The longest prefix of `text` that fits in `width` columns, ending in `ellipsis` when it had
  /// to be cut. A wide character that would straddle the edge is left out.
  ///
  /// - Parameters:
  ///   - text: The string.
  ///   - width: The columns available.
  ///   - ellipsis: What marks a cut; empty for none.
  /// - Returns: The string itself when it fits, else the cut string.
  package static func truncate(_ text: String, toWidth width: Int, ellipsis: String = "…")
    -> String
  {
    guard width > 0 else { return "" }
    if of(text) <= width { return text }
    let room = max(0, width - of(ellipsis))
    var result = ""
    var used = 0
    for character in text {
      let columns = of(character)
      if used + columns > room { break }
      result.append(character)
      used += columns
    }
    return of(ellipsis) <= width ? result + ellipsis : result
  }

  /// `text` cut to `width` columns and padded with spaces to exactly `width` columns.
  ///
  /// - Parameters:
  ///   - text: The string.
  ///   - width: The columns to fill.
  ///   - ellipsis: What marks a cut.
  /// - Returns: A string exactly `width` columns wide.
  package static func pad(_ text: String, toWidth width: Int, ellipsis: String = "…") -> String {
    let cut = truncate(text, toWidth: width, ellipsis: ellipsis)
    return cut + String(repeating: " ", count: max(0, width - of(cut)))
  }

  /// `text` cut to `width` columns and padded on the left to exactly `width` columns.
  ///
  /// - Parameters:
  ///   - text: The string.
  ///   - width: The columns to fill.
  /// - Returns: A right-aligned string exactly `width` columns wide.
  package static func padLeft(_ text: String, toWidth width: Int) -> String {
    let cut = truncate(text, toWidth: width)
    return String(repeating: " ", count: max(0, width - of(cut))) + cut
  }

  private static func isZeroWidth(_ value: UInt32, _ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format:
      return true
    default:
      // Hangul jamo medial vowels and final consonants join the preceding initial consonant.
      return (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value)
    }
  }

  private static func isWide(_ value: UInt32) -> Bool {
    var low = 0
    var high = wideRanges.count - 1
    while low <= high {
      let middle = (low + high) / 2
      let range = wideRanges[middle]
      if value < range.lowerBound {
        high = middle - 1
      } else if value > range.upperBound {
        low = middle + 1
      } else {
        return true
      }
    }
    return false
  }

  /// East Asian Wide (W) and Fullwidth (F) ranges of Unicode 15, sorted, emoji left to the
  /// `isEmojiPresentation` property.
  private static let wideRanges: [ClosedRange<UInt32>] = [
    0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x2E99, 0x2E9B...0x2EF3, 0x2F00...0x2FD5,
    0x2FF0...0x2FFF, 0x3000...0x303E, 0x3041...0x3096, 0x3099...0x30FF, 0x3105...0x312F,
    0x3131...0x318E, 0x3190...0x31E3, 0x31EF...0x321E, 0x3220...0x3247, 0x3250...0x4DBF,
    0x4E00...0xA48C, 0xA490...0xA4C6, 0xA960...0xA97C, 0xAC00...0xD7A3, 0xF900...0xFAFF,
    0xFE10...0xFE19, 0xFE30...0xFE52, 0xFE54...0xFE66, 0xFE68...0xFE6B, 0xFF01...0xFF60,
    0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x16FF0...0x16FF1, 0x17000...0x187F7,
    0x18800...0x18CD5, 0x18D00...0x18D08, 0x1AFF0...0x1AFFE, 0x1B000...0x1B122,
    0x1B132...0x1B132, 0x1B150...0x1B152, 0x1B155...0x1B155, 0x1B164...0x1B167,
    0x1B170...0x1B2FB, 0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248,
    0x1F250...0x1F251, 0x1F260...0x1F265, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
  ]
}
