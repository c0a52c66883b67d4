/// How a cell is drawn: colors and attributes, written as one ANSI SGR sequence.
///
/// For example:
///
/// ```swift
/// let warning = Style(foreground: .red, bold: true)
/// let selected = Style(inverse: true)
/// ```
package struct Style: Hashable, Sendable {
  /// One of the eight ANSI colors, or its bright variant.
  package enum Color: Hashable, Sendable {
    case black, red, green, yellow, blue, magenta, cyan, white
    case brightBlack, brightRed, brightGreen, brightYellow, brightBlue, brightMagenta, brightCyan
    case brightWhite

    /// The SGR foreground code (30–37, 90–97); the background code is this plus 10.
    var foregroundCode: Int {
      switch self {
      case .black: 30
      case .red: 31
      case .green: 32
      case .yellow: 33
      case .blue: 34
      case .magenta: 35
      case .cyan: 36
      case .white: 37
      case .brightBlack: 90
      case .brightRed: 91
      case .brightGreen: 92
      case .brightYellow: 93
      case .brightBlue: 94
      case .brightMagenta: 95
      case .brightCyan: 96
      case .brightWhite: 97
      }
    }
  }

  /// The text color; `nil` for the terminal's default.
  package var foreground: Color?
  /// The background color; `nil` for the terminal's default.
  package var background: Color?
  /// Bold text.
  package var bold: Bool
  /// Dim (faint) text.
  package var dim: Bool
  /// Underlined text.
  package var underline: Bool
  /// Foreground and background swapped.
  package var inverse: Bool

  /// Creates a style; every part defaults to the terminal's default.
  ///
  /// - Parameters:
  ///   - foreground: The text color.
  ///   - background: The background color.
  ///   - bold: Bold text.
  ///   - dim: Dim text.
  ///   - underline: Underlined text.
  ///   - inverse: Swapped colors.
  package init(
    foreground: Color? = nil, background: Color? = nil, bold: Bool = false, dim: Bool = false,
    underline: Bool = false, inverse: Bool = false
  ) {
    self.foreground = foreground
    self.background = background
    self.bold = bold
    self.dim = dim
    self.underline = underline
    self.inverse = inverse
  }

  /// The terminal's default look.
  package static let plain = Style()

  /// The SGR sequence that sets exactly this style (it resets first).
  package var sequence: String {
    var codes = ["0"]
    if bold { codes.append("1") }
    if dim { codes.append("2") }
    if underline { codes.append("4") }
    if inverse { codes.append("7") }
    if let foreground { codes.append(String(foreground.foregroundCode)) }
    if let background { codes.append(String(background.foregroundCode + 10)) }
    return "\u{1B}[" + codes.joined(separator: ";") + "m"
  }
}
