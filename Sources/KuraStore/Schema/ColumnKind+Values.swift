import Foundation
import KuraBase
import KuraSQLite

/// The value stored in a column of kind `kind` for a Swift value, with the mappings of
/// ``DatabaseValue`` (Bool INTEGER 0/1, Date its `timeIntervalSinceReferenceDate` as a `Double`, UUID uppercase TEXT, URL TEXT
/// `absoluteString`, `RawRepresentable` enums their raw value, other `Codable` values JSON TEXT).
/// Both rows and the values bound in translated predicates go through here, so they always agree.
///
/// - Returns: The value, `.null` for `nil`, or `nil` when `value` does not fit the kind.
package func databaseValue(for value: Any, kind: ColumnKind) -> DatabaseValue? {
  if let optional = value as? any OptionalValue {
    guard let wrapped = optional.wrappedValue else { return .null }
    return databaseValue(for: wrapped, kind: kind)
  }
  switch kind {
  case .integer:
    if let integer = integerValue(value) { return .integer(integer) }
    if let raw = value as? any RawRepresentable, let integer = integerValue(raw.rawValue) {
      return .integer(integer)
    }
    return nil
  case .real:
    if let double = value as? Double { return double.databaseValue }
    if let float = value as? Float { return Double(float).databaseValue }
    if let integer = integerValue(value) { return .real(Double(integer)) }
    return nil
  case .text:
    if let string = value as? String { return .text(string) }
    if let raw = value as? any RawRepresentable, let string = raw.rawValue as? String {
      return .text(string)
    }
    return nil
  case .blob:
    return (value as? Data).map { .blob($0) }
  case .bool:
    return (value as? Bool).map { .integer($0 ? 1 : 0) }
  case .date:
    return (value as? Date).map { $0.timeIntervalSinceReferenceDate.databaseValue }
  case .uuid:
    return (value as? UUID).map { .text($0.uuidString) }
  case .url:
    return (value as? URL).map { .text($0.absoluteString) }
  case .json:
    guard let encodable = value as? any Encodable,
      let data = try? ColumnJSON.encoder().encode(encodable)
    else { return nil }
    return .text(String(decoding: data, as: UTF8.self))
  }
}

private func integerValue(_ value: Any) -> Int64? {
  switch value {
  case let value as Int: return Int64(value)
  case let value as Int64: return value
  case let value as Int32: return Int64(value)
  case let value as Int16: return Int64(value)
  case let value as Int8: return Int64(value)
  case let value as UInt: return Int64(exactly: value)
  case let value as UInt64: return Int64(exactly: value)
  case let value as UInt32: return Int64(value)
  case let value as UInt16: return Int64(value)
  case let value as UInt8: return Int64(value)
  default: return nil
  }
}

/// The JSON settings of JSON columns (nested `Codable` values): keys sorted so equal values are
/// equal text.
package enum ColumnJSON {
  package static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }

  package static func decoder() -> JSONDecoder { JSONDecoder() }
}
