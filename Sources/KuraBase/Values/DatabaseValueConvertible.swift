import Foundation

/// A Swift value that converts to and from one ``DatabaseValue``, on every engine.
///
/// Conformances follow the table in ``DatabaseValue``. Conform your own types to store them in
/// a column.
///
/// For example:
///
/// ```swift
/// let value = UUID().databaseValue          // .text("3F4D8393-…")
/// let back = UUID(databaseValue: value)     // the same UUID
/// ```
public protocol DatabaseValueConvertible {
  /// The value as the database stores it.
  var databaseValue: DatabaseValue { get }
  /// Reads the value back; `nil` when the stored value does not fit the type.
  ///
  /// For example: `Int(databaseValue: .integer(3))` is `3`; `Int(databaseValue: .text("3"))` is `nil`.
  init?(databaseValue: DatabaseValue)
}

extension Int64: DatabaseValueConvertible {
  /// This integer as INTEGER.
  public var databaseValue: DatabaseValue { .integer(self) }
  /// Reads an INTEGER (or a REAL with no fraction).
  ///
  /// For example: `Int64(databaseValue: .integer(42))` is `42`.
  public init?(databaseValue: DatabaseValue) {
    switch databaseValue {
    case .integer(let value): self = value
    case .real(let value):
      guard let exact = Int64(exactly: value) else { return nil }
      self = exact
    default: return nil
    }
  }
}

extension Int: DatabaseValueConvertible {
  /// This integer as INTEGER.
  public var databaseValue: DatabaseValue { .integer(Int64(self)) }
  /// Reads an INTEGER that fits `Int`.
  ///
  /// For example: `Int(databaseValue: .integer(42))` is `42`.
  public init?(databaseValue: DatabaseValue) {
    guard let value = Int64(databaseValue: databaseValue), let exact = Int(exactly: value) else {
      return nil
    }
    self = exact
  }
}

extension Double: DatabaseValueConvertible {
  /// This number as REAL; NaN and `-0.0` as their exact 8-byte BLOB (``exactSQLiteBlob``).
  public var databaseValue: DatabaseValue { exactSQLiteBlob.map { .blob($0) } ?? .real(self) }
  /// Reads a REAL, an INTEGER, or the exact BLOB of NaN or `-0.0`.
  ///
  /// For example: `Double(databaseValue: .real(1.5))` is `1.5`.
  public init?(databaseValue: DatabaseValue) {
    switch databaseValue {
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

extension String: DatabaseValueConvertible {
  /// This string as TEXT.
  public var databaseValue: DatabaseValue { .text(self) }
  /// Reads TEXT.
  ///
  /// For example: `String(databaseValue: .text("Kyoto"))` is `"Kyoto"`.
  public init?(databaseValue: DatabaseValue) {
    guard case .text(let value) = databaseValue else { return nil }
    self = value
  }
}

extension Data: DatabaseValueConvertible {
  /// These bytes as BLOB.
  public var databaseValue: DatabaseValue { .blob(self) }
  /// Reads a BLOB (or TEXT, as its UTF-8 bytes).
  ///
  /// For example: `Data(databaseValue: .blob(Data([1, 2])))` is those two bytes.
  public init?(databaseValue: DatabaseValue) {
    switch databaseValue {
    case .blob(let value): self = value
    case .text(let value): self = Data(value.utf8)
    default: return nil
    }
  }
}

extension Bool: DatabaseValueConvertible {
  /// `1` or `0` as INTEGER.
  public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
  /// Reads an INTEGER: zero is false, anything else true.
  ///
  /// For example: `Bool(databaseValue: .integer(1))` is `true`.
  public init?(databaseValue: DatabaseValue) {
    guard let value = Int64(databaseValue: databaseValue) else { return nil }
    self = value != 0
  }
}

extension Date: DatabaseValueConvertible {
  /// `timeIntervalSinceReferenceDate` stored as a `Double` (REAL, or its exact BLOB).
  public var databaseValue: DatabaseValue { timeIntervalSinceReferenceDate.databaseValue }
  /// Reads seconds since 2001-01-01 UTC (REAL, INTEGER or the exact BLOB of a `Double`).
  ///
  /// For example: `Date(databaseValue: .real(0))` is `Date(timeIntervalSinceReferenceDate: 0)`.
  public init?(databaseValue: DatabaseValue) {
    guard let seconds = Double(databaseValue: databaseValue) else { return nil }
    self = Date(timeIntervalSinceReferenceDate: seconds)
  }
}

extension UUID: DatabaseValueConvertible {
  /// The uppercase `uuidString` as TEXT.
  public var databaseValue: DatabaseValue { .text(text(uppercase: true)) }

  /// The UUID's 36-character text (as `uuidString`, in lowercase unless `uppercase`), written
  /// from its bytes (Foundation's `uuidString` formats each byte with `snprintf`, about 3,000
  /// instructions a UUID).
  ///
  /// For example: `UUID(uuidString: "3F4D8393-8D86-4C81-AFB9-1854A5E38BDC")!.text()` is
  /// `"3f4d8393-8d86-4c81-afb9-1854a5e38bdc"`.
  package func text(uppercase: Bool = false) -> String {
    let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
    return withUnsafeBytes(of: uuid) { bytes in
      String(unsafeUninitializedCapacity: 36) { buffer in
        digits.withUTF8Buffer { digits in
          var index = 0
          for (position, byte) in bytes.enumerated() {
            if position == 4 || position == 6 || position == 8 || position == 10 {
              buffer[index] = UInt8(ascii: "-")
              index += 1
            }
            buffer[index] = digits[Int(byte >> 4)]
            buffer[index + 1] = digits[Int(byte & 0x0F)]
            index += 2
          }
          return index
        }
      }
    }
  }
  /// Reads a UUID string (any case) or a 16-byte BLOB.
  ///
  /// For example: `UUID(databaseValue: .text("3F4D8393-8D86-4C81-AFB9-1854A5E38BDC"))` is that UUID.
  public init?(databaseValue: DatabaseValue) {
    switch databaseValue {
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

extension URL: DatabaseValueConvertible {
  /// The `absoluteString` as TEXT.
  public var databaseValue: DatabaseValue { .text(absoluteString) }
  /// Reads a URL string.
  ///
  /// For example: `URL(databaseValue: .text("https://example.com"))` is that URL.
  public init?(databaseValue: DatabaseValue) {
    guard case .text(let value) = databaseValue, let url = URL(string: value) else { return nil }
    self = url
  }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
  /// The wrapped value, or NULL.
  public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
  /// NULL reads as `nil`; anything else as the wrapped type.
  ///
  /// For example: `Int?(databaseValue: .null)` is `.some(nil)`: a NULL read as `nil`.
  public init?(databaseValue: DatabaseValue) {
    if case .null = databaseValue {
      self = .none
      return
    }
    guard let value = Wrapped(databaseValue: databaseValue) else { return nil }
    self = .some(value)
  }
}

/// The former name of ``DatabaseValue``, kept so code written for the SQLite layer compiles.
///
/// For example:
///
/// ```swift
/// let values: [DatabaseValue] = [.text("A"), .integer(2800), .null]  // formerly [SQLiteValue]
/// ```
@available(*, deprecated, renamed: "DatabaseValue")
public typealias SQLiteValue = DatabaseValue

/// The former name of ``DatabaseValueConvertible``: generic code written against it compiles.
///
/// A type of your own that conformed by implementing `sqliteValue` and `init?(sqliteValue:)`
/// now implements ``DatabaseValueConvertible/databaseValue`` and
/// ``DatabaseValueConvertible/init(databaseValue:)``.
///
/// For example:
///
/// ```swift
/// func column<Value: DatabaseValueConvertible>(_ type: Value.Type) {}  // formerly SQLiteValueConvertible
/// ```
@available(*, deprecated, renamed: "DatabaseValueConvertible")
public typealias SQLiteValueConvertible = DatabaseValueConvertible

extension DatabaseValueConvertible {
  /// The former name of ``databaseValue``.
  ///
  /// For example: `let value = 42.databaseValue  // formerly 42.sqliteValue`.
  @available(*, deprecated, renamed: "databaseValue")
  public var sqliteValue: DatabaseValue { databaseValue }

  /// The former name of ``init(databaseValue:)``.
  ///
  /// For example: `let number = Int(databaseValue: .integer(3))  // formerly Int(sqliteValue:)`.
  ///
  /// - Parameter sqliteValue: The stored value.
  @available(*, deprecated, renamed: "init(databaseValue:)")
  public init?(sqliteValue: DatabaseValue) { self.init(databaseValue: sqliteValue) }
}
