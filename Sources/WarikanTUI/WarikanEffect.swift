import WarikanKit

/// What the screen model asks its runner to do; the runner reports back with ``WarikanEvent``s.
///
/// For example: Register with `2800` and `高速代金` yields `.add(cash: 2800, memo: "高速代金")`.
package enum WarikanEffect: Hashable, Sendable {
  /// Add an entry to the book.
  case add(cash: Int, memo: String)
  /// Delete one entry.
  case delete(id: CashData.ID)
  /// Delete every entry (the file too).
  case reset
  /// Keep the draft in the session's scene state.
  case saveDraft(WarikanDraft)
  /// Quit normally: discard the scene state and restore the terminal.
  case quit
}
