/// Why the terminal could not be used.
///
/// For example:
///
/// ```swift
/// do { try terminal.enter() } catch let error as TerminalError { print(error) }
/// ```
package struct TerminalError: Error, CustomStringConvertible, Sendable {
  /// What was being done, such as `enter raw mode`.
  package var operation: String
  /// The `errno` value.
  package var code: Int32
  /// The system's message for the code.
  package var reason: String

  /// The message: what failed, why, and what to do.
  package var description: String {
    "Can't \(operation) on the terminal: \(reason) (errno \(code)). "
      + "Run the app from an interactive terminal."
  }
}
