/// Something the input loop of a ``Terminal`` reports.
///
/// For example:
///
/// ```swift
/// for event in try terminal.nextEvents() {
///   if case .key(.interrupt) = event { return }
/// }
/// ```
package enum TerminalEvent: Hashable, Sendable {
  /// A key was pressed.
  case key(Key)
  /// The window changed size (columns, rows).
  case resize(TerminalSize)
  /// Another thread called ``WakeUpSignal/wake()`` (for example, data changed elsewhere).
  case wake
}

/// The size of a terminal window in character cells.
///
/// For example: `TerminalSize(columns: 80, rows: 24)`.
package struct TerminalSize: Hashable, Sendable {
  /// Columns.
  package var columns: Int
  /// Rows.
  package var rows: Int

  /// Creates a size.
  ///
  /// - Parameters:
  ///   - columns: Columns.
  ///   - rows: Rows.
  package init(columns: Int, rows: Int) {
    self.columns = columns
    self.rows = rows
  }
}
