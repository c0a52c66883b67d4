import Foundation
import KuraBase
import KuraStore

/// PostgreSQL's built-in type numbers (OIDs) that statements bind and read specially, and the
/// conversions between their text forms and Swift values.
package enum PostgresType {
  package static let bool: UInt32 = 16
  package static let bytea: UInt32 = 17
  package static let char: UInt32 = 18
  package static let name: UInt32 = 19
  package static let int8: UInt32 = 20
  package static let int2: UInt32 = 21
  package static let int4: UInt32 = 23
  package static let text: UInt32 = 25
  package static let oid: UInt32 = 26
  package static let json: UInt32 = 114
  package static let float4: UInt32 = 700
  package static let float8: UInt32 = 701
  package static let unknown: UInt32 = 705
  package static let bpchar: UInt32 = 1042
  package static let varchar: UInt32 = 1043
  package static let numeric: UInt32 = 1700
  package static let void: UInt32 = 2278
  package static let uuid: UInt32 = 2950
  package static let jsonb: UInt32 = 3802

  /// Whether a column of this type is read here in binary (else the whole row is asked for
  /// as text, which every type has).
  package static func hasBinaryReading(_ type: UInt32) -> Bool {
    switch type {
    case bool, bytea, char, name, int8, int2, int4, text, oid, json, float4, float8, unknown,
      bpchar, varchar, void:
      return true
    default:
      return false
    }
  }

  /// Whether a parameter of this type takes a string's (or bytes') UTF-8 bytes as its binary
  /// form: the text types, `json` and `bytea`.
  package static func takesRawText(_ type: UInt32) -> Bool {
    switch type {
    case text, varchar, bpchar, name, unknown, json, bytea: return true
    default: return false
    }
  }

  /// A type's name for messages.
  package static func name(of type: UInt32) -> String {
    switch type {
    case bool: return "boolean"
    case bytea: return "bytea"
    case int8: return "bigint"
    case int2: return "smallint"
    case int4: return "integer"
    case text: return "text"
    case float4: return "real"
    case float8: return "double precision"
    case varchar: return "character varying"
    case numeric: return "numeric"
    case jsonb: return "jsonb"
    case json: return "json"
    default: return "type \(type)"
    }
  }

  /// A `Double` as PostgreSQL's input reads it: the shortest text that reads back the same
  /// number, `NaN`, `Infinity` or `-Infinity`.
  package static func text(of value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
    return String(value)
  }

  /// A number written as text (`42`, `-1.5`, `NaN`, `Infinity`, `1e+300`).
  package static func double(parsing bytes: UnsafeRawBufferPointer) -> Double? {
    let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    switch text.lowercased() {
    case "nan": return .nan
    case "infinity", "inf", "+infinity": return .infinity
    case "-infinity", "-inf": return -.infinity
    default: return Double(text)
    }
  }

  /// An integer written as text (`42`, `t`/`f` for a boolean; a number with a fraction
  /// truncated).
  package static func integer(parsing bytes: UnsafeRawBufferPointer, type: UInt32) -> Int64 {
    if type == bool, bytes.count == 1 {
      return bytes[0] == UInt8(ascii: "t") ? 1 : 0
    }
    let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    if let value = Int64(text) { return value }
    return integer(truncating: double(parsing: bytes) ?? 0)
  }

  /// A `Double` as an integer as SQLite converts it: truncated toward zero, clamped to
  /// `Int64`'s range, NaN as 0.
  package static func integer(truncating value: Double) -> Int64 {
    if value.isNaN { return 0 }
    if value >= 9_223_372_036_854_775_807.0 { return .max }
    if value <= -9_223_372_036_854_775_808.0 { return .min }
    return Int64(value)
  }

  /// The bytes of `bytea` in its text form (`\x0a1b…`).
  package static func bytes(fromHex text: UnsafeRawBufferPointer) -> Data? {
    guard text.count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x"),
      text.count % 2 == 0
    else { return nil }
    func nibble(_ byte: UInt8) -> UInt8? {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
      default: return nil
      }
    }
    var data = Data(capacity: (text.count - 2) / 2)
    var index = 2
    while index < text.count {
      guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return nil }
      data.append(high << 4 | low)
      index += 2
    }
    return data
  }
}
