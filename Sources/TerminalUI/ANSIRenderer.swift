/// Draws ``ScreenBuffer``s with ANSI escape sequences, sending only what changed since the last
/// frame.
///
/// The first frame, and the first after ``invalidate()`` (a resize), clears the screen and draws
/// every cell; later frames move the cursor to each run of changed cells and rewrite just those.
///
/// For example:
///
/// ```swift
/// var renderer = ANSIRenderer()
/// let bytes = renderer.render(screen)  // write these to the terminal
/// ```
package struct ANSIRenderer: Sendable {
  private var previous: ScreenBuffer?

  /// Creates a renderer that will draw its first frame in full.
  package init() {}

  /// Forgets the last frame so the next one is drawn in full (after a resize or a redraw request).
  package mutating func invalidate() {
    previous = nil
  }

  /// The escape sequences and text that turn the last frame into `screen`.
  ///
  /// - Parameter screen: The new frame.
  /// - Returns: What to write to the terminal; empty when nothing changed.
  package mutating func render(_ screen: ScreenBuffer) -> String {
    var output = ""
    let old: ScreenBuffer?
    if let previous, previous.width == screen.width, previous.height == screen.height {
      old = previous
    } else {
      old = nil
      output += "\u{1B}[0m\u{1B}[2J"
    }
    var currentStyle: Style? = nil
    for row in 0..<screen.height {
      var column = 0
      while column < screen.width {
        guard let old, old[row, column] == screen[row, column] else {
          // Start of a changed run: back up to the lead cell of a wide character.
          var start = column
          if screen[row, start].isContinuation, start > 0 { start -= 1 }
          var end = column
          while end < screen.width {
            if let old, old[row, end] == screen[row, end], !screen[row, end].isContinuation {
              break
            }
            end += 1
          }
          output += "\u{1B}[\(row + 1);\(start + 1)H"
          var position = start
          while position < end {
            let cell = screen[row, position]
            if cell.isContinuation {
              position += 1
              continue
            }
            if currentStyle != cell.style {
              output += cell.style.sequence
              currentStyle = cell.style
            }
            output.append(cell.character)
            position += cell.width
          }
          column = max(position, column + 1)
          continue
        }
        column += 1
      }
    }
    if currentStyle != nil { output += "\u{1B}[0m" }
    previous = screen
    return output
  }
}
