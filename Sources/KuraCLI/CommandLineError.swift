import Foundation

/// A mistake in how a command was called: exit code 64 (`EX_USAGE`), with a message that quotes
/// the bad word and says the fix.
///
/// For example:
///
/// ```swift
/// throw UsageError("`0` is not a valid number of people: use 1 or more.", command: "warikan split")
/// ```
public struct UsageError: Error, Sendable, CustomStringConvertible, Equatable {
  /// What is wrong and how to fix it.
  public var message: String
  /// The command path, such as `warikan split`, used to point at its help.
  public var command: String

  /// Creates a usage error.
  ///
  /// For example: `UsageError("missing <yen>.", command: "warikan add")`.
  ///
  /// - Parameters:
  ///   - message: What is wrong and how to fix it.
  ///   - command: The command path.
  public init(_ message: String, command: String) {
    self.message = message
    self.command = command
  }

  /// The message followed by a pointer to the command's help.
  public var description: String { "\(message)\nSee `\(command) --help`." }
}

/// Ends the tool with a given exit status, printing nothing more.
///
/// For example:
///
/// ```swift
/// guard confirmed else { throw ExitCode(1) }
/// ```
public struct ExitCode: Error, Sendable, Equatable {
  /// The status.
  public var status: Int32
  /// Creates an exit code.
  ///
  /// For example: `ExitCode(2)`.
  ///
  /// - Parameter status: The process exit status.
  public init(_ status: Int32) { self.status = status }
  /// `EX_USAGE`: the command was called wrongly.
  public static let usage = ExitCode(64)
  /// A run-time failure.
  public static let failure = ExitCode(1)
}
