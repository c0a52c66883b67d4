import Foundation

/// A type a command-line word can be parsed as.
///
/// For example:
///
/// ```swift
/// let people: Int = try invocation.argument("people")
/// ```
public protocol ArgumentConvertible {
  /// Parses a word; `nil` when it is not a valid value.
  init?(argument: String)
  /// What a valid value looks like, for error messages: "a whole number".
  static var expectation: String { get }
}

extension String: ArgumentConvertible {
  /// Any word is a string.
  public init?(argument: String) { self = argument }
  /// "text".
  public static var expectation: String { "text" }
}

extension Int: ArgumentConvertible {
  /// Parses a whole number such as `42` or `-3`.
  public init?(argument: String) { self.init(argument, radix: 10) }
  /// "a whole number".
  public static var expectation: String { "a whole number such as 3" }
}

extension Int64: ArgumentConvertible {
  /// Parses a whole number such as `42` or `-3`.
  public init?(argument: String) { self.init(argument, radix: 10) }
  /// "a whole number".
  public static var expectation: String { "a whole number such as 3" }
}

extension Double: ArgumentConvertible {
  /// Parses a finite decimal number such as `2.5`.
  public init?(argument: String) {
    guard let value = Double(argument), value.isFinite else { return nil }
    self = value
  }
  /// "a number".
  public static var expectation: String { "a number such as 2.5" }
}

extension Bool: ArgumentConvertible {
  /// Parses `true`/`false`, `yes`/`no`, `1`/`0` (any case).
  public init?(argument: String) {
    switch argument.lowercased() {
    case "true", "yes", "1": self = true
    case "false", "no", "0": self = false
    default: return nil
    }
  }
  /// "true or false".
  public static var expectation: String { "true or false" }
}
