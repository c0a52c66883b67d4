import Foundation

/// The former name of ``DatabaseValue``, the one value type of every engine, kept so code written
/// for the SQLite layer compiles unchanged.
///
/// For example:
///
/// ```swift
/// let values: [SQLiteValue] = [.text("A"), .integer(2800), .null]
/// ```
public typealias SQLiteValue = DatabaseValue

/// A Swift value that converts to and from one SQLite value.
///
/// Conformances follow the table in ``DatabaseValue``. Conform your own types to store them in
/// a column.
///
/// For example:
///
/// ```swift
/// let value = UUID().sqliteValue          // .text("3F4D8393-…")
/// let back = UUID(sqliteValue: value)     // the same UUID
/// ```
public protocol SQLiteValueConvertible {
  /// The value as SQLite stores it.
  var sqliteValue: DatabaseValue { get }
  /// Reads the value back; `nil` when the stored value does not fit the type.
  ///
  /// For example: `Int(sqliteValue: .integer(3))` is `3`; `Int(sqliteValue: .text("3"))` is `nil`.
  init?(sqliteValue: DatabaseValue)
}

extension Int64: SQLiteValueConvertible {
  /// This integer as INTEGER.
  public var sqliteValue: DatabaseValue { .integer(self) }
  /// Reads an INTEGER (or a REAL with no fraction).
  public init?(sqliteValue: DatabaseValue) {
    switch sqliteValue {
    case .integer(let value): self = value
    case .real(let value):
      guard let exact = Int64(exactly: value) else { return nil }
      self = exact
    default: return nil
    }
  }
}

extension Int: SQLiteValueConvertible {
  /// This integer as INTEGER.
  public var sqliteValue: DatabaseValue { .integer(Int64(self)) }
  /// Reads an INTEGER that fits `Int`.
  public init?(sqliteValue: DatabaseValue) {
    guard let value = Int64(sqliteValue: sqliteValue), let exact = Int(exactly: value) else {
      return nil
    }
    self = exact
  }
}

extension Double: SQLiteValueConvertible {
  /// This number as REAL; NaN and `-0.0` as their exact 8-byte BLOB (``exactSQLiteBlob``).
  public var sqliteValue: DatabaseValue { exactSQLiteBlob.map { .blob($0) } ?? .real(self) }
  /// Reads a REAL, an INTEGER, or the exact BLOB of NaN or `-0.0`.
  public init?(sqliteValue: DatabaseValue) {
    switch sqliteValue {
    case .real(let value): self = value
    case .integer(let value): self = Double(value)
    case .blob(let value):
      guard let exact = Double(exactSQLiteBlob: value) else { return nil }
      self = exact
    default: return nil
    }
  }

  /// The 8-byte BLOB that stores this number when a REAL can't: NaN (SQLite turns it into NULL)
  /// and `-0.0` (SQLite stores it as the integer 0); `nil` for every other number, stored as REAL.
  ///
  /// The bytes are the IEEE 754 bit pattern, most significant byte first.
  ///
  /// For example:
  ///
  /// ```swift
  /// (-0.0).exactSQLiteBlob   // Data([0x80, 0, 0, 0, 0, 0, 0, 0])
  /// 1.5.exactSQLiteBlob      // nil
  /// ```
  public var exactSQLiteBlob: Data? {
    guard isNaN || (self == 0 && sign == .minus) else { return nil }
    return withUnsafeBytes(of: bitPattern.bigEndian) { Data($0) }
  }

  /// Reads the exact BLOB of ``exactSQLiteBlob``; `nil` for any other BLOB.
  ///
  /// For example: `Double(exactSQLiteBlob: Data([0x80, 0, 0, 0, 0, 0, 0, 0]))` is `-0.0`.
  public init?(exactSQLiteBlob data: Data) {
    guard data.count == 8 else { return nil }
    var bits: UInt64 = 0
    for byte in data { bits = bits << 8 | UInt64(byte) }
    let value = Double(bitPattern: bits)
    guard value.exactSQLiteBlob != nil else { return nil }
    self = value
  }
}

extension String: SQLiteValueConvertible {
  /// This string as TEXT.
  public var sqliteValue: DatabaseValue { .text(self) }
  /// Reads TEXT.
  public init?(sqliteValue: DatabaseValue) {
    guard case .text(let value) = sqliteValue else { return nil }
    self = value
  }
}

extension Data: SQLiteValueConvertible {
  /// These bytes as BLOB.
  public var sqliteValue: DatabaseValue { .blob(self) }
  /// Reads a BLOB (or TEXT, as its UTF-8 bytes).
  public init?(sqliteValue: DatabaseValue) {
    switch sqliteValue {
    case .blob(let value): self = value
    case .text(let value): self = Data(value.utf8)
    default: return nil
    }
  }
}

extension Bool: SQLiteValueConvertible {
  /// `1` or `0` as INTEGER.
  public var sqliteValue: DatabaseValue { .integer(self ? 1 : 0) }
  /// Reads an INTEGER: zero is false, anything else true.
  public init?(sqliteValue: DatabaseValue) {
    guard let value = Int64(sqliteValue: sqliteValue) else { return nil }
    self = value != 0
  }
}

extension Date: SQLiteValueConvertible {
  /// `timeIntervalSinceReferenceDate` stored as a `Double` (REAL, or its exact BLOB).
  public var sqliteValue: DatabaseValue { timeIntervalSinceReferenceDate.sqliteValue }
  /// Reads seconds since 2001-01-01 UTC (REAL, INTEGER or the exact BLOB of a `Double`).
  public init?(sqliteValue: DatabaseValue) {
    guard let seconds = Double(sqliteValue: sqliteValue) else { return nil }
    self = Date(timeIntervalSinceReferenceDate: seconds)
  }
}

extension UUID: SQLiteValueConvertible {
  /// The uppercase `uuidString` as TEXT.
  public var sqliteValue: DatabaseValue { .text(uuidString) }
  /// Reads a UUID string (any case) or a 16-byte BLOB.
  public init?(sqliteValue: DatabaseValue) {
    switch sqliteValue {
    case .text(let value):
      guard let uuid = UUID(uuidString: value) else { return nil }
      self = uuid
    case .blob(let value) where value.count == 16:
      let b = Array(value)
      self = UUID(
        uuid: (
          b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
          b[14], b[15]
        ))
    default: return nil
    }
  }
}

extension URL: SQLiteValueConvertible {
  /// The `absoluteString` as TEXT.
  public var sqliteValue: DatabaseValue { .text(absoluteString) }
  /// Reads a URL string.
  public init?(sqliteValue: DatabaseValue) {
    guard case .text(let value) = sqliteValue, let url = URL(string: value) else { return nil }
    self = url
  }
}

extension Optional: SQLiteValueConvertible where Wrapped: SQLiteValueConvertible {
  /// The wrapped value, or NULL.
  public var sqliteValue: DatabaseValue { self?.sqliteValue ?? .null }
  /// NULL reads as `nil`; anything else as the wrapped type.
  public init?(sqliteValue: DatabaseValue) {
    if case .null = sqliteValue {
      self = .none
      return
    }
    guard let value = Wrapped(sqliteValue: sqliteValue) else { return nil }
    self = .some(value)
  }
}
