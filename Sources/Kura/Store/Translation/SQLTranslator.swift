import Foundation

/// Translates predicate expressions of one model to SQL fragments.
///
/// Holds what the expressions need: the model's schema (key path → column), the dialect, the
/// model variable (`$0`) and the variables bound by `flatMap`.
final class SQLTranslator {
  let schema: ModelSchema
  let dialect: any SQLDialect
  let modelVariable: PredicateExpressions.VariableID
  private var variables: [PredicateExpressions.VariableID: SQLFragment] = [:]

  init(schema: ModelSchema, dialect: any SQLDialect, modelVariable: PredicateExpressions.VariableID)
  {
    self.schema = schema
    self.dialect = dialect
    self.modelVariable = modelVariable
  }

  /// Translates `expression`.
  ///
  /// - Throws: ``TranslationFailure`` when it has no exact SQL form.
  func fragment(_ expression: Any) throws(TranslationFailure) -> SQLFragment {
    guard let translatable = expression as? any SQLTranslatable else {
      throw TranslationFailure(
        "`\(Self.name(of: type(of: expression)))` has no SQL form", mayThrow: true)
    }
    return try translatable.sqlFragment(self)
  }

  /// The fragment a `flatMap` variable stands for.
  func boundVariable(_ id: PredicateExpressions.VariableID) -> SQLFragment? { variables[id] }

  /// Translates `body` with variable `id` standing for `fragment`.
  func binding<Result>(
    _ id: PredicateExpressions.VariableID, to fragment: SQLFragment,
    _ body: () throws(TranslationFailure) -> Result
  ) throws(TranslationFailure) -> Result {
    variables[id] = fragment
    defer { variables[id] = nil }
    return try body()
  }

  /// The collation clause for text, or a failure when the dialect has none.
  func collation(for type: ValueType, operation: String) throws(TranslationFailure) -> String {
    guard type.scalar == .string else { return "" }
    guard let collation = dialect.swiftStringCollation else {
      throw TranslationFailure("\(operation) on text has no exact form in this SQL dialect")
    }
    return collation
  }

  /// `l == r` (or `l != r` when `negated`) with Swift's semantics for optionals, NaN and text.
  func equality(_ lhs: SQLFragment, _ rhs: SQLFragment, negated: Bool) throws(TranslationFailure)
    -> SQLFragment
  {
    let symbol = negated ? "!=" : "=="
    let type = lhs.isNilLiteral ? rhs.type : lhs.type
    if type.scalar == .opaque && !lhs.isNilLiteral && !rhs.isNilLiteral {
      throw TranslationFailure("`\(symbol)` on a value stored as JSON runs in memory")
    }
    let collate = try collation(for: type, operation: "`\(symbol)`")
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
      let op = negated ? " IS NOT " : " IS "
      return .boolean("(", .fragment(lhs), .text(op), .fragment(rhs), .text(collate + ")"))
    }
    if lhs.mayBeNaN || rhs.mayBeNaN {
      // NaN is held as NULL: NaN == x is false, NaN != x is true.
      let op = negated ? " <> " : " = "
      let fallback = dialect.booleanLiteral(negated)
      return .boolean(
        "coalesce(", .fragment(lhs), .text(op), .fragment(rhs), .text(", \(fallback))"))
    }
    let op = negated ? " <> " : " = "
    return .boolean("(", .fragment(lhs), .text(op), .fragment(rhs), .text(collate + ")"))
  }

  /// `l op r` for an ordering operator (`<`, `<=`, `>`, `>=`).
  func ordering(_ lhs: SQLFragment, _ op: String, _ rhs: SQLFragment) throws(TranslationFailure)
    -> SQLFragment
  {
    let type = lhs.type
    guard type.scalar.isOrderedInSQL, !type.isOptional else {
      throw TranslationFailure("`\(op)` on `\(type)` values (a custom Comparable) runs in memory")
    }
    let collate = try collation(for: type, operation: "`\(op)`")
    if lhs.mayBeNaN || rhs.mayBeNaN {
      // NaN (NULL) compares false to everything.
      return .boolean(
        "coalesce(", .fragment(lhs), .text(" \(op) "), .fragment(rhs),
        .text(", \(dialect.booleanLiteral(false)))"))
    }
    return .boolean("(", .fragment(lhs), .text(" \(op) "), .fragment(rhs), .text(collate + ")"))
  }

  /// A short readable name for an expression type, without its generic arguments.
  static func name(of type: Any.Type) -> String {
    let name = String(describing: type)
    return String(name.prefix { $0 != "<" })
  }
}
