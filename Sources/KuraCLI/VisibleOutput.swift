import Foundation
import TerminalUI

/// Stored text as a line of text output shows it: control characters, escape sequences, C1
/// controls, bidirectional overrides, line separators and invisible spaces (U+200B, U+FEFF) are
/// written visibly (`\u{1B}`), so a stored value can never rewrite the user's terminal or pass
/// for another. `--json` output keeps exact values instead.
///
/// Every tool calls this for each stored value it prints as text; the full-screen app draws
/// through the same rule (``TerminalUI``'s `VisibleText`).
///
/// For example:
///
/// ```swift
/// print("Added \(visible(customer.name))")  // "Added Ann\u{1B}[31m" shows the escape
/// ```
///
/// - Parameter text: Stored text.
/// - Returns: The text with every control and bidirectional formatting character escaped.
public func visible(_ text: some StringProtocol) -> String { VisibleText.escaped(text) }

/// A message of several lines made safe line by line: the line breaks stay, every other
/// control character is escaped (used for error messages, which may quote stored text).
///
/// For example: `visibleLines("Can't open `a\u{1B}`.\nSee `kura --help`.")`.
///
/// - Parameter text: The message.
/// - Returns: The message with each line escaped by ``visible(_:)``.
public func visibleLines(_ text: String) -> String {
  text.split(separator: "\n", omittingEmptySubsequences: false).map(visible)
    .joined(separator: "\n")
}
