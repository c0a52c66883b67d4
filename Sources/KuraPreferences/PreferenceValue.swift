import Foundation
import KuraBase
import KuraSQLite

/// One stored preference value, typed: text, a whole number, a floating-point number, a Boolean,
/// a date, bytes, or an array or dictionary of these.
///
/// `PreferenceValue` is the type-safe replacement for the `[String: Any]` of property-list
/// defaults: a dictionary of mixed values is a `[String: PreferenceValue]`, and every value says
/// what it is. It is also what tools see: ``Preferences/value(forKey:)`` returns the stored value
/// of any key, whatever type its key declares.
///
/// Its `Codable` form is plain JSON (`"text"`, `3`, `2.5`, `true`, `[…]`, `{…}`); dates and bytes
/// follow the encoder's date and data strategies, and decoding never produces ``date(_:)`` or
/// ``data(_:)`` (JSON has no such types). Preferences store values with their exact type.
///
/// For example:
///
/// ```swift
/// let entries: [String: PreferenceValue] = [
///   UUID().uuidString: "FirstView",
///   "count": 3,
///   "opened": .date(Date()),
/// ]
/// preferences[.myDictionary] = entries
/// ```
public enum PreferenceValue: Sendable, Hashable {
  /// Text.
  case string(String)
  /// A 64-bit whole number.
  case integer(Int64)
  /// A 64-bit floating-point number.
  case double(Double)
  /// A Boolean.
  case bool(Bool)
  /// A point in time.
  case date(Date)
  /// Bytes.
  case data(Data)
  /// An ordered list of values.
  case array([PreferenceValue])
  /// Values by name.
  case dictionary([String: PreferenceValue])

  /// The name of this value's type, as `kura defaults` shows it: `string`, `integer`, `double`,
  /// `bool`, `date`, `data`, `array` or `dictionary`.
  ///
  /// For example: `PreferenceValue.integer(3).typeName` is `"integer"`.
  public var typeName: String {
    switch self {
    case .string: return "string"
    case .integer: return "integer"
    case .double: return "double"
    case .bool: return "bool"
    case .date: return "date"
    case .data: return "data"
    case .array: return "array"
    case .dictionary: return "dictionary"
    }
  }
}

extension PreferenceValue: ExpressibleByStringLiteral {
  /// Creates a ``string(_:)`` value from a literal.
  ///
  /// For example: `let value: PreferenceValue = "FirstView"`.
  ///
  /// - Parameter value: The text.
  public init(stringLiteral value: String) { self = .string(value) }
}

extension PreferenceValue: ExpressibleByIntegerLiteral {
  /// Creates an ``integer(_:)`` value from a literal.
  ///
  /// For example: `let value: PreferenceValue = 3`.
  ///
  /// - Parameter value: The number.
  public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension PreferenceValue: ExpressibleByFloatLiteral {
  /// Creates a ``double(_:)`` value from a literal.
  ///
  /// For example: `let value: PreferenceValue = 2.5`.
  ///
  /// - Parameter value: The number.
  public init(floatLiteral value: Double) { self = .double(value) }
}

extension PreferenceValue: ExpressibleByBooleanLiteral {
  /// Creates a ``bool(_:)`` value from a literal.
  ///
  /// For example: `let value: PreferenceValue = true`.
  ///
  /// - Parameter value: The Boolean.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension PreferenceValue: ExpressibleByArrayLiteral {
  /// Creates an ``array(_:)`` value from a literal.
  ///
  /// For example: `let value: PreferenceValue = ["a", 1, true]`.
  ///
  /// - Parameter elements: The values.
  public init(arrayLiteral elements: PreferenceValue...) { self = .array(elements) }
}

extension PreferenceValue: ExpressibleByDictionaryLiteral {
  /// Creates a ``dictionary(_:)`` value from a literal (a repeated name keeps the last value).
  ///
  /// For example: `let value: PreferenceValue = ["name": "Luna", "age": 14]`.
  ///
  /// - Parameter elements: The names and values.
  public init(dictionaryLiteral elements: (String, PreferenceValue)...) {
    self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
}

extension PreferenceValue: CustomStringConvertible {
  /// A readable rendering, as `kura defaults read` prints it: text as is, dates in ISO 8601,
  /// bytes as `<0a1b…>`, arrays and dictionaries in brackets with keys sorted.
  ///
  /// For example: `PreferenceValue.array(["a", 1]).description` is `("a", 1)`.
  public var description: String { render(nested: false) }

  private func render(nested: Bool) -> String {
    switch self {
    case .string(let value):
      guard nested else { return value }
      let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
        .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
      return "\"" + escaped + "\""
    case .integer(let value): return String(value)
    case .double(let value): return String(value)
    case .bool(let value): return value ? "true" : "false"
    case .date(let value): return Self.formatDate(value)
    case .data(let value): return "<" + value.map { String(format: "%02x", $0) }.joined() + ">"
    case .array(let values):
      return "(" + values.map { $0.render(nested: true) }.joined(separator: ", ") + ")"
    case .dictionary(let values):
      let entries = values.keys.sorted().map { key in
        "\"\(key)\" = \(values[key]?.render(nested: true) ?? "")"
      }
      return "{" + entries.joined(separator: "; ") + "}"
    }
  }

  /// Formats a date as ISO 8601 in UTC with fractional seconds when it has them.
  package static func formatDate(_ date: Date) -> String {
    let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    let whole = date.timeIntervalSince1970.rounded(.down) == date.timeIntervalSince1970
    return whole ? date.formatted(.iso8601) : date.formatted(style)
  }

  /// Parses an ISO 8601 date, with or without fractional seconds or a time.
  package static func parseDate(_ text: String) -> Date? {
    if let date = try? Date(text, strategy: .iso8601) { return date }
    let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    if let date = try? Date(text, strategy: fractional) { return date }
    let dayOnly = Date.ISO8601FormatStyle().year().month().day()
    return try? Date(text, strategy: dayOnly)
  }
}

extension PreferenceValue: Codable {
  /// Decodes plain JSON: `true`/`false`, whole numbers, other numbers, text, arrays and objects.
  ///
  /// For example:
  ///
  /// ```swift
  /// let value = try JSONDecoder().decode(PreferenceValue.self, from: Data("[1, \"a\"]".utf8))
  /// ```
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` for `null` or a value of no supported type.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int64.self) {
      self = .integer(value)
    } else if let value = try? container.decode(Double.self) {
      self = .double(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([PreferenceValue].self) {
      self = .array(value)
    } else if let value = try? container.decode([String: PreferenceValue].self) {
      self = .dictionary(value)
    } else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "null or a value no preference can hold")
    }
  }

  /// Encodes plain JSON (dates and bytes follow the encoder's strategies).
  ///
  /// For example: `let json = try JSONEncoder().encode(PreferenceValue.array([1, 2]))`.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: The encoder's error (for example for a non-finite number).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .string(let value): try container.encode(value)
    case .integer(let value): try container.encode(value)
    case .double(let value): try container.encode(value)
    case .bool(let value): try container.encode(value)
    case .date(let value): try container.encode(value)
    case .data(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .dictionary(let value): try container.encode(value)
    }
  }
}
