import TerminalUI
import WarikanKit

/// What the screen model reacts to: a key, or news from the entry book.
///
/// For example:
///
/// ```swift
/// let effects = state.handle(.key(.enter))
/// ```
package enum WarikanEvent: Hashable, Sendable {
  /// The user pressed a key.
  case key(Key)
  /// The entries now in the book (after a change here or in another process), oldest first.
  case entriesChanged([CashData])
  /// An effect failed; the message is shown in red.
  case failed(String)
}
