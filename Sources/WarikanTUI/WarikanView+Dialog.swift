import TerminalUI

extension WarikanView {
  /// Draws the open question as a box in the middle of the screen.
  static func drawDialog(
    _ dialog: WarikanDialog, state: WarikanState, into screen: inout ScreenBuffer
  ) {
    let question: String
    let detail: String
    let confirmLabel: String
    switch dialog.action {
    case .reset:
      let count = state.entries.count
      question = "Reset: delete all \(count) \(count == 1 ? "entry" : "entries")?"
      detail = "Total \(WarikanRules.yen(state.total)). This cannot be undone."
      confirmLabel = "Reset"
    case .delete(let row):
      question = "Delete \(WarikanRules.yen(row.cash)) \(row.memo)".trimmingTrailingSpaces + "?"
      detail = "Added at \(row.time). This cannot be undone."
      confirmLabel = "Delete"
    }
    let buttons = "[ Cancel ]  [ \(confirmLabel) ]"
    let inner = min(
      screen.width - 6,
      max(DisplayWidth.of(question), DisplayWidth.of(detail), DisplayWidth.of(buttons)) + 2)
    let left = (screen.width - inner - 2) / 2
    let top = max(2, (screen.height - 6) / 2)
    let border = Style(foreground: .yellow, bold: true)
    screen.write(
      "┌" + String(repeating: "─", count: inner) + "┐", row: top, column: left, style: border)
    for offset in 1...3 {
      screen.write("│", row: top + offset, column: left, style: border)
      screen.fill(row: top + offset, column: left + 1, count: inner, style: .plain)
      screen.write("│", row: top + offset, column: left + inner + 1, style: border)
    }
    screen.write(
      "└" + String(repeating: "─", count: inner) + "┘", row: top + 4, column: left, style: border)
    screen.write(
      DisplayWidth.truncate(question, toWidth: inner - 2), row: top + 1, column: left + 2,
      style: Style(bold: true))
    screen.write(
      DisplayWidth.truncate(detail, toWidth: inner - 2), row: top + 2, column: left + 2)
    var column = left + 1 + (inner - DisplayWidth.of(buttons)) / 2
    column = drawButton(
      "Cancel", focused: !dialog.confirmSelected, row: top + 3, column: column, into: &screen)
    drawButton(
      confirmLabel, focused: dialog.confirmSelected, row: top + 3, column: column + 2,
      into: &screen)
  }
}
