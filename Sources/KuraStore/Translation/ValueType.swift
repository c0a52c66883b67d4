import Foundation
import KuraBase
import KuraSQLite

/// The Swift types a translated expression may produce, grouped by how SQL treats them.
package enum ScalarType: Sendable, Hashable {
  /// Any `BinaryInteger` that fits 64 bits.
  case integer
  /// `Double`.
  case double
  /// `Float`: compared in SQL, but its arithmetic rounds differently and runs in memory.
  case float
  /// `String`, compared with the dialect's Swift string collation.
  case string
  /// `Bool`, stored 0 or 1.
  case bool
  /// `Date`, stored as seconds since 1970.
  case date
  /// `UUID`, stored as uppercase text (whose byte order is the UUID's byte order).
  case uuid
  /// `URL`, stored as its absolute string.
  case url
  /// `Data`, stored as a blob.
  case data
  /// A `RawRepresentable` enum with a `String` raw value (equality only).
  case rawString
  /// A `RawRepresentable` enum with an integer raw value (equality only).
  case rawInteger
  /// Anything else stored in a column (a nested Codable value as JSON): only `== nil` in SQL.
  case opaque

  /// Whether SQL's `<` on the stored values is Swift's `<`.
  package var isOrderedInSQL: Bool {
    switch self {
    case .integer, .double, .float, .string, .date, .uuid: return true
    default: return false
    }
  }

  /// Whether a non-optional value of this type may be NaN (stored as NULL).
  package var isFloatingPoint: Bool { self == .double || self == .float }
}

/// A Swift type seen by the translator: its scalar type and whether it is optional.
package struct ValueType: Sendable, Hashable, CustomStringConvertible {
  package var scalar: ScalarType
  package var isOptional: Bool

  /// The Boolean type of predicates.
  package static let bool = ValueType(scalar: .bool, isOptional: false)

  package var description: String { "\(scalar)\(isOptional ? "?" : "")" }

  /// The type of `type`, or `nil` when it has no SQL form (nested optionals, collections, …).
  package static func of(_ type: Any.Type) -> ValueType? {
    if let optional = type as? any OptionalValue.Type {
      guard let wrapped = scalar(of: optional.wrappedType) else { return nil }
      return ValueType(scalar: wrapped, isOptional: true)
    }
    return scalar(of: type).map { ValueType(scalar: $0, isOptional: false) }
  }

  private static func scalar(of type: Any.Type) -> ScalarType? {
    if type == Double.self { return .double }
    if type == Float.self { return .float }
    if type == String.self { return .string }
    if type == Bool.self { return .bool }
    if type == Date.self { return .date }
    if type == UUID.self { return .uuid }
    if type == URL.self { return .url }
    if type == Data.self { return .data }
    if type is any FixedWidthInteger.Type { return .integer }
    if let raw = type as? any RawRepresentable.Type {
      let rawType = rawValueType(of: raw)
      if rawType == String.self { return .rawString }
      if rawType is any FixedWidthInteger.Type { return .rawInteger }
    }
    return nil
  }

  private static func rawValueType<T: RawRepresentable>(of type: T.Type) -> Any.Type {
    T.RawValue.self
  }

  /// The column kind that stores this type.
  package var columnKind: ColumnKind? {
    switch scalar {
    case .integer, .rawInteger: return .integer
    case .double, .float: return .real
    case .string, .rawString: return .text
    case .bool: return .bool
    case .date: return .date
    case .uuid: return .uuid
    case .url: return .url
    case .data: return .blob
    case .opaque: return nil
    }
  }

  /// `value` (of this type) as the store writes it, or `nil` when SQL could not match it exactly:
  /// NaN, a URL relative to a base, an integer beyond 64 bits.
  package func bind(_ value: Any) -> DatabaseValue? {
    var value = value
    if let optional = value as? any OptionalValue {
      guard let wrapped = optional.wrappedValue else { return .null }
      value = wrapped
    }
    switch value {
    case let double as Double where double.isNaN: return nil
    case let float as Float where float.isNaN: return nil
    case let date as Date where date.timeIntervalSinceReferenceDate.isNaN: return nil
    case let url as URL where url.baseURL != nil: return nil
    default: break
    }
    guard let kind = columnKind, let stored = databaseValue(for: value, kind: kind),
      !stored.isNull
    else { return nil }
    // A constant compares as a number: -0.0 (stored as its exact BLOB) is SQL's 0.0, as Swift's
    // -0.0 == 0.0.
    if case .blob = stored, kind == .real || kind == .date { return .real(0) }
    return stored
  }
}

/// An optional seen through `Any`.
package protocol OptionalValue {
  /// The wrapped value, or `nil`.
  var wrappedValue: Any? { get }
  /// The wrapped type.
  static var wrappedType: Any.Type { get }
}

extension Optional: OptionalValue {
  package var wrappedValue: Any? { self.map { $0 } }
  package static var wrappedType: Any.Type { Wrapped.self }
}
