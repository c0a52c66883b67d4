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
