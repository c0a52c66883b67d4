import TerminalUI
import WarikanKit

extension WarikanView {
  /// The Add tab: total, amount and memo fields, buttons, the latest entries.
  static func drawAdd(_ state: WarikanState, rows: Range<Int>, into screen: inout ScreenBuffer) {
    // The full layout takes 8 rows before the entries; on a short window (40×12) the blank
    // lines go, so that up to three entries still show.
    let wanted = min(max(1, state.entries.count), 3)
    let gap = rows.count < 8 + wanted ? 1 : 2
    var row = rows.lowerBound
    let column = screen.write(" Total  ", row: row, column: 0)
    screen.write(WarikanRules.yen(state.total), row: row, column: column, style: accent)
    row += gap
    let fieldWidth = min(28, screen.width - 16)
    let focus = state.addFocus
    for (label, text, field) in [
      ("Amount", state.amountText, WarikanFocus.amount), ("Memo", state.memoText, .memo),
    ] {
      let isFocused = focus == field
      screen.write(isFocused ? " ▸" : "  ", row: row, column: 0, style: accent)
      screen.write(label, row: row, column: 3, style: Style(bold: isFocused))
      let invalid = field == .amount && state.amountIsInvalid
      let end = drawField(
        text, width: fieldWidth, focused: isFocused, invalid: invalid,
        cursor: isFocused ? state.cursorIndex : nil, row: row, column: 10, into: &screen)
      if invalid {
        screen.write(
          DisplayWidth.truncate(" not a number", toWidth: screen.width - end), row: row,
          column: end, style: error)
      }
      row += 1
    }
    row += gap - 1
    var column2 = drawButton(
      "Register", focused: focus == .register, row: row, column: 3, into: &screen)
    column2 = drawButton(
      "Reset", focused: focus == .reset, row: row, column: column2 + 2, into: &screen)
    if !state.entries.isEmpty {
      let count = state.entries.count
      drawButton(
        "All \(count) \(count == 1 ? "entry" : "entries")", focused: focus == .showList, row: row,
        column: column2 + 2, into: &screen)
    }
    row += gap
    guard row + 1 < rows.upperBound else { return }
    screen.write(" Latest entries", row: row, column: 0, style: Style(bold: true))
    row += 1
    let latest = state.newestFirst.prefix(max(0, rows.upperBound - row))
    if state.entries.isEmpty {
      screen.write("   None yet.", row: row, column: 0, style: dimmed)
      return
    }
    let width = amountWidth(latest)
    for entry in latest {
      screen.write(
        DisplayWidth.truncate(entryLine(entry, amountWidth: width), toWidth: screen.width - 4),
        row: row, column: 3)
      row += 1
    }
  }

  /// The List tab: every entry newest first, the selected one highlighted and kept in view.
  static func drawList(_ state: WarikanState, rows: Range<Int>, into screen: inout ScreenBuffer) {
    var row = rows.lowerBound
    let count = state.entries.count
    let total = WarikanRules.yen(state.total)
    // The total always shows: the words before it are cut with `…` when the window is narrow.
    let words = " \(count) \(count == 1 ? "entry" : "entries"), newest first · Total "
    let room = max(0, screen.width - 1 - DisplayWidth.of(total))
    let shownWords = DisplayWidth.truncate(words, toWidth: room)
    let column = screen.write(shownWords, row: row, column: 0)
    screen.write(total, row: row, column: column, style: accent)
    row += 2
    let all = state.newestFirst
    guard !all.isEmpty else {
      screen.write("   No entries yet: add one in the Add tab.", row: row, column: 0, style: dimmed)
      return
    }
    let available = max(1, rows.upperBound - row)
    let overflows = all.count > available
    let visible = overflows ? max(1, available - 1) : available
    let first = min(max(0, state.listSelection - visible + 1), max(0, all.count - visible))
    let width = amountWidth(all)
    for index in first..<min(all.count, first + visible) {
      let selected = index == state.listSelection
      let line = entryLine(all[index], amountWidth: width)
      if selected {
        screen.write(" ▸", row: row, column: 0, style: accent)
        screen.fill(row: row, column: 3, count: screen.width - 4, style: focused)
      }
      screen.write(
        DisplayWidth.truncate(line, toWidth: screen.width - 4), row: row, column: 3,
        style: selected ? focused : .plain)
      row += 1
    }
    if overflows {
      let below = all.count - first - visible
      screen.write("   ↑ \(first) above · ↓ \(below) below", row: row, column: 0, style: dimmed)
    }
  }

  /// The Calc tab: the total, the people buttons and field, each person's share.
  static func drawCalc(_ state: WarikanState, rows: Range<Int>, into screen: inout ScreenBuffer) {
    var row = rows.lowerBound
    var column = screen.write(" Total  ", row: row, column: 0)
    screen.write(WarikanRules.yen(state.total), row: row, column: column, style: accent)
    row += 2
    column = screen.write(" People  ", row: row, column: 0)
    for count in 2...4 {
      column = drawButton(
        String(count), focused: state.calcFocus == .people(count), chosen: state.people == count,
        row: row, column: column, into: &screen)
      column += 1
    }
    let customFocused = state.calcFocus == .customPeople
    // On a narrow window the custom field goes on a line of its own, under the buttons.
    if column + DisplayWidth.of(" Custom [       ]") >= screen.width {
      row += 1
      column = 8
    }
    column = screen.write(
      " Custom ", row: row, column: column, style: Style(bold: customFocused))
    let end = drawField(
      state.customPeopleText, width: 7, focused: customFocused,
      invalid: state.customPeopleIsInvalid, cursor: customFocused ? state.cursorIndex : nil,
      row: row, column: column, into: &screen)
    if state.customPeopleIsInvalid {
      screen.write(
        DisplayWidth.truncate(
          " 1 to \(Amount.grouped(WarikanRules.maximumPeople))", toWidth: screen.width - end),
        row: row, column: end, style: error)
    }
    row += 2
    guard let split = state.split else { return }
    let people = split.people
    screen.write(
      " Split between \(Amount.grouped(people)) \(people == 1 ? "person" : "people"):", row: row,
      column: 0,
      style: Style(bold: true))
    row += 1
    screen.write(
      DisplayWidth.truncate("   " + summary(split), toWidth: screen.width - 1), row: row,
      column: 0, style: accent)
    row += 1
    if people > 1 {
      // The shares written out add up to the total: shown in full for a small party.
      let sum =
        people <= 8
        ? (0..<people).map { WarikanRules.yen(share(of: $0, in: split)) }.joined(separator: " + ")
        : split.groups.map { "\(WarikanRules.yen($0.yen)) × \(Amount.grouped($0.people))" }.joined(
          separator: " + ")
      screen.write(
        DisplayWidth.truncate(
          "   \(sum) = \(WarikanRules.yen(split.total))", toWidth: screen.width - 1),
        row: row, column: 0, style: dimmed)
      row += 1
    }
    row += 1
    let room = rows.upperBound - row
    guard room > 0 else { return }
    let listed = people <= room ? people : max(0, room - 1)
    for index in 0..<listed {
      screen.write(
        "   Person \(Amount.grouped(index + 1))  \(WarikanRules.yen(share(of: index, in: split)))",
        row: row,
        column: 0)
      row += 1
    }
    if listed < people {
      screen.write(
        "   … \(Amount.grouped(people - listed)) more", row: row, column: 0, style: dimmed)
    }
  }

  /// What person `index` (from 0) pays: the base share, one yen more for the first ones.
  static func share(of index: Int, in split: BillSplit) -> Int {
    split.baseShare + (index < split.remainder ? 1 : 0)
  }

  /// `¥3,334 × 1 + ¥3,333 × 2 (remainder ¥1 spread)`, or `¥5,000 each` when the split is even.
  static func summary(_ split: BillSplit) -> String {
    guard split.remainder > 0 else { return "\(WarikanRules.yen(split.baseShare)) each" }
    let groups = split.groups.map { "\(WarikanRules.yen($0.yen)) × \(Amount.grouped($0.people))" }
    return groups.joined(separator: " + ")
      + " (remainder \(WarikanRules.yen(split.remainder)) spread)"
  }
}
