import Foundation
import WarikanKit

/// Everything the warikan screen shows, as a value: the state machine's state.
///
/// ``handle(_:)`` applies an event (a key, new entries) and returns the effects for the runner;
/// ``WarikanView`` draws it. Nothing here touches a terminal or a file.
///
/// For example:
///
/// ```swift
/// var state = WarikanState()
/// for character in "2800" { _ = state.handle(.key(.character(character))) }
/// state.handle(.key(.tab))     // to the memo field
/// state.handle(.key(.enter))   // [.add(cash: 2800, memo: ""), .saveDraft(…)]
/// ```
package struct WarikanState: Hashable, Sendable {
  /// A line at the bottom of the screen telling what just happened.
  package struct Message: Hashable, Sendable {
    /// The text.
    package var text: String
    /// Whether it reports a problem (shown in red).
    package var isError: Bool
  }

  /// The selected tab.
  package var tab: WarikanTab = .add
  /// The focused control of the Add tab.
  package var addFocus: WarikanFocus = .amount
  /// The focused control of the Calc tab.
  package var calcFocus: WarikanFocus = .people(2)
  /// The amount field's text, exactly as typed.
  package var amountText = ""
  /// The memo field's text.
  package var memoText = ""
  /// The entries, oldest first (as the book keeps them).
  package var entries: [CashData] = []
  /// The selected row of the List tab (0 is the newest entry).
  package var listSelection = 0
  /// The number of people the Calc tab splits between.
  package var people = 2
  /// The custom people field's text.
  package var customPeopleText = ""
  /// Where the cursor of the focused text field is, counted in characters back from the end of
  /// its text (0: after the last character, where typing appends).
  package var cursorFromEnd = 0
  /// The open confirmation, if any.
  package var dialog: WarikanDialog?
  /// The status line.
  package var message: Message?
  /// Whether the app is quitting.
  package var isQuitting = false

  /// Creates the state of a fresh start, optionally from a restored draft.
  ///
  /// - Parameters:
  ///   - draft: The scene state to restore.
  ///   - entries: The entries in the book, oldest first.
  package init(draft: WarikanDraft = WarikanDraft(), entries: [CashData] = []) {
    tab = draft.tab
    amountText = draft.amount
    memoText = draft.memo
    self.entries = entries
  }

  /// The focused control of the selected tab.
  package var focus: WarikanFocus {
    switch tab {
    case .add: addFocus
    case .list: .entries
    case .calc: calcFocus
    }
  }

  /// The focused text field's text, or `nil` when the focus is not on a text field.
  package var focusedText: String? {
    switch focus {
    case .amount: amountText
    case .memo: memoText
    case .customPeople: customPeopleText
    default: nil
    }
  }

  /// The cursor of the focused text field as a character offset from the start of its text.
  package var cursorIndex: Int {
    let count = focusedText?.count ?? 0
    return count - min(max(0, cursorFromEnd), count)
  }

  /// The entries newest first, as the List tab and the preview show them.
  package var newestFirst: [CashData] { entries.reversed() }

  /// The sum of every entry, in yen (`Int.max` if it would overflow).
  package var total: Int {
    var sum = 0
    for entry in entries {
      let (next, overflow) = sum.addingReportingOverflow(entry.cash)
      if overflow { return .max }
      sum = next
    }
    return sum
  }

  /// The draft the scene state keeps.
  package var draft: WarikanDraft { WarikanDraft(amount: amountText, memo: memoText, tab: tab) }

  /// The amount field's value: `nil` when it is empty or not a number.
  package var amount: Int? { WarikanRules.amount(amountText) }

  /// Whether the amount field holds something that is not a number (it is shown in red).
  package var amountIsInvalid: Bool {
    !amountText.trimmingCharacters(in: .whitespaces).isEmpty && amount == nil
  }

  /// Whether the custom people field holds something other than a whole number ≥ 1.
  package var customPeopleIsInvalid: Bool {
    !customPeopleText.isEmpty && WarikanRules.people(customPeopleText) == nil
  }

  /// The controls Tab moves between in the selected tab, in order.
  package var focusRing: [WarikanFocus] {
    switch tab {
    case .add:
      entries.isEmpty
        ? [.amount, .memo, .register, .reset]
        : [
          .amount, .memo, .register, .reset, .showList,
        ]
    case .list: [.entries]
    case .calc: [.people(2), .people(3), .people(4), .customPeople]
    }
  }

  /// The exact split of the total between ``people`` (WarikanKit's `BillSplit`): everyone pays
  /// the base share and the remainder is spread one yen each over the first people.
  package var split: BillSplit? { try? BillSplit(total: total, people: people) }
}
