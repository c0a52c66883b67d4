import Foundation
import KuraBase
import KuraSQLite

/// The parts of SQL that differ between database engines, for the predicate translator and the
/// store's own statements.
///
/// The translator builds every statement through a dialect, so a second engine (PostgreSQL) is a
/// second conformance, not a change to the translator or the model context. A dialect returns
/// `nil` for an operation it cannot express with Swift's exact semantics; the translator then
/// evaluates that part in memory.
package protocol SQLDialect: Sendable {
  /// `name` as a quoted identifier, such as `"first name"`.
  func quoteIdentifier(_ name: String) -> String
  /// The text of parameter number `index` (from 1), such as `?` or `$1`.
  func placeholder(_ index: Int) -> String
  /// `text` with the LIKE wildcards and the escape character escaped, for dialects that match
  /// text with LIKE; used with ``likeEscapeClause``.
  func escapeLikePattern(_ text: String) -> String
  /// The clause that declares the escape character of ``escapeLikePattern(_:)``.
  var likeEscapeClause: String { get }
  /// The literal for `value` in a boolean position.
  func booleanLiteral(_ value: Bool) -> String
  /// The text expression `expression` made to compare like Swift's `String` (equal exactly when
  /// Swift's `==` says so, ordered by the store's total text order), such as
  /// `expression COLLATE kura_unicode` or `kura_key(expression)`; `nil` when the engine has no
  /// such form (text comparisons then run in memory). It uses `expression` exactly once.
  ///
  /// Comparisons, `IN`, `BETWEEN`, `ORDER BY`, indexes on text and conflict targets all go
  /// through it, so an index built on the wrapped column serves the comparisons.
  func swiftStringComparable(_ expression: String) -> String?
  /// Whether wrapping one operand of a comparison (``swiftStringComparable(_:)``) makes the whole
  /// comparison compare like Swift's `String`, as an SQLite collation on either operand does;
  /// the translator then wraps only the right-hand operand of `=`, `<`…, and only the tested
  /// value of `IN` and `BETWEEN`. When `false` (a key function), every operand is wrapped.
  var wrapsOneOperandOfAComparison: Bool { get }
  /// The number a `Double` or `Date` column `expression` holds, as SQL compares it: NaN (which
  /// has no place in SQL's order) as NULL and `-0.0` as `0.0`; `nil` when the engine has no such
  /// form (comparisons and sorts of those columns then run in memory).
  func exactReal(_ expression: String) -> String?
  /// SQL for Swift's `text.contains(other)` on two text expressions, or `nil`.
  func stringContains(_ text: String, _ other: String) -> String?
  /// SQL for Swift's `text.starts(with: prefix)` on two text expressions, or `nil`.
  func stringStartsWith(_ text: String, _ prefix: String) -> String?
  /// A subquery whose one column, `value`, lists `values` (all integers, or all text) bound to
  /// one parameter, written as `parameter`, with the value to bind; `nil` when the engine has no
  /// such form or can't hold these values that way. (One parameter however many values: for
  /// large `IN` lists.)
  func boundList(_ values: [DatabaseValue], parameter: String) -> (
    subquery: String, argument: DatabaseValue
  )?
  /// The `LIMIT` value that means "no limit", for an `OFFSET` without a limit.
  var noLimit: DatabaseValue { get }
  /// The operator, with spaces around it, that is true when two values are equal or both NULL
  /// (SQLite ` IS `).
  var nullSafeEqual: String { get }
  /// The operator, with spaces around it, that is true when two values differ, one of them
  /// only being NULL (SQLite ` IS NOT `).
  var nullSafeNotEqual: String { get }
  /// The direction of an `ORDER BY` term, NULL first in the forward order (SQLite ` ASC`).
  func sortDirection(ascending: Bool) -> String
  /// The order of a model's rows when a fetch names none, and among rows a sort calls equal:
  /// SQLite's rowid order (the id for integer keys, else the order rows were inserted in);
  /// `nil` when the engine's scans give it by themselves.
  func rowOrder(_ schema: ModelSchema) -> String?
  /// Integer arithmetic on two 64-bit integer expressions with Swift's result, or NULL where
  /// Swift traps (overflow, division by zero).
  func integerArithmetic(_ op: IntegerOperation, _ lhs: String, _ rhs: String) -> String
  /// The negation of a 64-bit integer expression, NULL where Swift traps (`Int.min`).
  func integerNegation(_ operand: String) -> String
  /// `Double` arithmetic (`divide` for `/`) with IEEE's result: ±infinity on overflow, ±0 on
  /// underflow, NaN as NULL.
  func floatingArithmetic(_ op: IntegerOperation, _ lhs: String, _ rhs: String) -> String
}

/// An integer operation of ``SQLDialect/integerArithmetic(_:_:_:)``.
package enum IntegerOperation: String, Sendable {
  case add, subtract, multiply, divide, remainder

  /// The SQL operator.
  package var symbol: String {
    switch self {
    case .add: return "+"
    case .subtract: return "-"
    case .multiply: return "*"
    case .divide: return "/"
    case .remainder: return "%"
    }
  }
}

extension SQLDialect {
  /// Standard SQL's `"quoted"` identifiers (both engines).
  package func quoteIdentifier(_ name: String) -> String { KuraStore.quoteIdentifier(name) }

  /// `?` parameters (SQLite's own; the PostgreSQL statements rewrite them as `$N`).
  package func placeholder(_ index: Int) -> String { "?" }

  /// `\`, `%` and `_` escaped with a backslash, for ``likeEscapeClause``.
  package func escapeLikePattern(_ text: String) -> String {
    var escaped = ""
    for character in text {
      if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
      escaped.append(character)
    }
    return escaped
  }

  /// The backslash as `LIKE`'s escape character.
  package var likeEscapeClause: String { " ESCAPE '\\'" }

  /// A comparison of two wrapped operands, unless the dialect says otherwise.
  package var wrapsOneOperandOfAComparison: Bool { false }

  /// No exact form: comparisons and sorts of `Double` and `Date` columns run in memory.
  package func exactReal(_ expression: String) -> String? { nil }

  /// No bound lists: large `IN` lists run in memory.
  package func boundList(_ values: [DatabaseValue], parameter: String) -> (
    subquery: String, argument: DatabaseValue
  )? { nil }

  /// `LIMIT NULL`, which means no limit in standard engines.
  package var noLimit: DatabaseValue { .null }

  /// `nil`: scans give rowid order.
  package func rowOrder(_ schema: ModelSchema) -> String? { nil }

  /// ` IS `.
  package var nullSafeEqual: String { " IS " }

  /// ` IS NOT `.
  package var nullSafeNotEqual: String { " IS NOT " }

  /// `(lhs op rhs)`: the engine's own integer arithmetic.
  package func integerArithmetic(_ op: IntegerOperation, _ lhs: String, _ rhs: String) -> String {
    "(\(lhs) \(op.symbol) \(rhs))"
  }

  /// `(lhs op rhs)`: SQLite's floating-point arithmetic is IEEE's (NaN is NULL).
  package func floatingArithmetic(_ op: IntegerOperation, _ lhs: String, _ rhs: String) -> String {
    "(\(lhs) \(op.symbol) \(rhs))"
  }

  /// `(- operand)`.
  package func integerNegation(_ operand: String) -> String { "(- \(operand))" }

  /// ` ASC` or ` DESC` (NULL first in the forward order, as in SQLite).
  package func sortDirection(ascending: Bool) -> String { ascending ? " ASC" : " DESC" }

  /// ` LIMIT … OFFSET …` for `limit` and `offset` written into the SQL (empty for neither).
  package func pagingClause(limit: Int?, offset: Int?) -> String {
    switch (limit, offset) {
    case (let limit?, let offset?) where offset > 0: return " LIMIT \(limit) OFFSET \(offset)"
    case (let limit?, _): return " LIMIT \(limit)"
    case (nil, let offset?) where offset > 0:
      return " LIMIT \(noLimit.description) OFFSET \(offset)"
    default: return ""
    }
  }

  /// `lhs op rhs` comparing text like Swift's `String` (see ``swiftStringComparable(_:)``), or
  /// `nil` when the dialect has no such form.
  package func swiftStringComparison(_ lhs: String, _ op: String, _ rhs: String) -> String? {
    guard let right = swiftStringComparable(rhs) else { return nil }
    if wrapsOneOperandOfAComparison { return "\(lhs) \(op) \(right)" }
    guard let left = swiftStringComparable(lhs) else { return nil }
    return "\(left) \(op) \(right)"
  }

  /// `expression IN (…)` over `values` bound to parameters (`?`), comparing text like Swift's
  /// `String` when `text` is set: a ``boundList(_:parameter:)`` subquery (one parameter) for more
  /// than `threshold` values when the dialect has one, else one parameter per value. `nil` when
  /// text has no such form.
  package func membership(
    _ expression: String, in values: [DatabaseValue], text: Bool, listAbove threshold: Int
  ) -> (sql: String, arguments: [DatabaseValue])? {
    var tested = expression
    var wrapItem: (String) -> String? = { $0 }
    if text {
      guard let wrapped = swiftStringComparable(expression) else { return nil }
      tested = wrapped
      if !wrapsOneOperandOfAComparison { wrapItem = { swiftStringComparable($0) } }
    }
    if values.count > threshold, let list = boundList(values, parameter: "?") {
      guard let item = wrapItem("value") else { return nil }
      let subquery =
        item == "value" ? list.subquery : "SELECT \(item) FROM (\(list.subquery)) AS kura_list"
      return ("\(tested) IN (\(subquery))", [list.argument])
    }
    var items: [String] = []
    items.reserveCapacity(values.count)
    for _ in values {
      guard let item = wrapItem("?") else { return nil }
      items.append(item)
    }
    return ("\(tested) IN (\(items.joined(separator: ", ")))", values)
  }
}

/// The values of a ``SQLDialect/boundList(_:parameter:)`` as one JSON array, and whether they
/// are integers (else texts); `nil` when they mix the two, hold another kind of value, or a text
/// holds a NUL character (left to parameters: JSON text functions stop at it).
package func boundListJSON(_ values: [DatabaseValue]) -> (json: String, integers: Bool)? {
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
  return (json + "]", kind == 0)
}

/// Appends `text` as a JSON string literal.
package func appendJSONString(_ text: String, to json: inout String) {
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
