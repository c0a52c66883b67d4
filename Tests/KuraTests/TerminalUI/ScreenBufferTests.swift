import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

@testable import TerminalUI

@Suite("Screen buffer and ANSI renderer")
struct ScreenBufferTests {
  @Test func wideCharactersTakeTwoCellsAndAreClippedWhole() {
    var screen = ScreenBuffer(width: 7, height: 1)
    let end = screen.write("高速代金", row: 0, column: 0)
    #expect(end == 6)
    #expect(screen.text(row: 0) == "高速代 ")
    #expect(screen[0, 1].isContinuation)
    #expect(screen[0, 6] == .blank)
  }

  @Test func writingLimitsToTheColumnsGiven() {
    var screen = ScreenBuffer(width: 10, height: 1)
    screen.write("abcdef", row: 0, column: 2, limit: 3)
    #expect(screen.text(row: 0) == "  abc     ")
  }

  @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
    var screen = ScreenBuffer(width: 4, height: 1)
    screen.write("高速", row: 0, column: 0)
    screen.write("x", row: 0, column: 1)
    #expect(screen.text(row: 0) == " x速")
    screen.write("y", row: 0, column: 2)
    #expect(screen.text(row: 0) == " xy ")
  }

  @Test func controlCharactersNeverReachTheTerminal() {
    var screen = ScreenBuffer(width: 19, height: 1)
    screen.write("a\u{1B}[2Jb\u{202E}", row: 0, column: 0)
    #expect(screen.text(row: 0) == #"a\u{1B}[2Jb\u{202E}"#)
  }

  @Test func theFirstFrameClearsAndDrawsEverything() {
    var screen = ScreenBuffer(width: 3, height: 2)
    screen.write("ab", row: 0, column: 0)
    screen.write("c", row: 1, column: 0, style: Style(foreground: .red))
    var renderer = ANSIRenderer()
    #expect(
      renderer.render(screen)
        == "\u{1B}[0m\u{1B}[2J\u{1B}[1;1H\u{1B}[0mab \u{1B}[2;1H\u{1B}[0;31mc\u{1B}[0m  \u{1B}[0m")
  }

  @Test func laterFramesSendOnlyTheChangedRuns() {
    var screen = ScreenBuffer(width: 10, height: 3)
    screen.write("Total ¥100", row: 0, column: 0)
    var renderer = ANSIRenderer()
    _ = renderer.render(screen)
    #expect(renderer.render(screen) == "")
    screen.write("200", row: 0, column: 7)
    screen.write("x", row: 2, column: 9)
    #expect(renderer.render(screen) == "\u{1B}[1;8H\u{1B}[0m2\u{1B}[3;10Hx\u{1B}[0m")
  }

  @Test func aChangedWideCharacterIsRedrawnFromItsFirstHalf() {
    var screen = ScreenBuffer(width: 6, height: 1)
    screen.write("高速", row: 0, column: 0)
    var renderer = ANSIRenderer()
    _ = renderer.render(screen)
    screen.write("代", row: 0, column: 2)
    #expect(renderer.render(screen) == "\u{1B}[1;3H\u{1B}[0m代\u{1B}[0m")
    renderer.invalidate()
    #expect(renderer.render(screen).hasPrefix("\u{1B}[0m\u{1B}[2J"))
  }
}
