import Foundation
import KuraBase
import KuraSQLite

/// SQLite's SQL: `"quoted"` identifiers, `?` parameters, integer booleans, and the Swift string
/// collation and functions every Kura ``Connection`` registers (``SwiftStringSQL``).
package struct SQLiteDialect: SQLDialect {
  /// The dialect (it holds no state).
  package init() {}

  package func booleanLiteral(_ value: Bool) -> String { value ? "1" : "0" }

  /// `expression COLLATE kura_unicode`.
  package func swiftStringComparable(_ expression: String) -> String? {
    expression + " COLLATE " + SwiftStringSQL.collation
  }

  /// A collation on either operand is the comparison's (the left one's first).
  package var wrapsOneOperandOfAComparison: Bool { true }

  /// `kura_real(expression)`: a REAL is itself, the exact BLOB of `-0.0` is `0.0`, NaN is NULL.
  package func exactReal(_ expression: String) -> String? {
    "\(SwiftStringSQL.realFunction)(\(expression))"
  }

  package func stringContains(_ text: String, _ other: String) -> String? {
    "\(SwiftStringSQL.containsFunction)(\(text), \(other))"
  }

  package func stringStartsWith(_ text: String, _ prefix: String) -> String? {
    "\(SwiftStringSQL.startsWithFunction)(\(text), \(prefix))"
  }

  /// `SELECT value FROM json_each(?)` over a JSON array of the integers or texts (see
  /// `boundListJSON(_:)`).
  package func boundList(_ values: [DatabaseValue], parameter: String) -> (
    subquery: String, argument: DatabaseValue
  )? {
    guard let list = boundListJSON(values) else { return nil }
    return ("SELECT value FROM json_each(\(parameter))", .text(list.json))
  }

  /// `kura_int_add(a, b)` and so on (``SwiftStringSQL/integerFunctionPrefix``): Swift's result,
  /// NULL where Swift traps (SQLite's own `+` turns an overflow into a rounded REAL).
  package func integerArithmetic(_ op: IntegerOperation, _ lhs: String, _ rhs: String) -> String {
    "\(SwiftStringSQL.integerFunctionPrefix)\(op.rawValue)(\(lhs), \(rhs))"
  }

  /// `kura_int_neg(a)`: NULL for `Int.min`.
  package func integerNegation(_ operand: String) -> String {
    "\(SwiftStringSQL.integerFunctionPrefix)neg(\(operand))"
  }

  /// SQLite takes a negative limit as none.
  package var noLimit: DatabaseValue { .integer(-1) }
}
