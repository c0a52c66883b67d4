import Foundation
import KuraBase
import KuraSQLite

/// A type whose values convert to and from one ``PreferenceValue`` without loss.
///
/// Kura conforms the six `@AppStorage` types (`Bool`, `Int`, `Double`, `String`, `URL`, `Data`),
/// `Date`, `UUID`, `Float`, the fixed-width integers, ``PreferenceValue`` itself, and arrays, sets
/// and `String`-keyed dictionaries of conforming values. You don't need to conform your own types:
/// a ``Preferences/Key`` also accepts `RawRepresentable` types with such raw values and any
/// `Codable` type.
///
/// For example:
///
/// ```swift
/// let value = 42.preferenceValue          // .integer(42)
/// let back = Int(preferenceValue: value)  // 42
/// ```
public protocol PreferenceRepresentable: Sendable {
  /// This value as a stored preference value.
  var preferenceValue: PreferenceValue { get }
  /// Reads a value back; `nil` when the stored value is not of this type.
  ///
  /// For example:
  ///
  /// ```swift
  /// let count = Int(preferenceValue: .integer(3))     // 3
  /// let none = Int(preferenceValue: .string("three")) // nil
  /// ```
  ///
  /// - Parameter preferenceValue: The stored value.
  init?(preferenceValue: PreferenceValue)
}

extension PreferenceValue: PreferenceRepresentable {
  /// The value itself.
  public var preferenceValue: PreferenceValue { self }
  /// Any stored value, unchanged (it never fails).
  ///
  /// For example: `PreferenceValue(preferenceValue: .string("x"))` is `.string("x")`.
  ///
  /// - Parameter preferenceValue: The stored value.
  public init?(preferenceValue: PreferenceValue) { self = preferenceValue }
}

extension Bool: PreferenceRepresentable {
  /// ``PreferenceValue/bool(_:)``.
  public var preferenceValue: PreferenceValue { .bool(self) }
  /// Reads a Boolean, or the whole number 0 or 1.
  ///
  /// For example: `Bool(preferenceValue: .integer(1))` is `true`.
  public init?(preferenceValue: PreferenceValue) {
    switch preferenceValue {
    case .bool(let value): self = value
    case .integer(0): self = false
    case .integer(1): self = true
    default: return nil
    }
  }
}

extension String: PreferenceRepresentable {
  /// ``PreferenceValue/string(_:)``.
  public var preferenceValue: PreferenceValue { .string(self) }
  /// Reads text.
  ///
  /// For example: `String(preferenceValue: .string("dark"))` is `"dark"`.
  public init?(preferenceValue: PreferenceValue) {
    guard case .string(let value) = preferenceValue else { return nil }
    self = value
  }
}

extension Double: PreferenceRepresentable {
  /// ``PreferenceValue/double(_:)``.
  public var preferenceValue: PreferenceValue { .double(self) }
  /// Reads a floating-point or whole number.
  ///
  /// For example: `Double(preferenceValue: .integer(2))` is `2.0`.
  public init?(preferenceValue: PreferenceValue) {
    switch preferenceValue {
    case .double(let value): self = value
    case .integer(let value): self = Double(value)
    default: return nil
    }
  }
}

extension Float: PreferenceRepresentable {
  /// ``PreferenceValue/double(_:)``.
  public var preferenceValue: PreferenceValue { .double(Double(self)) }
  /// Reads a floating-point or whole number (rounded to `Float`).
  ///
  /// For example: `Float(preferenceValue: .double(0.5))` is `0.5`.
  public init?(preferenceValue: PreferenceValue) {
    guard let value = Double(preferenceValue: preferenceValue) else { return nil }
    self = Float(value)
  }
}

extension Date: PreferenceRepresentable {
  /// ``PreferenceValue/date(_:)``.
  public var preferenceValue: PreferenceValue { .date(self) }
  /// Reads a date.
  ///
  /// For example: `Date(preferenceValue: .date(.distantPast))` is `.distantPast`.
  public init?(preferenceValue: PreferenceValue) {
    guard case .date(let value) = preferenceValue else { return nil }
    self = value
  }
}

extension Data: PreferenceRepresentable {
  /// ``PreferenceValue/data(_:)``.
  public var preferenceValue: PreferenceValue { .data(self) }
  /// Reads bytes.
  ///
  /// For example: `Data(preferenceValue: .data(Data([1])))` is that byte.
  public init?(preferenceValue: PreferenceValue) {
    guard case .data(let value) = preferenceValue else { return nil }
    self = value
  }
}

extension URL: PreferenceRepresentable {
  /// The `absoluteString` as ``PreferenceValue/string(_:)``.
  public var preferenceValue: PreferenceValue { .string(absoluteString) }
  /// Reads a URL string.
  ///
  /// For example: `URL(preferenceValue: .string("https://example.com"))` is that URL.
  public init?(preferenceValue: PreferenceValue) {
    guard case .string(let value) = preferenceValue, let url = URL(string: value) else {
      return nil
    }
    self = url
  }
}

extension UUID: PreferenceRepresentable {
  /// The uppercase `uuidString` as ``PreferenceValue/string(_:)``.
  public var preferenceValue: PreferenceValue { .string(uuidString) }
  /// Reads a UUID string.
  ///
  /// For example: `UUID(preferenceValue: .string("3F4D8393-8D86-4C81-AFB9-1854A5E38BDC"))` is that UUID.
  public init?(preferenceValue: PreferenceValue) {
    guard case .string(let value) = preferenceValue, let uuid = UUID(uuidString: value) else {
      return nil
    }
    self = uuid
  }
}

/// Whole numbers are kept as ``PreferenceValue/integer(_:)``; a `UInt64` or `UInt` above
/// `Int64.max` is kept as its decimal text.
extension FixedWidthInteger where Self: PreferenceRepresentable {
  /// ``PreferenceValue/integer(_:)`` (or the decimal text when it exceeds `Int64`).
  public var preferenceValue: PreferenceValue {
    if let value = Int64(exactly: self) { return .integer(value) }
    return .string(String(self))
  }
  /// Reads a whole number that fits this type.
  ///
  /// For example: `UInt8(preferenceValue: .integer(200))` is `200`; `.integer(300)` is `nil`.
  public init?(preferenceValue: PreferenceValue) {
    switch preferenceValue {
    case .integer(let value):
      guard let exact = Self(exactly: value) else { return nil }
      self = exact
    case .string(let text):
      guard let value = Self(text, radix: 10) else { return nil }
      self = value
    default: return nil
    }
  }
}

extension Int: PreferenceRepresentable {
  /// ``PreferenceValue/integer(_:)``.
  public var preferenceValue: PreferenceValue { .integer(Int64(self)) }
  /// Reads a whole number that fits `Int`.
  ///
  /// For example: `Int(preferenceValue: .integer(3))` is `3`.
  @inlinable
  public init?(preferenceValue: PreferenceValue) {
    guard case .integer(let value) = preferenceValue, let exact = Int(exactly: value) else {
      return nil
    }
    self = exact
  }
}
extension Int8: PreferenceRepresentable {}
extension Int16: PreferenceRepresentable {}
extension Int32: PreferenceRepresentable {}
extension Int64: PreferenceRepresentable {
  /// ``PreferenceValue/integer(_:)``.
  public var preferenceValue: PreferenceValue { .integer(self) }
  /// Reads a whole number.
  ///
  /// For example: `Int64(preferenceValue: .integer(3))` is `3`.
  @inlinable
  public init?(preferenceValue: PreferenceValue) {
    guard case .integer(let value) = preferenceValue else { return nil }
    self = value
  }
}
extension UInt: PreferenceRepresentable {}
extension UInt8: PreferenceRepresentable {}
extension UInt16: PreferenceRepresentable {}
extension UInt32: PreferenceRepresentable {}
extension UInt64: PreferenceRepresentable {}

extension Array: PreferenceRepresentable where Element: PreferenceRepresentable {
  /// ``PreferenceValue/array(_:)`` of the elements.
  public var preferenceValue: PreferenceValue { .array(map(\.preferenceValue)) }
  /// Reads an array whose every element is of the element type.
  ///
  /// For example: `[Int](preferenceValue: .array([.integer(1), .integer(2)]))` is `[1, 2]`.
  public init?(preferenceValue: PreferenceValue) {
    guard case .array(let values) = preferenceValue else { return nil }
    var result: [Element] = []
    result.reserveCapacity(values.count)
    for value in values {
      guard let element = Element(preferenceValue: value) else { return nil }
      result.append(element)
    }
    self = result
  }
}

extension Set: PreferenceRepresentable where Element: PreferenceRepresentable {
  /// ``PreferenceValue/array(_:)`` of the elements.
  public var preferenceValue: PreferenceValue { .array(map(\.preferenceValue)) }
  /// Reads an array whose every element is of the element type.
  ///
  /// For example: `Set<String>(preferenceValue: .array([.string("a")]))` is `["a"]`.
  public init?(preferenceValue: PreferenceValue) {
    guard let elements = [Element](preferenceValue: preferenceValue) else { return nil }
    self = Set(elements)
  }
}

extension Dictionary: PreferenceRepresentable
where Key == String, Value: PreferenceRepresentable {
  /// ``PreferenceValue/dictionary(_:)`` of the values.
  public var preferenceValue: PreferenceValue { .dictionary(mapValues(\.preferenceValue)) }
  /// Reads a dictionary whose every value is of the value type.
  ///
  /// For example: `[String: Int](preferenceValue: .dictionary(["a": .integer(1)]))` is `["a": 1]`.
  public init?(preferenceValue: PreferenceValue) {
    guard case .dictionary(let values) = preferenceValue else { return nil }
    var result: [String: Value] = [:]
    for (key, value) in values {
      guard let element = Value(preferenceValue: value) else { return nil }
      result[key] = element
    }
    self = result
  }
}
