import Foundation
import KuraBase
import KuraSQLite

/// A piece of SQL translated from one predicate expression, with the values it binds.
///
/// Parameters are written as ``parameterMarker`` and numbered by the dialect once the whole
/// statement is assembled, so fragments can be combined (and repeated) in any order.
package struct SQLFragment {
  /// Stands for one bound parameter until the statement is assembled.
  package static let parameterMarker: Character = "\u{0}"

  /// The SQL text, with ``parameterMarker`` for each parameter.
  package var sql: String
  /// One value per marker, in order.
  package var arguments: [DatabaseValue]
  /// The Swift type the expression produces. A NULL means `nil` when the type is optional, and
  /// NaN for a non-optional floating-point type.
  package var type: ValueType
  /// Whether this is the `nil` literal.
  package var isNilLiteral = false
  /// Whether this non-optional floating-point value (or date) may be NaN, which SQL holds as
  /// NULL: the result of arithmetic such as `inf - inf`, or a stored NaN read through
  /// ``SQLDialect/exactReal(_:)`` (SQLite: `kura_real`).
  package var mayBeNaN = false
  /// Whether this optional value's NULL may be NaN as well as `nil` (an optional `Double` column
  /// read through ``SQLDialect/exactReal(_:)``); ``nullTest`` then tells `nil` apart.
  package var nullMayBeNaN = false
  /// SQL that is NULL exactly when the value is `nil` (the raw column of an optional `Double` or
  /// `Date`, or a conditional choosing between such columns), when ``sql`` is not.
  package var nullTest: NullTest? = nil

  /// SQL, with its parameters, that is NULL exactly when an optional value is `nil`.
  package struct NullTest {
    /// The SQL text, with ``SQLFragment/parameterMarker`` for each parameter.
    package var sql: String
    /// One value per marker, in order.
    package var arguments: [DatabaseValue] = []
    /// Whether the SQL is the stored value itself (a raw column, which the dialect's
    /// ``SQLDialect/exactReal(_:)`` reads), not only a marker of `nil`.
    package var isRawValue = false
  }

  /// The fragment that is NULL exactly when the value is `nil`.
  package var nilTestFragment: SQLFragment {
    guard let nullTest else { return self }
    return SQLFragment(sql: nullTest.sql, arguments: nullTest.arguments, type: type)
  }

  /// Whether this is one bound parameter holding NULL (an optional constant that is `nil`).
  package var isNullParameter: Bool {
    sql == String(Self.parameterMarker) && arguments.count == 1 && arguments[0].isNull
  }

  /// Whether this is one bound parameter holding a value (never NULL, never NaN).
  package var isValueParameter: Bool {
    sql == String(Self.parameterMarker) && arguments.count == 1 && !arguments[0].isNull
  }

  /// This fragment with its SQL passed through `transform` (which keeps every parameter marker,
  /// in order); its arguments and type are kept.
  package func mapSQL(_ transform: (String) -> String) -> SQLFragment {
    var mapped = self
    mapped.sql = transform(sql)
    return mapped
  }

  /// A bound value.
  package static func parameter(_ value: DatabaseValue, type: ValueType) -> SQLFragment {
    SQLFragment(sql: String(parameterMarker), arguments: [value], type: type)
  }

  /// A Boolean fragment built from `parts`: text and fragments, joined in order.
  package static func boolean(_ parts: Part...) -> SQLFragment {
    combined(parts, type: .bool)
  }

  /// Boolean `fragments` joined by `op` (`AND`, `OR`) as a balanced tree, so thousands of operands
  /// nest only a few levels deep (SQLite's parser and expression depth are bounded).
  package static func balanced(_ fragments: ArraySlice<SQLFragment>, _ op: String) -> SQLFragment {
    if fragments.count == 1, let only = fragments.first { return only }
    let middle = fragments.startIndex + (fragments.count + 1) / 2
    return .boolean(
      "(", .fragment(balanced(fragments[..<middle], op)), .text(" \(op) "),
      .fragment(balanced(fragments[middle...], op)), ")")
  }

  /// A fragment of `type` built from `parts`: text and fragments, joined in order.
  package static func combined(_ parts: [Part], type: ValueType, mayBeNaN: Bool = false)
    -> SQLFragment
  {
    var sql = ""
    var arguments: [DatabaseValue] = []
    for part in parts {
      switch part {
      case .text(let text): sql += text
      case .fragment(let fragment):
        sql += fragment.sql
        arguments += fragment.arguments
      }
    }
    return SQLFragment(sql: sql, arguments: arguments, type: type, mayBeNaN: mayBeNaN)
  }

  /// A piece of a combined fragment.
  package enum Part: ExpressibleByStringLiteral {
    case text(String)
    case fragment(SQLFragment)

    package init(stringLiteral value: String) { self = .text(value) }
  }

  /// The SQL with the dialect's placeholders, numbered from `firstIndex`.
  package func render(in dialect: some SQLDialect, firstIndex: Int = 1) -> String {
    var result = ""
    var index = firstIndex
    for character in sql {
      if character == Self.parameterMarker {
        result += dialect.placeholder(index)
        index += 1
      } else {
        result.append(character)
      }
    }
    return result
  }
}

/// Why an expression has no exact SQL form: the text said to the user, and whether evaluating it
/// in Swift could throw (so the SQL must not skip rows Swift would have evaluated before it).
package struct TranslationFailure: Error {
  /// What runs in memory and why, such as "`\Student.name.count` is not a stored column".
  package var reason: String
  /// Whether evaluating the expression in Swift may throw (`!`, casts, unknown expressions).
  package var mayThrow: Bool

  package init(_ reason: String, mayThrow: Bool = false) {
    self.reason = reason
    self.mayThrow = mayThrow
  }
}
