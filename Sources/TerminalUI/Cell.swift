/// One column of the screen: a character and its style. A wide character fills its own cell and
/// the next one, which holds a ``continuation`` marker.
///
/// For example:
///
/// ```swift
/// let cell = Cell(character: "割", style: .plain)  // width 2
/// ```
package struct Cell: Hashable, Sendable {
  /// The character drawn in this column (a space for an empty cell).
  package var character: Character
  /// How it is drawn.
  package var style: Style
  /// Whether this cell is the right half of the wide character in the cell before it.
  package private(set) var isContinuation: Bool
  /// The character's display width, computed once.
  private var characterWidth: UInt8

  /// Creates a cell.
  ///
  /// - Parameters:
  ///   - character: The character; its display width decides whether it spans two cells.
  ///   - style: How it is drawn.
  package init(character: Character, style: Style = .plain) {
    self.init(character: character, width: DisplayWidth.of(character), style: style)
  }

  /// Creates a cell whose character's display width is already known.
  init(character: Character, width: Int, style: Style) {
    self.character = character
    self.style = style
    self.isContinuation = false
    self.characterWidth = UInt8(clamping: max(1, width))
  }

  /// An empty cell: a space in the default style.
  package static let blank = Cell(character: " ")

  /// The right half of a wide character.
  ///
  /// - Parameter style: The style of the wide character.
  /// - Returns: The marker cell.
  package static func continuation(_ style: Style) -> Cell {
    var cell = Cell(character: " ", style: style)
    cell.isContinuation = true
    return cell
  }

  /// The columns the character takes: 1 or 2 (0 for a continuation cell).
  package var width: Int {
    isContinuation ? 0 : Int(characterWidth)
  }
}
