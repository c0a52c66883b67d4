import Foundation
import KuraBase
import KuraSQLite

extension PreferenceValue {
  /// The types text can be read as (`kura defaults write` flags).
  ///
  /// For example: `PreferenceValue.TextType.integer`.
  public enum TextType: String, Sendable, CaseIterable {
    /// The text itself.
    case string
    /// A whole number such as `42`.
    case integer
    /// A number such as `2.5`.
    case double
    /// `true`, `false`, `yes`, `no`, `1` or `0` (any case).
    case bool
    /// An ISO 8601 date such as `2026-11-30T10:15:00Z` or `2026-11-30`.
    case date
    /// JSON: objects become dictionaries, arrays arrays, numbers integers or doubles.
    case json
  }

  /// Reads a value from text typed by a person or a script.
  ///
  /// For example:
  ///
  /// ```swift
  /// let value = try PreferenceValue(parsing: "42", as: .integer)  // .integer(42)
  /// ```
  ///
  /// - Parameters:
  ///   - text: The text.
  ///   - type: What the text must be.
  /// - Throws: ``PreferencesError/Code/invalidValue`` quoting the text.
  public init(parsing text: String, as type: TextType) throws {
    let failure = PreferencesError.invalidValue(text: text, type: type.rawValue)
    switch type {
    case .string:
      self = .string(text)
    case .integer:
      guard let value = Int64(text.trimmingCharacters(in: .whitespaces), radix: 10) else {
        throw failure
      }
      self = .integer(value)
    case .double:
      guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
        throw failure
      }
      self = .double(value)
    case .bool:
      switch text.lowercased() {
      case "true", "yes", "1": self = .bool(true)
      case "false", "no", "0": self = .bool(false)
      default: throw failure
      }
    case .date:
      guard let date = Self.parseDate(text) else { throw failure }
      self = .date(date)
    case .json:
      guard let value = try? JSONDecoder().decode(PreferenceValue.self, from: Data(text.utf8))
      else { throw failure }
      self = value
    }
  }
}
