import Foundation

/// One value as a database stores it: an integer, a real, text, a blob or NULL — the value model
/// of every engine under the model store (SQLite's five storage classes; the PostgreSQL driver
/// maps its types onto them). ``DatabaseValue`` is another name for it.
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
