import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

@testable import TerminalUI

@Suite("Key decoder")
struct KeyDecoderTests {
  private func keys(_ bytes: [UInt8]) -> [Key] {
    var decoder = KeyDecoder()
    return decoder.decode(bytes) + decoder.flush()
  }

  @Test func namedKeysDecode() {
    #expect(keys([0x09]) == [.tab])
    #expect(keys(Array("\u{1B}[Z".utf8)) == [.backTab])
    #expect(keys([0x0D]) == [.enter])
    #expect(keys([0x0A]) == [.enter])
    #expect(keys([0x7F]) == [.backspace])
    #expect(keys([0x08]) == [.backspace])
    #expect(keys([0x03]) == [.interrupt])
    #expect(keys([0x04]) == [.control("d")])
    #expect(keys(Array("\u{1B}[3~".utf8)) == [.delete])
    #expect(keys(Array("\u{1B}[5~\u{1B}[6~".utf8)) == [.pageUp, .pageDown])
    #expect(keys(Array("\u{1B}[H\u{1B}[F\u{1B}[1~\u{1B}[4~".utf8)) == [.home, .end, .home, .end])
  }

  @Test func arrowsDecodeInBothCursorModes() {
    #expect(keys(Array("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D".utf8)) == [.up, .down, .right, .left])
    #expect(keys(Array("\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD".utf8)) == [.up, .down, .right, .left])
    // Modified arrows (Ctrl-→ is ESC [ 1 ; 5 C) still read as arrows.
    #expect(keys(Array("\u{1B}[1;5C".utf8)) == [.right])
  }

  @Test func printableUTF8IncludingJapaneseDecodes() {
    #expect(keys(Array("a¥高速代金🍣".utf8)) == "a¥高速代金🍣".map { Key.character($0) })
  }

  @Test func bytesSplitInsideACharacterOrSequenceWaitForTheRest() {
    var decoder = KeyDecoder()
    let bytes = Array("割".utf8)
    #expect(decoder.decode(bytes[0..<1]) == [])
    #expect(decoder.hasIncompleteInput)
    #expect(decoder.decode(bytes[1..<3]) == [.character("割")])
    #expect(decoder.decode([0x1B, UInt8(ascii: "[")]) == [])
    #expect(decoder.decode([UInt8(ascii: "A")]) == [.up])
    #expect(!decoder.hasIncompleteInput)
  }

  @Test func aLoneEscapeIsReportedWhenTheInputPauses() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x1B]) == [])
    #expect(decoder.hasIncompleteInput)
    #expect(decoder.flush() == [.escape])
    #expect(keys([0x1B, UInt8(ascii: "x")]) == [.escape, .character("x")])
    #expect(keys([0x1B, 0x1B]) == [.escape, .escape])
  }

  @Test func invalidBytesAndUnknownSequencesAreDropped() {
    #expect(keys([0xFF, UInt8(ascii: "a"), 0x80]) == [.character("a")])
    #expect(keys(Array("\u{1B}[99xb".utf8)) == [.character("b")])
    #expect(keys([0xE5, UInt8(ascii: "a")]) == [.character("a")])
    #expect(keys([0xC2, 0x85]) == [])  // C1 control NEL
  }
}
