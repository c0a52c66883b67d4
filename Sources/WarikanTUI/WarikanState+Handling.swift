import Foundation
import TerminalUI
import WarikanKit

extension WarikanState {
  /// Applies one event and returns what the runner must do.
  ///
  /// Keys: ←/→ switch tabs (in a text field they move the cursor, and switch tabs from the
  /// field's ends); Tab/↓ and Shift-Tab/↑ move between controls (↑/↓ move the selection in the
  /// List tab); Enter acts; `q` (outside a text field), Ctrl-C and Ctrl-D quit; Escape closes a
  /// question or clears the status line. A question (Reset, Delete) takes ←/→/Tab to choose,
  /// Enter, `y` or `n`.
  ///
  /// Text fields edit as a shell line does: Backspace and Delete remove the character before and
  /// under the cursor, Home/Ctrl-A and End/Ctrl-E jump to the start and end, Ctrl-U and Ctrl-K
  /// delete to the start and to the end, Ctrl-W deletes the word before the cursor. A digit typed
  /// on a button goes to the field it belongs to (the amount, the custom number of people).
  ///
  /// For example:
  ///
  /// ```swift
  /// var state = WarikanState()
  /// let effects = state.handle(.key(.control("c")))  // [.quit]
  /// ```
  ///
  /// - Parameter event: The key or the news.
  /// - Returns: The effects to run, in order.
  @discardableResult
  package mutating func handle(_ event: WarikanEvent) -> [WarikanEffect] {
    let before = draft
    var effects: [WarikanEffect]
    switch event {
    case .key(let key):
      effects = handle(key)
    case .entriesChanged(let rows):
      entriesChanged(rows)
      effects = []
    case .failed(let text):
      message = Message(text: text, isError: true)
      effects = []
    }
    if isQuitting { return effects }
    cursorFromEnd = min(max(0, cursorFromEnd), focusedText?.count ?? 0)
    if draft != before { effects.append(.saveDraft(draft)) }
    return effects
  }

  private mutating func handle(_ key: Key) -> [WarikanEffect] {
    if key == .interrupt || key == .control("d") || (key == .character("q") && !focus.isTextField) {
      isQuitting = true
      return [.quit]
    }
    if dialog != nil { return handleDialog(key) }
    let focusBefore = focus
    defer { if focus != focusBefore { cursorFromEnd = 0 } }
    switch key {
    case .left:
      // In a text field ← moves the cursor; from the field's start it switches tabs.
      if let text = focusedText, cursorFromEnd < text.count {
        cursorFromEnd += 1
        return []
      }
      switchTab(to: tab.previous)
      return []
    case .right:
      if focusedText != nil, cursorFromEnd > 0 {
        cursorFromEnd -= 1
        return []
      }
      switchTab(to: tab.next)
      return []
    case .escape:
      message = nil
      return []
    default:
      break
    }
    switch tab {
    case .add: return handleAdd(key)
    case .list: return handleList(key)
    case .calc: return handleCalc(key)
    }
  }

  private mutating func switchTab(to newTab: WarikanTab) {
    tab = newTab
    message = nil
  }

  /// Moves focus forward or back through the tab's controls, wrapping around.
  private mutating func moveFocus(by step: Int) {
    let ring = focusRing
    let index = ring.firstIndex(of: focus) ?? 0
    let next = ring[(index + step + ring.count) % ring.count]
    switch tab {
    case .add: addFocus = next
    case .calc: calcFocus = next
    case .list: break
    }
  }

  // MARK: Add

  private mutating func handleAdd(_ key: Key) -> [WarikanEffect] {
    if !focusRing.contains(addFocus) { addFocus = .amount }
    switch key {
    case .tab, .down:
      moveFocus(by: 1)
      return []
    case .backTab, .up:
      moveFocus(by: -1)
      return []
    default:
      break
    }
    if !addFocus.isTextField, case .character(let character) = key {
      // A digit typed on a button belongs to the amount: move there and type it.
      if character.isNumber || character == "¥" || character == "￥" {
        addFocus = .amount
        cursorFromEnd = 0
        edit(\.amountText, with: key)
        return []
      }
      message = Message(
        text: "Buttons take Enter; Tab to the Amount or Memo field to type.", isError: false)
      return []
    }
    switch addFocus {
    case .amount:
      if key == .enter {
        addFocus = .memo
        return []
      }
      edit(\.amountText, with: key)
      return []
    case .memo:
      if key == .enter { return register() }
      edit(\.memoText, with: key)
      return []
    case .register:
      return key == .enter ? register() : []
    case .reset:
      if key == .enter {
        if entries.isEmpty {
          message = Message(text: "Nothing to reset: there are no entries.", isError: false)
        } else {
          dialog = WarikanDialog(action: .reset)
        }
      }
      return []
    case .showList:
      if key == .enter {
        tab = .list
        listSelection = 0
      }
      return []
    default:
      return []
    }
  }

  /// Edits a text field at its cursor, as a shell line editor does; clears the status line.
  private mutating func edit(_ field: WritableKeyPath<WarikanState, String>, with key: Key) {
    var characters = Array(self[keyPath: field])
    var cursor = characters.count - min(max(0, cursorFromEnd), characters.count)
    switch key {
    case .character(let character):
      characters.insert(character, at: cursor)
      cursor += 1
    case .backspace:
      guard cursor > 0 else { return }
      characters.remove(at: cursor - 1)
      cursor -= 1
    case .delete where cursor < characters.count:
      characters.remove(at: cursor)
    case .home, .control("a"):
      cursor = 0
    case .end, .control("e"):
      cursor = characters.count
    case .control("u"):
      characters.removeSubrange(0..<cursor)
      cursor = 0
    case .control("k"):
      characters.removeSubrange(cursor...)
    case .control("w"):
      var start = cursor
      while start > 0, characters[start - 1].isWhitespace { start -= 1 }
      while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
      characters.removeSubrange(start..<cursor)
      cursor = start
    default:
      return
    }
    self[keyPath: field] = String(characters)
    cursorFromEnd = characters.count - cursor
    message = nil
  }

  private mutating func register() -> [WarikanEffect] {
    let typed = amountText.trimmingCharacters(in: .whitespaces)
    guard !typed.isEmpty else {
      addFocus = .amount
      message = Message(text: "Type an amount in yen first, such as 2800.", isError: true)
      return []
    }
    if let problem = WarikanRules.amountProblem(amountText) {
      addFocus = .amount
      message = Message(text: problem, isError: true)
      return []
    }
    guard let cash = amount, cash > 0 else {
      addFocus = .amount
      message = Message(text: "\(WarikanError.zeroAmount(input: typed))", isError: true)
      return []
    }
    let memo = memoText
    amountText = ""
    memoText = ""
    addFocus = .amount
    message = Message(
      text: "Registered \(WarikanRules.yen(cash))" + (memo.isEmpty ? "." : " \(memo)."),
      isError: false)
    return [.add(cash: cash, memo: memo)]
  }

  // MARK: List

  private mutating func handleList(_ key: Key) -> [WarikanEffect] {
    let count = entries.count
    switch key {
    case .down, .tab:
      listSelection = min(listSelection + 1, max(0, count - 1))
    case .up, .backTab:
      listSelection = max(listSelection - 1, 0)
    case .home:
      listSelection = 0
    case .end:
      listSelection = max(0, count - 1)
    case .pageDown:
      listSelection = min(listSelection + 10, max(0, count - 1))
    case .pageUp:
      listSelection = max(listSelection - 10, 0)
    case .enter, .delete, .backspace, .character("d"):
      let rows = newestFirst
      if rows.indices.contains(listSelection) {
        dialog = WarikanDialog(action: .delete(rows[listSelection]))
      }
    default:
      break
    }
    return []
  }

  // MARK: Calc

  private mutating func handleCalc(_ key: Key) -> [WarikanEffect] {
    switch key {
    case .tab, .down:
      moveFocus(by: 1)
      return []
    case .backTab, .up:
      moveFocus(by: -1)
      return []
    default:
      break
    }
    switch calcFocus {
    case .people(let count):
      if key == .enter {
        people = count
        message = nil
      } else if case .character(let character) = key {
        if character.isNumber {
          // A number typed on a button is a custom number of people: type it there.
          calcFocus = .customPeople
          customPeopleText = ""
          cursorFromEnd = 0
          editCustomPeople(with: key)
        } else {
          message = Message(
            text: "Buttons take Enter; type a number of people in Custom.", isError: false)
        }
      }
    case .customPeople:
      if key == .enter {
        if let count = WarikanRules.people(customPeopleText) {
          people = count
          message = nil
        } else {
          message = Message(
            text: customPeopleText.isEmpty
              ? "Type the number of people, 1 to \(Amount.grouped(WarikanRules.maximumPeople))."
              : "`\(customPeopleText)` is not a number of people: type a whole number from 1 to"
                + " \(Amount.grouped(WarikanRules.maximumPeople)).",
            isError: true)
        }
        return []
      }
      editCustomPeople(with: key)
    default:
      break
    }
    return []
  }

  /// Edits the custom number of people; a digit that would take it above
  /// ``WarikanRules/maximumPeople`` is refused with a message saying the cap.
  private mutating func editCustomPeople(with key: Key) {
    let (text, cursor) = (customPeopleText, cursorFromEnd)
    edit(\.customPeopleText, with: key)
    if WarikanRules.isAboveMaximumPeople(customPeopleText) {
      (customPeopleText, cursorFromEnd) = (text, cursor)
      message = Message(
        text: "A bill is split among at most \(Amount.grouped(WarikanRules.maximumPeople)) people.",
        isError: true)
      return
    }
    if let count = WarikanRules.people(customPeopleText) { people = count }
  }

  // MARK: Dialog

  private mutating func handleDialog(_ key: Key) -> [WarikanEffect] {
    guard let current = dialog else { return [] }
    switch key {
    case .left, .right, .tab, .backTab:
      dialog?.confirmSelected.toggle()
      return []
    case .escape, .character("n"):
      dialog = nil
      return []
    case .character("y"):
      return confirm(current.action)
    case .enter:
      if current.confirmSelected { return confirm(current.action) }
      dialog = nil
      return []
    default:
      return []
    }
  }

  private mutating func confirm(_ action: WarikanDialog.Action) -> [WarikanEffect] {
    dialog = nil
    switch action {
    case .reset:
      amountText = ""
      memoText = ""
      addFocus = .amount
      message = Message(text: "Reset: every entry was deleted.", isError: false)
      return [.reset]
    case .delete(let row):
      message = Message(
        text: "Deleted \(WarikanRules.yen(row.cash))" + (row.memo.isEmpty ? "." : " \(row.memo)."),
        isError: false)
      return [.delete(id: row.id)]
    }
  }

  // MARK: News

  private mutating func entriesChanged(_ rows: [CashData]) {
    entries = rows
    listSelection = min(listSelection, max(0, rows.count - 1))
    if !focusRing.contains(addFocus) { addFocus = .reset }
    if case .delete(let row)? = dialog?.action, !rows.contains(where: { $0.id == row.id }) {
      dialog = nil
      message = Message(text: "That entry was deleted elsewhere.", isError: false)
    }
  }
}
