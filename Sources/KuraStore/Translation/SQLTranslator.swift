import Foundation
import KuraBase
import KuraSQLite

/// Translates predicate expressions of one model to SQL fragments.
///
/// Holds what the expressions need: the model's schema (key path → column), the dialect, the
/// model variable (`$0`) and the variables bound by `flatMap`.
package final class SQLTranslator {
  package let schema: ModelSchema
  package let dialect: any SQLDialect
  package let modelVariable: PredicateExpressions.VariableID
  private var variables: [PredicateExpressions.VariableID: SQLFragment] = [:]

  package init(
    schema: ModelSchema, dialect: any SQLDialect, modelVariable: PredicateExpressions.VariableID
  ) {
    self.schema = schema
    self.dialect = dialect
    self.modelVariable = modelVariable
  }

  /// Translates `expression`.
  ///
  /// - Throws: ``TranslationFailure`` when it has no exact SQL form.
  package func fragment(_ expression: Any) throws(TranslationFailure) -> SQLFragment {
    guard let translatable = expression as? any SQLTranslatable else {
      throw TranslationFailure(
        "`\(Self.name(of: type(of: expression)))` has no SQL form", mayThrow: true)
    }
    return try translatable.sqlFragment(self)
  }

  /// The fragment a `flatMap` variable stands for.
  package func boundVariable(_ id: PredicateExpressions.VariableID) -> SQLFragment? {
    variables[id]
  }

  /// Translates `body` with variable `id` standing for `fragment`.
  package func binding<Result>(
    _ id: PredicateExpressions.VariableID, to fragment: SQLFragment,
    _ body: () throws(TranslationFailure) -> Result
  ) throws(TranslationFailure) -> Result {
    variables[id] = fragment
    defer { variables[id] = nil }
    return try body()
  }

  /// `fragment` made to compare like Swift's `String` (see
  /// ``SQLDialect/swiftStringComparable(_:)``), or a failure naming `operation` when the dialect
  /// has no such form.
  package func comparable(_ fragment: SQLFragment, operation: String) throws(TranslationFailure)
    -> SQLFragment
  {
    guard let sql = dialect.swiftStringComparable(fragment.sql) else {
      throw TranslationFailure("\(operation) on text has no exact form in this SQL dialect")
    }
    return SQLFragment(sql: sql, arguments: fragment.arguments, type: fragment.type)
  }

  /// The operands of a comparison of `type` values: made to compare like Swift's `String` when
  /// `type` is text (only the right-hand one when the dialect's form on one operand is the
  /// comparison's), unchanged otherwise.
  package func comparisonOperands(
    _ lhs: SQLFragment, _ rhs: SQLFragment, type: ValueType, operation: String
  ) throws(TranslationFailure) -> (SQLFragment, SQLFragment) {
    guard type.scalar == .string else { return (lhs, rhs) }
    let right = try comparable(rhs, operation: operation)
    if dialect.wrapsOneOperandOfAComparison { return (lhs, right) }
    return (try comparable(lhs, operation: operation), right)
  }

  /// The tested value of `IN` or `BETWEEN` on `type` values, and how to make each list item or
  /// bound compare like it: text is made to compare like Swift's `String` (its items too, unless
  /// the dialect's form on one operand is the comparison's); anything else is unchanged.
  package func membershipOperands(_ element: SQLFragment, type: ValueType, operation: String)
    throws(TranslationFailure) -> (tested: SQLFragment, item: (String) -> String)
  {
    guard type.scalar == .string else { return (element, { $0 }) }
    let tested = try comparable(element, operation: operation)
    if dialect.wrapsOneOperandOfAComparison { return (tested, { $0 }) }
    let dialect = self.dialect
    return (tested, { dialect.swiftStringComparable($0) ?? $0 })
  }

  /// `expression`, a `Double` or `Date` column (or a value of one), read as the number SQL
  /// compares (see ``SQLDialect/exactReal(_:)``), or a failure when the dialect has no such form.
  package func exactReal(_ expression: String) throws(TranslationFailure) -> String {
    guard let sql = dialect.exactReal(expression) else {
      throw TranslationFailure(
        "comparing `Double` or `Date` values has no exact form in this SQL dialect")
    }
    return sql
  }

  /// `l == r` (or `l != r` when `negated`) with Swift's semantics for optionals, NaN and text.
  package func equality(_ lhs: SQLFragment, _ rhs: SQLFragment, negated: Bool)
    throws(TranslationFailure)
    -> SQLFragment
  {
    let symbol = negated ? "!=" : "=="
    let type = lhs.isNilLiteral ? rhs.type : lhs.type
    if type.scalar == .opaque && !lhs.isNilLiteral && !rhs.isNilLiteral {
      throw TranslationFailure("`\(symbol)` on a value stored as JSON runs in memory")
    }
    let lhsIsNil = lhs.isNilLiteral || lhs.isNullParameter
    let rhsIsNil = rhs.isNilLiteral || rhs.isNullParameter
    if lhsIsNil || rhsIsNil {
      // `x == nil`: whether x is nil (never NaN, which its nil test tells apart).
      let tested = lhsIsNil ? rhs.nilTestFragment : lhs.nilTestFragment
      let op = negated ? " IS NOT NULL)" : " IS NULL)"
      return .boolean("(", .fragment(tested), .text(op))
    }
    if type.isOptional {
      let ambiguous = lhs.nullMayBeNaN || rhs.nullMayBeNaN || lhs.mayBeNaN || rhs.mayBeNaN
      if ambiguous && !lhs.isValueParameter && !rhs.isValueParameter {
        throw TranslationFailure(
          "`\(symbol)` between optional floating-point values (NaN and nil are both NULL in SQL)"
            + " runs in memory")
      }
      // Swift: nil == nil, nil != value. SQL's IS gives exactly that; NaN (NULL) is not a value.
      let op = negated ? dialect.nullSafeNotEqual : dialect.nullSafeEqual
      let (left, right) = try comparisonOperands(lhs, rhs, type: type, operation: "`\(symbol)`")
      return .boolean("(", .fragment(left), .text(op), .fragment(right), ")")
    }
    if lhs.mayBeNaN || rhs.mayBeNaN {
      // NaN is held as NULL: NaN == x is false, NaN != x is true.
      let op = negated ? " <> " : " = "
      let fallback = dialect.booleanLiteral(negated)
      return .boolean(
        "coalesce(", .fragment(lhs), .text(op), .fragment(rhs), .text(", \(fallback))"))
    }
    let op = negated ? " <> " : " = "
    let (left, right) = try comparisonOperands(lhs, rhs, type: type, operation: "`\(symbol)`")
    return .boolean("(", .fragment(left), .text(op), .fragment(right), ")")
  }

  /// `l op r` for an ordering operator (`<`, `<=`, `>`, `>=`).
  package func ordering(_ lhs: SQLFragment, _ op: String, _ rhs: SQLFragment)
    throws(TranslationFailure)
    -> SQLFragment
  {
    let type = lhs.type
    guard type.scalar.isOrderedInSQL, !type.isOptional else {
      throw TranslationFailure("`\(op)` on `\(type)` values (a custom Comparable) runs in memory")
    }
    if lhs.mayBeNaN || rhs.mayBeNaN {
      // NaN (NULL) compares false to everything.
      return .boolean(
        "coalesce(", .fragment(lhs), .text(" \(op) "), .fragment(rhs),
        .text(", \(dialect.booleanLiteral(false)))"))
    }
    let (left, right) = try comparisonOperands(lhs, rhs, type: type, operation: "`\(op)`")
    return .boolean("(", .fragment(left), .text(" \(op) "), .fragment(right), ")")
  }

  /// A short readable name for an expression type, without its generic arguments.
  package static func name(of type: Any.Type) -> String {
    let name = String(describing: type)
    return String(name.prefix { $0 != "<" })
  }
}
