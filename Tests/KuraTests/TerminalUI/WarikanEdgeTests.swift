import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing
import WarikanKit

@testable import TerminalUI
@testable import WarikanTUI

/// The full-screen app at its edges (issue 23): the smallest window, the largest party.
@Suite("Warikan screen at its edges")
struct WarikanEdgeTests {
  private let five = (1...5).map { CashData(memo: "m\($0)", cash: $0 * 100, time: "9:0\($0)") }

  @Test func theSmallestWindowShowsAsManyEntriesAsFit() {
    let state = WarikanState(entries: five)
    let shown = WarikanView.render(state, size: WarikanView.minimumSize).lines
    #expect(
      shown == [
        " [Add]  List   Calc              ¥1,500",
        "────────────────────────────────────────",
        " Total  ¥1,500",
        " ▸ Amount [                        ]",
        "   Memo   [                        ]",
        "   [ Register ]  [ Reset ]  [ All 5 … ]",
        " Latest entries",
        "    9:05  ¥500  m5",
        "    9:04  ¥400  m4",
        "    9:03  ¥300  m3",
        shown[10], shown[11],
      ])
    #expect(!shown.joined().contains("None yet."))
    // With room, the blank lines are back and every entry shows.
    let tall = WarikanView.render(state, size: TerminalSize(columns: 40, rows: 20)).lines
    #expect(tall[3] == "" && tall[6] == "" && tall[8] == "")
    #expect(tall[9] == " Latest entries")
    #expect(
      tall[10...14].map { $0.trimmingCharacters(in: .whitespaces) }.allSatisfy {
        $0.hasPrefix("9:0")
      })
    // No entries: "None yet." still shows at the smallest size.
    let empty = WarikanView.render(WarikanState(), size: WarikanView.minimumSize).lines
    #expect(empty[7] == "   None yet.")
  }

  @Test func theCustomFieldStopsAtTheLargestPartyAndEveryCountIsGrouped() {
    var state = WarikanState(
      draft: WarikanDraft(tab: .calc), entries: [CashData(memo: "", cash: 12_000, time: "9:00")])
    state.calcFocus = .customPeople
    for digit in "99999999999999999999" { state.handle(.key(.character(digit))) }
    // The fifth digit is the last one taken (99,999); the sixth is refused with the cap.
    #expect(state.customPeopleText == "99999")
    #expect(state.people == 99_999)
    #expect(state.message?.text == "A bill is split among at most 100,000 people.")
    #expect(state.message?.isError == true)
    let shown = WarikanView.render(state, size: TerminalSize(columns: 60, rows: 16)).lines
    #expect(shown.contains { $0.hasPrefix(" People  [ 2 ] [ 3 ] [ 4 ]  Custom [99999  ]") })
    #expect(shown.contains { $0.hasPrefix(" Split between 99,999 people:") })
    #expect(
      shown.contains { $0.hasPrefix("   ¥1 × 12,000 + ¥0 × 87,999 (remainder ¥12,000 spread)") })
    #expect(shown.contains { $0.hasPrefix("   … 99,") && $0.contains(" more") })
    // Cleared, then exactly the cap is taken.
    for _ in 0..<5 { state.handle(.key(.backspace)) }
    #expect(state.customPeopleText == "")
    for digit in "100000" { state.handle(.key(.character(digit))) }
    #expect(state.customPeopleText == "100000")
    #expect(state.people == 100_000)
  }
}

/// The full-screen app started in a real terminal (tmux) with a `TZ` it doesn't know.
/// (Without tmux, `TmuxSession` fails the test with the command that installs it.)
@Suite("Warikan terminal app at its edges", .serialized)
struct WarikanTerminalEdgeTests {
  @Test func anUnknownTimeZoneIsSaidOnTheStatusLine() throws {
    let directory = TemporaryDirectory()
    var environment = directory.environment
    environment["TZ"] = "Bogus/Zone"
    let app = try TmuxSession(
      "exec " + shellQuoted(try executable("warikan").path), environment: environment,
      columns: 100, rows: 24)
    let screen = try app.waitFor("TZ=Bogus/Zone names no time zone")
    #expect(screen.contains(" Total  ¥0"))
  }
}
