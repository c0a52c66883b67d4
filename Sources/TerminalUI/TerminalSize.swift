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
