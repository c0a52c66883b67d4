import Foundation

/// SQLite's SQL: `"quoted"` identifiers, `?` parameters, integer booleans, and the Swift string
/// collation and functions every Kura ``Connection`` registers (``SwiftStringSQL``).
struct SQLiteDialect: SQLDialect {
  func booleanLiteral(_ value: Bool) -> String { value ? "1" : "0" }

  /// `expression COLLATE kura_unicode`.
  func swiftStringComparable(_ expression: String) -> String? {
    expression + " COLLATE " + SwiftStringSQL.collation
  }

  /// A collation on either operand is the comparison's (the left one's first).
  var wrapsOneOperandOfAComparison: Bool { true }

  /// `kura_real(expression)`: a REAL is itself, the exact BLOB of `-0.0` is `0.0`, NaN is NULL.
  func exactReal(_ expression: String) -> String? {
    "\(SwiftStringSQL.realFunction)(\(expression))"
  }

  func stringContains(_ text: String, _ other: String) -> String? {
    "\(SwiftStringSQL.containsFunction)(\(text), \(other))"
  }

  func stringStartsWith(_ text: String, _ prefix: String) -> String? {
    "\(SwiftStringSQL.startsWithFunction)(\(text), \(prefix))"
  }

  /// `SELECT value FROM json_each(?)` over a JSON array of the integers or texts (text holding
  /// a NUL character is left to parameters: JSON text functions stop at it).
  func boundList(_ values: [SQLiteValue], parameter: String) -> (
    subquery: String, argument: SQLiteValue
  )? {
    var json = "["
    json.reserveCapacity(values.count * 24 + 2)
    var kind: Int?
    for (index, value) in values.enumerated() {
      if index > 0 { json += "," }
      switch value {
      case .integer(let integer) where kind != 1:
        kind = 0
        json += String(integer)
      case .text(let text) where kind != 0 && !text.utf8.contains(0):
        kind = 1
        appendJSONString(text, to: &json)
      default:
        return nil
      }
    }
    return ("SELECT value FROM json_each(\(parameter))", .text(json + "]"))
  }

  /// `kura_int_add(a, b)` and so on (``SwiftStringSQL/integerFunctionPrefix``): Swift's result,
  /// NULL where Swift traps (SQLite's own `+` turns an overflow into a rounded REAL).
  func integerArithmetic(_ op: IntegerOperation, _ lhs: String, _ rhs: String) -> String {
    "\(SwiftStringSQL.integerFunctionPrefix)\(op.rawValue)(\(lhs), \(rhs))"
  }

  /// `kura_int_neg(a)`: NULL for `Int.min`.
  func integerNegation(_ operand: String) -> String {
    "\(SwiftStringSQL.integerFunctionPrefix)neg(\(operand))"
  }

  /// SQLite takes a negative limit as none.
  var noLimit: SQLiteValue { .integer(-1) }
}

/// Appends `text` as a JSON string literal.
func appendJSONString(_ text: String, to json: inout String) {
  // Ids are almost always plain (UUIDs, digits): copy them whole.
  if !text.utf8.contains(where: {
    $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
  }) {
    json += "\""
    json += text
    json += "\""
    return
  }
  json += "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": json += "\\\""
    case "\\": json += "\\\\"
    case "\n": json += "\\n"
    case "\r": json += "\\r"
    case "\t": json += "\\t"
    default:
      if scalar.value < 0x20 {
        json += String(format: "\\u%04x", scalar.value)
      } else {
        json.unicodeScalars.append(scalar)
      }
    }
  }
  json += "\""
}
