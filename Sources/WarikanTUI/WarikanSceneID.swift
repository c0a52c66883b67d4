#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The scene id of the terminal session the app runs in, so that reopening the app in the same
/// session (the same tmux pane, the same terminal device) restores its scene state.
///
/// In order: `KURA_SCENE_ID` when set; inside tmux, the server and pane (`TMUX`, `TMUX_PANE`);
/// the name of the terminal device on standard input (`/dev/pts/3` gives `tty-pts-3`); else
/// `terminal`.
///
/// For example:
///
/// ```swift
/// WarikanSceneID.current(environment: ["TMUX": "/tmp/tmux-1000/default,4242,0",
///                                      "TMUX_PANE": "%3"])  // "tmux-4242-pane-3"
/// ```
package enum WarikanSceneID {
  /// The session's scene id.
  ///
  /// - Parameters:
  ///   - environment: The process environment.
  ///   - terminalName: The terminal device of standard input, if any.
  /// - Returns: An id made of letters, digits, `-` and `_` (never empty).
  package static func current(
    environment: [String: String], terminalName: String? = standardInputTerminalName()
  ) -> String {
    if let explicit = environment["KURA_SCENE_ID"], !explicit.isEmpty {
      return sanitize(explicit)
    }
    if let tmux = environment["TMUX"], let pane = environment["TMUX_PANE"], !pane.isEmpty {
      let fields = tmux.split(separator: ",", omittingEmptySubsequences: false)
      let server = fields.count > 1 ? String(fields[1]) : "0"
      return sanitize("tmux-\(server)-pane-\(pane.drop { $0 == "%" })")
    }
    if let terminalName, terminalName.hasPrefix("/dev/") {
      return sanitize("tty-" + terminalName.dropFirst(5))
    }
    return "terminal"
  }

  /// The device name of the terminal on standard input, or `nil`.
  ///
  /// - Returns: A path such as `/dev/pts/3`.
  package static func standardInputTerminalName() -> String? {
    guard let name = ttyname(STDIN_FILENO) else { return nil }
    return String(cString: name)
  }

  private static func sanitize(_ text: some StringProtocol) -> String {
    let cleaned = String(
      text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "-" })
    return cleaned.isEmpty ? "terminal" : cleaned
  }
}
