import Foundation

// Minimal stand-ins for the store's schema declarations, so the query layer builds and is tested
// on its own branch. The store branch owns the real ones; the lead reconciles them at merge time.

/// A model the store keeps: a plain `Codable` struct with an id.
///
/// For example:
///
/// ```swift
/// struct Student: PersistentModel {
///   var id = UUID()
///   var name: String
/// }
/// ```
public protocol PersistentModel: Codable, Identifiable, Sendable where ID: Hashable & Sendable {}

/// How a model maps onto one table.
struct ModelSchema {
  /// The table name.
  var tableName: String
  /// One column per stored property.
  var columns: [ColumnSchema]

  /// The column stored for `keyPath`, or `nil` when the key path is not a stored property.
  func column(for keyPath: AnyKeyPath) -> ColumnSchema? {
    columns.first { $0.keyPath == keyPath }
  }
}

/// One stored property's column.
struct ColumnSchema {
  /// The column name.
  var name: String
  /// The model's key path to the property.
  var keyPath: AnyKeyPath
  /// How the value is stored.
  var kind: ColumnKind
  /// Whether the property is optional (the column is nullable).
  var isOptional: Bool
}

/// How a property's value is stored in its column.
enum ColumnKind: Sendable, Hashable {
  case integer, real, text, blob, bool, date, uuid, url, json
}

/// The SQLite value stored for `value` in a column of `kind`, or `nil` when it does not fit.
func sqliteValue(for value: Any, kind: ColumnKind) -> SQLiteValue? {
  if let optional = value as? any OptionalValue {
    guard let wrapped = optional.wrappedValue else { return .null }
    return sqliteValue(for: wrapped, kind: kind)
  }
  if kind != .json, let raw = value as? any RawRepresentable {
    return sqliteValue(for: raw.rawValue, kind: kind)
  }
  switch kind {
  case .integer:
    guard let integer = value as? any BinaryInteger, let exact = Int64(exactly: integer) else {
      return nil
    }
    return .integer(exact)
  case .real:
    if let double = value as? Double { return double.sqliteValue }
    if let float = value as? Float { return Double(float).sqliteValue }
    return nil
  case .text: return (value as? String).map { .text($0) }
  case .blob: return (value as? Data).map { .blob($0) }
  case .bool: return (value as? Bool).map { $0.sqliteValue }
  case .date: return (value as? Date).map { $0.sqliteValue }
  case .uuid: return (value as? UUID).map { $0.sqliteValue }
  case .url: return (value as? URL).map { $0.sqliteValue }
  case .json:
    guard let encodable = value as? any Encodable,
      let data = try? JSONEncoder().encode(encodable)
    else { return nil }
    return .text(String(decoding: data, as: UTF8.self))
  }
}
