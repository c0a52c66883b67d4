import Foundation
import TerminalUI

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
  /// What is wrong with a word that did not parse, when there is more to say than
  /// ``expectation`` (a number out of range); `nil` otherwise.
  static func problem(with argument: String) -> String?
}

extension ArgumentConvertible {
  /// Nothing more to say than ``expectation``.
  public static func problem(with argument: String) -> String? { nil }
}

extension String {
  /// The word with full-width digits, signs and decimal point (typed with a Japanese or Chinese
  /// input method: `１２`, `－３`, `２．５`) made ASCII, so every number argument accepts them.
  ///
  /// For example: `"１２".withASCIIDigits` is `"12"`.
  public var withASCIIDigits: String { FullWidthDigits.ascii(self) }
}

extension FixedWidthInteger {
  /// "it is out of range …" for a whole number this type can't hold.
  static func rangeProblem(with argument: String) -> String? {
    var digits = Substring(argument.withASCIIDigits)
    if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
    return "it is out of range; expected a whole number from \(Self.min) to \(Self.max)"
  }
}

extension String: ArgumentConvertible {
  /// Any word is a string.
  public init?(argument: String) { self = argument }
  /// "text".
  public static var expectation: String { "text" }
}

extension Int: ArgumentConvertible {
  /// Parses a whole number such as `42`, `-3` or `１２` (full-width digits are accepted).
  public init?(argument: String) { self.init(argument.withASCIIDigits, radix: 10) }
  /// "a whole number".
  public static var expectation: String { "a whole number such as 3" }
  /// Says when the word is a whole number out of range.
  public static func problem(with argument: String) -> String? { rangeProblem(with: argument) }
}

extension Int64: ArgumentConvertible {
  /// Parses a whole number such as `42`, `-3` or `１２` (full-width digits are accepted).
  public init?(argument: String) { self.init(argument.withASCIIDigits, radix: 10) }
  /// "a whole number".
  public static var expectation: String { "a whole number such as 3" }
  /// Says when the word is a whole number out of range.
  public static func problem(with argument: String) -> String? { rangeProblem(with: argument) }
}

extension Double: ArgumentConvertible {
  /// Parses a finite decimal number such as `2.5`.
  public init?(argument: String) {
    guard let value = Double(argument.withASCIIDigits), value.isFinite else { return nil }
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
