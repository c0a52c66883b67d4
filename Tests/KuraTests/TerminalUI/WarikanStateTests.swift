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

@Suite("Warikan screen model")
struct WarikanStateTests {
  private let rows = [
    CashData(memo: "高速代金", cash: 2800, time: "22:38"),
    CashData(memo: "夕食", cash: 5000, time: "22:40"),
    CashData(memo: "", cash: 2200, time: "6:06"),
  ]

  private func type(_ text: String, into state: inout WarikanState) -> [WarikanEffect] {
    text.flatMap { state.handle(.key(.character($0))) }
  }

  @Test func registerAddsTheTypedAmountAndMemoAndClearsTheDraft() {
    var state = WarikanState()
    _ = type("2,800", into: &state)
    #expect(state.handle(.key(.enter)) == [])
    #expect(state.focus == .memo)
    _ = type("高速代金", into: &state)
    let effects = state.handle(.key(.enter))
    #expect(
      effects == [.add(cash: 2800, memo: "高速代金"), .saveDraft(WarikanDraft(tab: .add))])
    #expect(state.amountText == "")
    #expect(state.memoText == "")
    #expect(state.focus == .amount)
    #expect(state.message == .init(text: "Registered ¥2,800 高速代金.", isError: false))
  }

  @Test func theRegisterButtonActsLikeEnterInTheMemoField() {
    var state = WarikanState()
    _ = type("¥1500", into: &state)
    state.handle(.key(.tab))
    state.handle(.key(.tab))
    #expect(state.focus == .register)
    #expect(state.handle(.key(.enter)).first == .add(cash: 1500, memo: ""))
  }

  @Test func anAmountThatIsNotANumberIsFlaggedAndRefused() {
    var state = WarikanState()
    _ = type("12a", into: &state)
    #expect(state.amountIsInvalid)
    state.handle(.key(.tab))
    #expect(state.handle(.key(.enter)) == [])
    #expect(
      state.message
        == .init(
          text: "`12a` is not an amount in yen: `a` is not a digit. Write a whole number of yen"
            + " such as 2800, 2,800 or ¥2,800.",
          isError: true))
    #expect(state.focus == .amount)
    state.handle(.key(.backspace))
    #expect(!state.amountIsInvalid)
    #expect(state.amountText == "12")
    #expect(state.message == nil)
  }

  @Test func zeroAndEmptyAmountsAreRefused() {
    var state = WarikanState()
    state.handle(.key(.tab))
    #expect(state.handle(.key(.enter)) == [])
    #expect(state.message?.text == "Type an amount in yen first, such as 2800.")
    #expect(state.focus == .amount)
    _ = type("0", into: &state)
    #expect(!state.amountIsInvalid)
    state.handle(.key(.tab))
    #expect(state.handle(.key(.enter)) == [])
    #expect(state.message?.text == "`0` is zero yen: an entry needs an amount above zero.")
  }

  @Test func resetAsksFirstAndCancelIsTheDefault() {
    var state = WarikanState(entries: rows)
    _ = type("99", into: &state)
    state.handle(.key(.tab))
    state.handle(.key(.tab))
    state.handle(.key(.tab))
    #expect(state.focus == .reset)
    #expect(state.handle(.key(.enter)) == [])
    #expect(state.dialog == WarikanDialog(action: .reset))
    #expect(state.handle(.key(.enter)) == [])
    #expect(state.dialog == nil)
    #expect(state.amountText == "99")

    state.handle(.key(.enter))
    state.handle(.key(.right))
    #expect(state.dialog?.confirmSelected == true)
    #expect(state.handle(.key(.enter)) == [.reset, .saveDraft(WarikanDraft(tab: .add))])
    #expect(state.dialog == nil)
    #expect(state.message?.text == "Reset: every entry was deleted.")
  }

  @Test func resetWithNoEntriesSaysThereIsNothingToReset() {
    var state = WarikanState()
    state.addFocus = .reset
    #expect(state.handle(.key(.enter)) == [])
    #expect(state.dialog == nil)
    #expect(state.message?.text == "Nothing to reset: there are no entries.")
  }

  @Test func theListShowsNewestFirstAndDeleteAsksFirst() throws {
    var state = WarikanState(entries: rows)
    #expect(state.handle(.key(.right)) == [.saveDraft(WarikanDraft(tab: .list))])
    #expect(state.newestFirst.map(\.cash) == [2200, 5000, 2800])
    state.handle(.key(.down))
    #expect(state.listSelection == 1)
    state.handle(.key(.enter))
    #expect(state.dialog == WarikanDialog(action: .delete(rows[1])))
    state.handle(.key(.character("n")))
    #expect(state.dialog == nil)
    state.handle(.key(.character("d")))
    #expect(state.handle(.key(.character("y"))) == [.delete(id: rows[1].id)])
    #expect(state.message?.text == "Deleted ¥5,000 夕食.")
  }

  @Test func selectionStaysInsideTheList() {
    var state = WarikanState(draft: WarikanDraft(tab: .list), entries: rows)
    state.handle(.key(.up))
    #expect(state.listSelection == 0)
    state.handle(.key(.end))
    #expect(state.listSelection == 2)
    state.handle(.key(.down))
    #expect(state.listSelection == 2)
    state.handle(.entriesChanged(Array(rows.prefix(1))))
    #expect(state.listSelection == 0)
  }

  @Test func anEntryDeletedElsewhereClosesItsQuestion() {
    var state = WarikanState(draft: WarikanDraft(tab: .list), entries: rows)
    state.handle(.key(.enter))
    #expect(state.dialog != nil)
    state.handle(.entriesChanged(Array(rows.prefix(2))))
    #expect(state.dialog == nil)
    #expect(state.message?.text == "That entry was deleted elsewhere.")
  }

  @Test func calcSplitsExactlyWithTheRemainderSpread() {
    var state = WarikanState(
      draft: WarikanDraft(tab: .calc),
      entries: [CashData(memo: "", cash: 10_000, time: "9:00")])
    #expect(state.split?.shares == [5000, 5000])
    state.handle(.key(.tab))
    #expect(state.focus == .people(3))
    state.handle(.key(.enter))
    #expect(state.people == 3)
    #expect(state.split?.shares == [3334, 3333, 3333])
    state.handle(.key(.tab))
    state.handle(.key(.enter))
    #expect(state.split?.shares == [2500, 2500, 2500, 2500])
  }

  @Test func customPeopleMustBeAWholeNumberOfAtLeastOne() {
    var state = WarikanState(
      draft: WarikanDraft(tab: .calc),
      entries: [CashData(memo: "", cash: 10_000, time: "9:00")])
    state.handle(.key(.backTab))
    #expect(state.focus == .customPeople)
    _ = type("7", into: &state)
    #expect(state.people == 7)
    #expect(state.split?.shares == [1429, 1429, 1429, 1429, 1428, 1428, 1428])
    #expect(state.split?.shares.reduce(0, +) == 10_000)
    #expect(state.split?.remainder == 4)
    state.handle(.key(.backspace))
    _ = type("0", into: &state)
    #expect(state.customPeopleIsInvalid)
    #expect(state.people == 7)
    state.handle(.key(.enter))
    #expect(
      state.message?.text
        == "`0` is not a number of people: type a whole number from 1 to 100,000.")
    state.handle(.key(.backspace))
    _ = type("1", into: &state)
    #expect(state.split?.shares == [10_000])
  }

  @Test func quitKeysQuitWithoutSavingTheDraft() {
    var state = WarikanState()
    _ = type("q", into: &state)
    #expect(state.amountText == "q")
    #expect(!state.isQuitting)
    state.handle(.key(.tab))
    state.handle(.key(.tab))
    #expect(state.handle(.key(.character("q"))) == [.quit])
    #expect(state.isQuitting)

    var typing = WarikanState()
    _ = type("1", into: &typing)
    #expect(typing.handle(.key(.interrupt)) == [.quit])
  }

  @Test func theDraftIsSavedWhenAmountMemoOrTabChangeAndOnlyThen() {
    var state = WarikanState()
    #expect(
      state.handle(.key(.character("5"))) == [.saveDraft(WarikanDraft(amount: "5", tab: .add))])
    #expect(state.handle(.key(.tab)) == [])
    #expect(
      state.handle(.key(.character("昼")))
        == [.saveDraft(WarikanDraft(amount: "5", memo: "昼", tab: .add))])
    // In a field ← first moves the cursor (nothing to save), then from the start switches tabs.
    #expect(state.handle(.key(.left)) == [])
    #expect(
      state.handle(.key(.left))
        == [.saveDraft(WarikanDraft(amount: "5", memo: "昼", tab: .calc))])
  }

  @Test func textFieldsEditAtTheCursorAsAShellLineDoes() {
    var state = WarikanState()
    _ = type("2800", into: &state)
    state.handle(.key(.left))
    state.handle(.key(.left))
    state.handle(.key(.character("5")))
    #expect(state.amountText == "28500")
    #expect(state.cursorIndex == 3)
    state.handle(.key(.delete))
    #expect(state.amountText == "2850")
    state.handle(.key(.backspace))
    #expect(state.amountText == "280")
    state.handle(.key(.home))
    state.handle(.key(.character("1")))
    #expect(state.amountText == "1280")
    state.handle(.key(.end))
    state.handle(.key(.character("0")))
    #expect(state.amountText == "12800")
    state.handle(.key(.control("a")))
    state.handle(.key(.right))
    state.handle(.key(.control("k")))
    #expect(state.amountText == "1")
    state.handle(.key(.control("e")))
    _ = type("234", into: &state)
    state.handle(.key(.left))
    state.handle(.key(.control("u")))
    #expect(state.amountText == "4")
    #expect(state.cursorIndex == 0)
    state.handle(.key(.tab))
    _ = type("高速 代金 支払い", into: &state)
    state.handle(.key(.control("w")))
    #expect(state.memoText == "高速 代金 ")
    state.handle(.key(.control("w")))
    #expect(state.memoText == "高速 ")
    // → at the end of the field switches tabs, as before.
    state.handle(.key(.right))
    #expect(state.tab == .list)
  }

  @Test func digitsTypedOnAButtonGoToTheirField() {
    var state = WarikanState()
    state.handle(.key(.tab))
    state.handle(.key(.tab))
    #expect(state.addFocus == .register)
    _ = type("28", into: &state)
    #expect(state.addFocus == .amount)
    #expect(state.amountText == "28")
    state.handle(.key(.tab))
    state.handle(.key(.tab))
    state.handle(.key(.character("x")))
    #expect(state.addFocus == .register)
    #expect(state.message?.text == "Buttons take Enter; Tab to the Amount or Memo field to type.")
    var calc = WarikanState(draft: WarikanDraft(tab: .calc))
    #expect(calc.calcFocus == .people(2))
    _ = type("7", into: &calc)
    #expect(calc.calcFocus == .customPeople)
    #expect(calc.customPeopleText == "7")
    #expect(calc.people == 7)
    _ = type("２", into: &calc)  // full-width digits count too
    #expect(calc.people == 72)
  }

  @Test func aRestoredDraftComesBackAsTyped() {
    let state = WarikanState(
      draft: WarikanDraft(amount: "12a", memo: "高速", tab: .calc), entries: rows)
    #expect(state.tab == .calc)
    #expect(state.amountText == "12a")
    #expect(state.memoText == "高速")
    #expect(state.amountIsInvalid)
    #expect(state.total == 10_000)
  }

  @Test func failuresShowInRed() {
    var state = WarikanState()
    state.handle(.failed("Can't write `cashData.json`: disk full."))
    #expect(state.message == .init(text: "Can't write `cashData.json`: disk full.", isError: true))
    state.handle(.key(.escape))
    #expect(state.message == nil)
  }

  @Test func theSceneIDFollowsTheTerminalSession() {
    #expect(WarikanSceneID.current(environment: ["KURA_SCENE_ID": "mine"]) == "mine")
    #expect(
      WarikanSceneID.current(
        environment: ["TMUX": "/tmp/tmux-1000/default,4242,0", "TMUX_PANE": "%3"],
        terminalName: "/dev/pts/1") == "tmux-4242-pane-3")
    #expect(
      WarikanSceneID.current(environment: [:], terminalName: "/dev/pts/7") == "tty-pts-7")
    #expect(WarikanSceneID.current(environment: [:], terminalName: nil) == "terminal")
    #expect(WarikanSceneID.current(environment: ["KURA_SCENE_ID": "a/b"]) == "a-b")
  }
}
