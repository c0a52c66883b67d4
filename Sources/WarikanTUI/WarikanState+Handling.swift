import Foundation
import TerminalUI
import WarikanKit

extension WarikanState {
  /// Applies one event and returns what the runner must do.
  ///
  /// Keys: ←/→ switch tabs; Tab/↓ and Shift-Tab/↑ move between controls (↑/↓ move the
  /// selection in the List tab); Enter acts; Backspace deletes the last character of a field;
  /// `q` (outside a text field), Ctrl-C and Ctrl-D quit; Escape closes a question or clears the
  /// status line. A question (Reset, Delete) takes ←/→/Tab to choose, Enter, `y` or `n`.
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
    if draft != before { effects.append(.saveDraft(draft)) }
    return effects
  }

  private mutating func handle(_ key: Key) -> [WarikanEffect] {
    if key == .interrupt || key == .control("d") || (key == .character("q") && !focus.isTextField) {
      isQuitting = true
      return [.quit]
    }
    if dialog != nil { return handleDialog(key) }
    switch key {
    case .left:
      switchTab(to: tab.previous)
      return []
    case .right:
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

  /// Appends a typed character to a field or removes its last one; clears the status line.
  private mutating func edit(_ field: WritableKeyPath<WarikanState, String>, with key: Key) {
    switch key {
    case .character(let character):
      self[keyPath: field].append(character)
      message = nil
    case .backspace:
      if !self[keyPath: field].isEmpty { self[keyPath: field].removeLast() }
      message = nil
    default:
      break
    }
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
      }
    case .customPeople:
      if key == .enter {
        if let count = WarikanRules.people(customPeopleText) {
          people = count
          message = nil
        } else {
          message = Message(
            text: customPeopleText.isEmpty
              ? "Type the number of people, 1 or more."
              : "`\(customPeopleText)` is not a number of people: type a whole number, 1 or more.",
            isError: true)
        }
        return []
      }
      edit(\.customPeopleText, with: key)
      if let count = WarikanRules.people(customPeopleText) { people = count }
    default:
      break
    }
    return []
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
