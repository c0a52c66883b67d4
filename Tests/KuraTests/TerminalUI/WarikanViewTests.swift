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

@Suite("Warikan screen rendering")
struct WarikanViewTests {
  private let rows = [
    CashData(memo: "高速代金", cash: 2800, time: "22:38"),
    CashData(memo: "夕食", cash: 12_000, time: "22:40"),
    CashData(memo: "とても長いメモがここに入ります。切り詰められるはずです", cash: 200, time: "6:06"),
  ]
  private let size = TerminalSize(columns: 60, rows: 16)

  private func lines(_ state: WarikanState, size: TerminalSize? = nil) -> [String] {
    WarikanView.render(state, size: size ?? self.size).lines
  }

  @Test func theAddTabShowsTotalFieldsButtonsAndLatestEntries() {
    let state = WarikanState(draft: WarikanDraft(amount: "12a", memo: "駐車場"), entries: rows)
    #expect(
      lines(state) == [
        " [ Add ]   List     Calc                   warikan  ¥15,000",
        "────────────────────────────────────────────────────────────",
        " Total  ¥15,000",
        "",
        " ▸ Amount [12a                         ] not a number",
        "   Memo   [駐車場                      ]",
        "",
        "   [ Register ]  [ Reset ]  [ All 3 entries ]",
        "",
        " Latest entries",
        "    6:06     ¥200  とても長いメモがここに入ります。切り詰…",
        "   22:40  ¥12,000  夕食",
        "   22:38   ¥2,800  高速代金",
        "",
        "",
        " ←/→ tabs · Tab/↑/↓ move · Enter next field · Ctrl-C quit",
      ])
  }

  @Test func anInvalidAmountIsDrawnInRed() {
    let state = WarikanState(draft: WarikanDraft(amount: "12a"))
    let screen = WarikanView.render(state, size: size)
    #expect(screen[4, 11].character == "1")
    #expect(screen[4, 11].style.foreground == .red)
    #expect(screen[4, 40].style.foreground == .red)
    let valid = WarikanView.render(WarikanState(draft: WarikanDraft(amount: "12")), size: size)
    #expect(valid[4, 11].style.foreground == nil)
  }

  @Test func theListTabShowsEveryEntryNewestFirstWithTheSelection() {
    var state = WarikanState(draft: WarikanDraft(tab: .list), entries: rows)
    state.listSelection = 1
    #expect(
      Array(lines(state).prefix(8)) == [
        "   Add   [ List ]   Calc                   warikan  ¥15,000",
        "────────────────────────────────────────────────────────────",
        " 3 entries, newest first · Total ¥15,000",
        "",
        "    6:06     ¥200  とても長いメモがここに入ります。切り詰…",
        " ▸ 22:40  ¥12,000  夕食",
        "   22:38   ¥2,800  高速代金",
        "",
      ])
    let screen = WarikanView.render(state, size: size)
    #expect(screen[5, 4].style.inverse)
    #expect(!screen[4, 4].style.inverse)
  }

  @Test func aLongListScrollsToKeepTheSelectionInView() {
    let many = (1...30).map { CashData(memo: "#\($0)", cash: $0 * 100, time: "9:00") }
    var state = WarikanState(draft: WarikanDraft(tab: .list), entries: many)
    state.listSelection = 20
    let shown = lines(state)
    #expect(shown[4] == "    9:00  ¥1,800  #18")
    #expect(shown[12] == " ▸  9:00  ¥1,000  #10")
    #expect(shown[13] == "   ↑ 12 above · ↓ 9 below")
  }

  @Test func theCalcTabShowsTheExactSplit() {
    var state = WarikanState(
      draft: WarikanDraft(tab: .calc),
      entries: [CashData(memo: "", cash: 10_000, time: "9:00")])
    state.people = 3
    state.calcFocus = .customPeople
    state.customPeopleText = "0"
    #expect(
      lines(state) == [
        "   Add     List   [ Calc ]                 warikan  ¥10,000",
        "────────────────────────────────────────────────────────────",
        " Total  ¥10,000",
        "",
        " People  [ 2 ] [ 3 ] [ 4 ]  Custom [0      ] 1 to 100,000",
        "",
        " Split between 3 people:",
        "   ¥3,334 × 1 + ¥3,333 × 2 (remainder ¥1 spread)",
        "   ¥3,334 + ¥3,333 + ¥3,333 = ¥10,000",
        "",
        "   Person 1  ¥3,334",
        "   Person 2  ¥3,333",
        "   Person 3  ¥3,333",
        "",
        "",
        " ←/→ tabs · Tab/↑/↓ move · Enter choose · Ctrl-C quit",
      ])
  }

  @Test func manyPeopleAreSummarisedWhenTheyDoNotFit() {
    var state = WarikanState(
      draft: WarikanDraft(tab: .calc),
      entries: [CashData(memo: "", cash: 100, time: "9:00")])
    state.people = 40
    let shown = lines(state)
    #expect(shown[7] == "   ¥3 × 20 + ¥2 × 20 (remainder ¥20 spread)")
    #expect(shown[10] == "   Person 1  ¥3")
    #expect(shown[12] == "   Person 3  ¥3")
    #expect(shown[13] == "   … 37 more")
  }

  @Test func theResetQuestionIsDrawnOverTheTab() {
    var state = WarikanState(entries: rows)
    state.dialog = WarikanDialog(action: .reset)
    let shown = lines(state)
    #expect(shown[5] == "   Memo  ┌───────────────────────────────────────┐")
    #expect(shown[6] == "         │ Reset: delete all 3 entries?          │")
    #expect(shown[7] == "   [ Regi│ Total ¥15,000. This cannot be undone. │")
    #expect(shown[8] == "         │         [>Cancel<]  [ Reset ]         │")
    #expect(shown[15] == " ←/→ choose · Enter confirm · y yes · n/Esc cancel")
  }

  @Test func statusMessagesShowAboveTheHelp() {
    var state = WarikanState()
    state.message = .init(text: "Registered ¥2,800 高速代金.", isError: false)
    let screen = WarikanView.render(state, size: size)
    #expect(screen.lines[14] == " Registered ¥2,800 高速代金.")
    #expect(screen[14, 1].style.foreground == .green)
  }

  @Test func typingOneCharacterRedrawsOnlyTheCellsThatChanged() {
    var state = WarikanState(entries: rows)
    var renderer = ANSIRenderer()
    let full = renderer.render(WarikanView.render(state, size: size))
    state.handle(.key(.character("5")))
    let update = renderer.render(WarikanView.render(state, size: size))
    // The field's first cell becomes `5` and the cursor cell moves one column right; the help
    // line is unchanged, so nothing else is sent.
    #expect(
      update
        == "\u{1B}[5;12H\u{1B}[0;4m5\u{1B}[0;7m \u{1B}[0m")
    #expect(full.utf8.count > 1000)
  }

  @Test func aTinyWindowAsksForMoreRoom() {
    #expect(
      lines(WarikanState(), size: TerminalSize(columns: 30, rows: 8)) == [
        "Window too small: 30×8.", "Needs 40×12.", "", "", "", "", "", "",
      ])
  }

  @Test func everyLineFitsTheWindowWhateverItsWidth() {
    var state = WarikanState(draft: WarikanDraft(amount: "高速代金高速代金高速代金高速代金"), entries: rows)
    state.people = 7
    state.message = .init(text: String(repeating: "長いメッセージ", count: 20), isError: true)
    let dialogs: [WarikanDialog?] = [
      nil, WarikanDialog(action: .reset), WarikanDialog(action: .delete(rows[2])),
    ]
    for columns in 40...90 {
      for tab in WarikanTab.allCases {
        for dialog in dialogs {
          state.tab = tab
          state.dialog = dialog
          let screen = WarikanView.render(state, size: TerminalSize(columns: columns, rows: 12))
          for row in 0..<screen.height {
            #expect(DisplayWidth.of(screen.text(row: row)) == columns)
            #expect(!screen[row, 0].isContinuation)
          }
        }
      }
    }
  }

  @Test func everyWidthFrom40ShowsTheTotalAndCutsWithAnEllipsis() {
    let big = rows + [CashData(memo: "車", cash: 987_654_321, time: "23:00")]
    let total = "¥987,669,321"
    for columns in 40...120 {
      for tab in WarikanTab.allCases {
        var state = WarikanState(draft: WarikanDraft(tab: tab), entries: big)
        state.calcFocus = .customPeople
        let shown = lines(state, size: TerminalSize(columns: columns, rows: 15))
        #expect(shown[0].hasSuffix(total), "header at \(columns) columns, \(tab): \(shown[0])")
        // The key help is whole or cut with `…`, never cut silently.
        let help = " " + WarikanView.help(for: state)
        #expect(
          shown[14] == help || (shown[14].hasSuffix("…") && columns <= DisplayWidth.of(help)),
          "help at \(columns) columns: \(shown[14])")
        if tab == .list { #expect(shown[2].hasSuffix(total), "\(columns): \(shown[2])") }
        if tab == .calc {
          #expect(shown.contains { $0.contains("Custom [") }, "\(columns): custom field missing")
        }
      }
    }
    // At 40 columns the button row ends in a cut label, not a cut bracket.
    let narrow = lines(WarikanState(entries: big), size: TerminalSize(columns: 40, rows: 15))
    #expect(narrow[0] == " [Add]  List   Calc        ¥987,669,321")
    #expect(narrow[7] == "   [ Register ]  [ Reset ]  [ All 4 … ]")
    #expect(narrow[14] == " ←/→ tabs · Tab/↑/↓ move · Enter next f…")
  }

  @Test func theFocusedFieldShowsItsCursorWhereEditingHappens() {
    var state = WarikanState(draft: WarikanDraft(amount: "2800"))
    state.handle(.key(.left))
    state.handle(.key(.left))
    let screen = WarikanView.render(state, size: size)
    // `0` under the cursor is drawn in inverse; no cursor cell after the text.
    #expect(screen.text(row: 4).hasPrefix(" ▸ Amount [2800 "))
    #expect(screen[4, 13].character == "0")
    #expect(screen[4, 13].style.inverse)
    #expect(!screen[4, 15].style.inverse)
  }

  @Test func storedControlCharactersAreDrawnVisiblyAsTheToolsPrintThem() {
    let hostile = CashData(memo: "赤\u{1B}[31m\u{202E}字", cash: 100, time: "9:00")
    let state = WarikanState(draft: WarikanDraft(tab: .list), entries: [hostile])
    let shown = lines(state)
    #expect(shown.contains(" ▸  9:00  ¥100  赤\\u{1B}[31m\\u{202E}字"))
    #expect(!shown.joined().unicodeScalars.contains { VisibleText.needsEscape($0) })
  }
}
