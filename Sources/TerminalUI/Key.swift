/// One key press decoded from the bytes a terminal sends.
///
/// For example:
///
/// ```swift
/// var decoder = KeyDecoder()
/// let keys = decoder.decode(Array("a\t\u{1B}[A".utf8))  // [.character("a"), .tab, .up]
/// ```
package enum Key: Hashable, Sendable {
  /// A printable character (one Unicode scalar; combining marks arrive as their own key).
  case character(Character)
  /// Tab.
  case tab
  /// Shift-Tab (`ESC [ Z`).
  case backTab
  /// Enter or Return.
  case enter
  /// Backspace (DEL or Ctrl-H).
  case backspace
  /// The Delete key (`ESC [ 3 ~`).
  case delete
  /// Escape on its own.
  case escape
  /// Arrow up.
  case up
  /// Arrow down.
  case down
  /// Arrow left.
  case left
  /// Arrow right.
  case right
  /// Home.
  case home
  /// End.
  case end
  /// Page up.
  case pageUp
  /// Page down.
  case pageDown
  /// A control key other than the named ones, by its lowercase letter: Ctrl-C is `.control("c")`.
  case control(Character)

  /// Ctrl-C.
  package static let interrupt = Key.control("c")
}
