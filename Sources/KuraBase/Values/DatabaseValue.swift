import Foundation

/// One value as a database stores it: an integer, a real, text, a blob or NULL — the value model
/// of every engine under the model store (SQLite's five storage classes; the PostgreSQL driver
/// maps its types onto them).
///
/// Swift types map onto these storage classes as follows (one documented mapping each):
///
/// | Swift | SQLite | notes |
/// |---|---|---|
/// | `Int64`, `Int` and the fixed-width integers | INTEGER | `UInt64` above `Int64.max` is refused |
/// | `Double`, `Float` | REAL | NaN and `-0.0`, which a REAL can't hold, are an 8-byte BLOB (`Double.exactSQLiteBlob`) |
/// | `String` | TEXT | UTF-8; the empty string stays an empty string |
/// | `Data` | BLOB | NUL bytes kept; empty `Data` stays an empty blob |
/// | `Bool` | INTEGER | `0` or `1` |
/// | `Date` | REAL | `timeIntervalSinceReferenceDate` (Date's own value, so it reads back bit for bit), stored as a `Double` |
/// | `UUID` | TEXT | the 36-character uppercase `uuidString` |
/// | `URL` | TEXT | `absoluteString` |
/// | `nil` | NULL | |
///
/// Two values are equal when they store the same: the same storage class and the same bytes.
/// Reals compare by bit pattern (a NaN equals itself, `0.0` and `-0.0` differ) and text by its
/// UTF-8 bytes (`"é"` precomposed and decomposed differ, as a database's binary comparison
/// has them), so a value read back equals the value written, and a change of bytes is a change.
///
/// For example:
///
/// ```swift
/// try connection.run("INSERT INTO entry (id, cash) VALUES (?, ?)", [.text("A"), .integer(2800)])
/// ```
public enum DatabaseValue: Sendable, Hashable, CustomStringConvertible {
  /// A 64-bit signed integer.
  case integer(Int64)
  /// A 64-bit IEEE floating-point number.
  case real(Double)
  /// UTF-8 text.
  case text(String)
  /// Bytes.
  case blob(Data)
  /// NULL.
  case null

  /// A short rendering for diagnostics, such as `42`, `'text'`, `x'00ff'` or `NULL`.
  public var description: String {
    switch self {
    case .integer(let value): return String(value)
    case .real(let value): return String(value)
    case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
    case .blob(let value): return "x'" + value.map { String(format: "%02x", $0) }.joined() + "'"
    case .null: return "NULL"
    }
  }

  /// Whether this is NULL.
  public var isNull: Bool {
    if case .null = self { return true }
    return false
  }
}

extension DatabaseValue {
  /// Whether two values store the same: the same case and the same bytes (reals by bit
  /// pattern, text by its UTF-8 bytes).
  ///
  /// For example: `DatabaseValue.real(.nan) == .real(.nan)` is `true`; `.real(0) == .real(-0.0)`
  /// is `false`.
  ///
  /// - Parameters:
  ///   - left: A value.
  ///   - right: Another value.
  /// - Returns: Whether they are the same stored value.
  public static func == (left: DatabaseValue, right: DatabaseValue) -> Bool {
    switch (left, right) {
    case (.null, .null): return true
    case (.integer(let a), .integer(let b)): return a == b
    case (.real(let a), .real(let b)): return a.bitPattern == b.bitPattern
    case (.text(let a), .text(let b)): return a.utf8.elementsEqual(b.utf8)
    case (.blob(let a), .blob(let b)): return a == b
    default: return false
    }
  }

  /// Hashes the value as ``==`` compares it.
  ///
  /// For example: `let seen: Set<DatabaseValue> = [.text("A"), .integer(1)]`.
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    switch self {
    case .null: hasher.combine(0 as UInt8)
    case .integer(let integer):
      hasher.combine(1 as UInt8)
      hasher.combine(integer)
    case .real(let real):
      hasher.combine(2 as UInt8)
      hasher.combine(real.bitPattern)
    case .text(let text):
      hasher.combine(3 as UInt8)
      // The same bytes feed the hasher the same way whether or not the string is contiguous.
      let hashed: Void? = text.utf8.withContiguousStorageIfAvailable {
        hasher.combine(bytes: UnsafeRawBufferPointer($0))
      }
      if hashed == nil { Array(text.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
      hasher.combine(text.utf8.count)
    case .blob(let data):
      hasher.combine(4 as UInt8)
      hasher.combine(data)
    }
  }
}

/// A lossless JSON form: `null`, or an object with one key naming the storage class, whose
/// value is a string — an integer's decimal digits, a real's 16 hex digits of its bit pattern
/// (NaN and `-0.0` survive), the text itself, a blob in base64. Sync sends values in this form.
///
/// For example:
///
/// ```swift
/// let json = try JSONEncoder().encode([DatabaseValue.integer(42), .real(1.5), .null])
/// // [{"integer":"42"},{"real":"3ff8000000000000"},null]
/// let back = try JSONDecoder().decode([DatabaseValue].self, from: json)
/// ```
extension DatabaseValue: Codable {
  private enum Kind: String, CodingKey { case integer, real, text, blob }

  /// Reads a value from its JSON form.
  ///
  /// For example: `try JSONDecoder().decode(DatabaseValue.self, from: Data(#"{"text":"A"}"#.utf8))`.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError.dataCorrupted` naming what was expected.
  public init(from decoder: any Decoder) throws {
    if let single = try? decoder.singleValueContainer(), single.decodeNil() {
      self = .null
      return
    }
    let container = try decoder.container(keyedBy: Kind.self)
    guard container.allKeys.count == 1, let kind = container.allKeys.first else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription: "a value is null or an object with one of integer, real, text, blob"))
    }
    let text = try container.decode(String.self, forKey: kind)
    switch kind {
    case .integer:
      guard let integer = Int64(text) else { throw Self.bad(decoder, "an integer's digits") }
      self = .integer(integer)
    case .real:
      guard text.utf8.count == 16, let bits = UInt64(text, radix: 16) else {
        throw Self.bad(decoder, "16 hex digits (the double's bits)")
      }
      self = .real(Double(bitPattern: bits))
    case .text:
      self = .text(text)
    case .blob:
      guard let data = Data(base64Encoded: text) else { throw Self.bad(decoder, "base64") }
      self = .blob(data)
    }
  }

  /// Writes the value's JSON form.
  ///
  /// For example: `try JSONEncoder().encode(DatabaseValue.text("A"))` is `{"text":"A"}`.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: The encoder's error.
  public func encode(to encoder: any Encoder) throws {
    if case .null = self {
      var single = encoder.singleValueContainer()
      try single.encodeNil()
      return
    }
    var container = encoder.container(keyedBy: Kind.self)
    switch self {
    case .null: break
    case .integer(let integer): try container.encode(String(integer), forKey: .integer)
    case .real(let real):
      let hex = String(real.bitPattern, radix: 16)
      try container.encode(String(repeating: "0", count: 16 - hex.count) + hex, forKey: .real)
    case .text(let text): try container.encode(text, forKey: .text)
    case .blob(let data): try container.encode(data.base64EncodedString(), forKey: .blob)
    }
  }

  private static func bad(_ decoder: any Decoder, _ expected: String) -> DecodingError {
    .dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected \(expected)"))
  }
}
