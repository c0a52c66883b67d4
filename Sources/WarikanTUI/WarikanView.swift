import TerminalUI
import WarikanKit

/// Draws a ``WarikanState`` into a ``ScreenBuffer`` of a given size: the tab bar, the selected
/// tab, a question when one is open, the status line and the key help.
///
/// Text is laid out by display width, so memos in Japanese line up and are cut with `…` where
/// they do not fit.
///
/// For example:
///
/// ```swift
/// let screen = WarikanView.render(state, size: TerminalSize(columns: 80, rows: 24))
/// print(screen.lines.joined(separator: "\n"))
/// ```
package enum WarikanView {
  /// The smallest window the app draws in; smaller ones get a note asking for more room.
  package static let minimumSize = TerminalSize(columns: 40, rows: 12)

  static let accent = Style(foreground: .cyan, bold: true)
  static let error = Style(foreground: .red)
  static let errorBold = Style(foreground: .red, bold: true)
  static let success = Style(foreground: .green)
  static let dimmed = Style(dim: true)
  static let focused = Style(inverse: true)

  /// Draws the state.
  ///
  /// - Parameters:
  ///   - state: What to show.
  ///   - size: The window size.
  /// - Returns: The frame.
  package static func render(_ state: WarikanState, size: TerminalSize) -> ScreenBuffer {
    var screen = ScreenBuffer(width: size.columns, height: size.rows)
    guard size.columns >= minimumSize.columns, size.rows >= minimumSize.rows else {
      screen.write("Window too small: \(size.columns)×\(size.rows).", row: 0, column: 0)
      screen.write(
        "Needs \(minimumSize.columns)×\(minimumSize.rows).", row: 1, column: 0, style: dimmed)
      return screen
    }
    drawTabBar(state, into: &screen)
    let content = 2..<(size.rows - 2)
    switch state.tab {
    case .add: drawAdd(state, rows: content, into: &screen)
    case .list: drawList(state, rows: content, into: &screen)
    case .calc: drawCalc(state, rows: content, into: &screen)
    }
    if let dialog = state.dialog { drawDialog(dialog, state: state, into: &screen) }
    drawStatus(state, into: &screen)
    return screen
  }

  private static func drawTabBar(_ state: WarikanState, into screen: inout ScreenBuffer) {
    // The total is always shown: on a narrow window the tabs pack closer and the app's name goes.
    let total = WarikanRules.yen(state.total)
    let wide = tabBarWidth(compact: false) + DisplayWidth.of("warikan  " + total) + 2
    let compact = wide > screen.width
    var column = 1
    for tab in WarikanTab.allCases {
      if tab == state.tab {
        column = screen.write(
          compact ? "[\(tab.title)]" : "[ \(tab.title) ]", row: 0, column: column,
          style: Style(bold: true, inverse: true))
      } else {
        column = screen.write(
          compact ? " \(tab.title) " : "  \(tab.title)  ", row: 0, column: column)
      }
      column += 1
    }
    var title = compact ? total : "warikan  \(total)"
    title = DisplayWidth.truncate(title, toWidth: max(1, screen.width - column - 1))
    let start = screen.width - DisplayWidth.of(title) - 1
    screen.write(title, row: 0, column: max(column, start), style: compact ? accent : dimmed)
    screen.write(String(repeating: "─", count: screen.width), row: 1, column: 0, style: dimmed)
  }

  /// The columns the tab titles take (from column 1, with the spaces after each).
  private static func tabBarWidth(compact: Bool) -> Int {
    1 + WarikanTab.allCases.map { DisplayWidth.of($0.title) + (compact ? 2 : 4) + 1 }.reduce(0, +)
  }

  private static func drawStatus(_ state: WarikanState, into screen: inout ScreenBuffer) {
    let messageRow = screen.height - 2
    if let message = state.message {
      screen.write(
        " " + DisplayWidth.truncate(message.text, toWidth: screen.width - 1), row: messageRow,
        column: 0, style: message.isError ? errorBold : success)
    }
    screen.write(
      " " + DisplayWidth.truncate(help(for: state), toWidth: screen.width - 1),
      row: screen.height - 1, column: 0, style: dimmed)
  }

  /// The key help for what is focused now.
  static func help(for state: WarikanState) -> String {
    if state.dialog != nil { return "←/→ choose · Enter confirm · y yes · n/Esc cancel" }
    let quit = state.focus.isTextField ? "Ctrl-C quit" : "q quit"
    switch state.tab {
    case .add:
      let action =
        switch state.addFocus {
        case .amount: "next field"
        case .reset: "reset"
        case .showList: "show all"
        default: "register"
        }
      return "←/→ tabs · Tab/↑/↓ move · Enter \(action) · \(quit)"
    case .list:
      return "←/→ tabs · ↑/↓ select · Enter/d delete · \(quit)"
    case .calc:
      return "←/→ tabs · Tab/↑/↓ move · Enter choose · \(quit)"
    }
  }

  /// Writes a button: `[ Label ]`, or `[>Label<]` in inverse when focused; a label that does
  /// not fit before the right edge is cut with `…`.
  @discardableResult
  static func drawButton(
    _ label: String, focused: Bool, chosen: Bool = false, row: Int, column: Int,
    into screen: inout ScreenBuffer
  ) -> Int {
    let room = screen.width - column - 1 - 4
    guard room >= 1 else { return column }
    let shown = DisplayWidth.truncate(label, toWidth: room)
    let text = focused ? "[>\(shown)<]" : "[ \(shown) ]"
    var style = focused ? Self.focused : Style.plain
    if chosen {
      style.foreground = .green
      style.bold = true
    }
    return screen.write(text, row: row, column: column, style: style)
  }

  /// Writes a text field `[text   ]` of `width` columns inside the brackets. When focused, the
  /// cursor (at character `cursor`, the end by default) is shown in inverse; a text longer than
  /// the field shows the part around the cursor.
  @discardableResult
  static func drawField(
    _ text: String, width: Int, focused: Bool, invalid: Bool, cursor: Int? = nil, row: Int,
    column: Int, into screen: inout ScreenBuffer
  ) -> Int {
    let characters = Array(VisibleText.escaped(text))
    let position = min(max(0, cursor ?? characters.count), characters.count)
    // The window of characters shown: it ends at the text's end when the cursor is in view,
    // else it starts at the cursor.
    let room = max(1, width - (focused && position == characters.count ? 1 : 0))
    var lower = characters.count
    var used = 0
    while lower > 0, used + DisplayWidth.of(characters[lower - 1]) <= room {
      lower -= 1
      used += DisplayWidth.of(characters[lower])
    }
    var upper = characters.count
    if focused && position < lower {
      lower = position
      upper = lower
      used = 0
      while upper < characters.count, used + DisplayWidth.of(characters[upper]) <= width {
        used += DisplayWidth.of(characters[upper])
        upper += 1
      }
    }
    let style =
      invalid ? Style(foreground: .red, bold: true, underline: true) : Style(underline: true)
    screen.write("[", row: row, column: column)
    screen.fill(row: row, column: column + 1, count: width, style: style)
    var end = column + 1
    for index in lower..<upper {
      let isCursor = focused && index == position
      end = screen.write(
        String(characters[index]), row: row, column: end, style: isCursor ? Self.focused : style)
    }
    if focused && position == characters.count {
      end = screen.write(" ", row: row, column: end, style: Self.focused)
    }
    return screen.write("]", row: row, column: column + 1 + width)
  }

  /// One entry as a line: time, amount right-aligned to `amountWidth`, memo.
  static func entryLine(_ row: CashData, amountWidth: Int) -> String {
    let time = DisplayWidth.padLeft(row.time, toWidth: 5)
    let amount = DisplayWidth.padLeft(WarikanRules.yen(row.cash), toWidth: amountWidth)
    return "\(time)  \(amount)  \(row.memo)"
  }

  /// The width of the widest amount among rows.
  static func amountWidth(_ rows: some Sequence<CashData>) -> Int {
    rows.map { DisplayWidth.of(WarikanRules.yen($0.cash)) }.max() ?? 0
  }
}
