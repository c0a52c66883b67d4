import Foundation
import KuraBase
import KuraSQLite

/// How a stored property is kept in its column (the mappings of ``DatabaseValue``; the column
/// types named below are SQLite's, see ``StoreEngine/columnType(_:)``).
package enum ColumnKind: String, Sendable, Hashable, Codable {
  /// The integers and `RawRepresentable` enums with an integer raw value: INTEGER.
  case integer
  /// `Double` and `Float`: REAL.
  case real
  /// `String` and `RawRepresentable` enums with a `String` raw value: TEXT.
  case text
  /// `Data`: BLOB.
  case blob
  /// `Bool`: INTEGER 0 or 1.
  case bool
  /// `Date`: REAL, its `timeIntervalSinceReferenceDate`.
  case date
  /// `UUID`: uppercase TEXT.
  case uuid
  /// `URL`: TEXT `absoluteString`.
  case url
  /// Any other `Codable` value: JSON TEXT (keys sorted).
  case json
}

extension ColumnKind {
  /// The kind of column a Swift type is stored in, or `nil` when the type is not `Codable`.
  package static func of(_ type: Any.Type) -> ColumnKind? {
    switch type {
    case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type, is UInt.Type,
      is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type:
      return .integer
    case is Double.Type, is Float.Type: return .real
    case is Bool.Type: return .bool
    case is String.Type: return .text
    case is Date.Type: return .date
    case is UUID.Type: return .uuid
    case is URL.Type: return .url
    case is Data.Type: return .blob
    default: break
    }
    guard type is any Codable.Type else { return nil }
    if let raw = type as? any RawRepresentable.Type {
      switch rawValueKind(raw) {
      case .integer?: return .integer
      case .text?: return .text
      default: return .json
      }
    }
    return .json
  }

  private static func rawValueKind<T: RawRepresentable>(_ type: T.Type) -> ColumnKind? {
    let raw = T.RawValue.self
    if raw is String.Type { return .text }
    switch raw {
    case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type, is UInt.Type,
      is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type:
      return .integer
    default: return nil
    }
  }
}
