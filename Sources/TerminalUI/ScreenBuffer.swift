/// A grid of ``Cell``s the size of the terminal, filled by a view and drawn by ``ANSIRenderer``.
///
/// Text is laid out by display width: a wide character takes two cells, a character that would
/// not fit at the right edge is left out, control characters are shown escaped as `\u{1B}` by
/// ``VisibleText`` (text from a file can never send escape sequences to the terminal).
///
/// For example:
///
/// ```swift
/// var screen = ScreenBuffer(width: 20, height: 2)
/// screen.write("合計 ¥2,800", row: 0, column: 1, style: Style(bold: true))
/// screen.text(row: 0)  // " 合計 ¥2,800         "
/// ```
package struct ScreenBuffer: Hashable, Sendable {
  /// The number of columns.
  package let width: Int
  /// The number of rows.
  package let height: Int
  /// The cells, row after row.
  package private(set) var cells: [Cell]

  /// Creates a blank screen.
  ///
  /// - Parameters:
  ///   - width: Columns (at least 0).
  ///   - height: Rows (at least 0).
  package init(width: Int, height: Int) {
    self.width = max(0, width)
    self.height = max(0, height)
    self.cells = Array(repeating: .blank, count: self.width * self.height)
  }

  /// The cell at a position.
  ///
  /// - Parameters:
  ///   - row: The row, from 0.
  ///   - column: The column, from 0.
  package subscript(row: Int, column: Int) -> Cell {
    cells[row * width + column]
  }

  /// Writes text from a position, clipped to `limit` columns (or to the right edge), and
  /// returns the column after the last cell written.
  ///
  /// - Parameters:
  ///   - text: The text; control characters show escaped, as ``VisibleText`` writes them.
  ///   - row: The row; nothing is written outside the screen.
  ///   - column: The first column.
  ///   - style: The style of every cell written.
  ///   - limit: The most columns to use; the right edge when `nil`.
  /// - Returns: The column after the text.
  @discardableResult
  package mutating func write(
    _ text: String, row: Int, column: Int, style: Style = .plain, limit: Int? = nil
  ) -> Int {
    guard row >= 0, row < height else { return column }
    let end = min(width, limit.map { column + $0 } ?? width)
    var position = column
    for character in VisibleText.escaped(text) {
      let columns = max(1, DisplayWidth.of(character))
      if position + columns > end { break }
      if position >= 0 {
        place(
          Cell(character: character, width: columns, style: style), row: row, column: position)
        if columns == 2 { place(.continuation(style), row: row, column: position + 1) }
      }
      position += columns
    }
    return position
  }

  /// Fills columns of a row with one style (spaces).
  ///
  /// - Parameters:
  ///   - row: The row.
  ///   - column: The first column.
  ///   - count: How many columns.
  ///   - style: The style.
  package mutating func fill(row: Int, column: Int = 0, count: Int? = nil, style: Style) {
    guard row >= 0, row < height else { return }
    let end = min(width, count.map { column + $0 } ?? width)
    for position in max(0, column)..<max(max(0, column), end) {
      place(Cell(character: " ", style: style), row: row, column: position)
    }
  }

  /// The characters of a row as a string (continuation cells left out), for tests and logs.
  ///
  /// - Parameter row: The row.
  /// - Returns: What the row shows, `width` columns wide.
  package func text(row: Int) -> String {
    var line = ""
    for column in 0..<width where !self[row, column].isContinuation {
      line.append(self[row, column].character)
    }
    return line
  }

  /// Every row as text, trailing spaces removed.
  package var lines: [String] {
    (0..<height).map { row in
      var line = text(row: row)
      while line.last == " " { line.removeLast() }
      return line
    }
  }

  /// Puts one cell, repairing a wide character it partly overwrites.
  private mutating func place(_ cell: Cell, row: Int, column: Int) {
    guard column >= 0, column < width else { return }
    let index = row * width + column
    if cells[index].isContinuation, column > 0 {
      cells[index - 1] = Cell(character: " ", style: cells[index - 1].style)
    }
    if !cells[index].isContinuation, cells[index].width == 2, column + 1 < width,
      !cell.isContinuation
    {
      cells[index + 1] = Cell(character: " ", style: cells[index + 1].style)
    }
    cells[index] = cell
    if cell.width == 2, column + 1 >= width {
      cells[index] = Cell(character: " ", style: cell.style)
    }
  }
}
