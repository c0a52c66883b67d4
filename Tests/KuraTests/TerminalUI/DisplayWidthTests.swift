import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

@testable import TerminalUI

@Suite("Display width")
struct DisplayWidthTests {
  @Test func asciiTakesOneColumnEach() {
    #expect(DisplayWidth.of("warikan 2800") == 12)
    #expect(DisplayWidth.of("¥2,800") == 6)
  }

  @Test func kanjiKanaAndFullwidthFormsTakeTwoColumns() {
    #expect(DisplayWidth.of("高速代金") == 8)
    #expect(DisplayWidth.of("ひらがなカタカナ") == 16)
    #expect(DisplayWidth.of("ｶﾀｶﾅ") == 4)  // halfwidth katakana stay narrow
    #expect(DisplayWidth.of("ＡＢ１") == 6)
    #expect(DisplayWidth.of("\u{3000}") == 2)  // ideographic space
    #expect(DisplayWidth.of("한국어") == 6)
    #expect(DisplayWidth.of("￥") == 2)
  }

  @Test func combiningMarksAndFormatCharactersTakeNoColumn() {
    // か + combining voiced sound mark is one character, two columns.
    let decomposed = "か\u{3099}"
    #expect(decomposed.count == 1)
    #expect(DisplayWidth.of(decomposed) == 2)
    #expect(DisplayWidth.of(Unicode.Scalar(0x0301) ?? " ") == 0)
    #expect(DisplayWidth.of("e\u{0301}") == 1)
    #expect(DisplayWidth.of("a\u{200B}b") == 2)  // zero width space
    // Hangul built from jamo: the vowel and final consonant join the first.
    #expect(DisplayWidth.of("\u{1100}\u{1161}\u{11A8}") == 2)
  }

  @Test func emojiPresentationTakesTwoColumns() {
    #expect(DisplayWidth.of("🍣") == 2)
    #expect(DisplayWidth.of("👨‍👩‍👧") == 2)
    #expect(DisplayWidth.of("☺\u{FE0F}") == 2)
    #expect(DisplayWidth.of("☺") == 1)
  }

  @Test func controlCharactersTakeNoColumn() {
    #expect(DisplayWidth.of(Unicode.Scalar(0x1B) ?? " ") == 0)
    #expect(DisplayWidth.of(Unicode.Scalar(0x85) ?? " ") == 0)
  }

  @Test func truncationCountsColumnsAndNeverSplitsAWideCharacter() {
    #expect(DisplayWidth.truncate("高速代金です", toWidth: 12) == "高速代金です")
    #expect(DisplayWidth.truncate("高速代金です", toWidth: 7) == "高速代…")
    #expect(DisplayWidth.truncate("高速代金です", toWidth: 8) == "高速代…")
    #expect(DisplayWidth.truncate("高速代金です", toWidth: 2) == "…")
    #expect(DisplayWidth.truncate("abc", toWidth: 0) == "")
    #expect(DisplayWidth.truncate("abcdef", toWidth: 4, ellipsis: "") == "abcd")
  }

  @Test func paddingFillsExactlyTheColumnsAsked() {
    #expect(DisplayWidth.pad("高速", toWidth: 6) == "高速  ")
    #expect(DisplayWidth.padLeft("¥800", toWidth: 6) == "  ¥800")
    #expect(DisplayWidth.of(DisplayWidth.pad("高速代金です", toWidth: 7)) == 7)
  }
}
