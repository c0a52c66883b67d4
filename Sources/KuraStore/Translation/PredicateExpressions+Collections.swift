import Foundation
import KuraBase
import KuraSQLite

// `[values].contains($0.x)` → IN with bound values. Closures over sequences (`contains(where:)`,
// `allSatisfy`, `filter`, `min`, `max`) run in memory.

extension PredicateExpressions.SequenceContains: SQLTranslatable {
  /// `(x IN (?, ?, …))`, with `x IS NULL` for a `nil` among the values and the Swift string
  /// collation for text.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    guard let constant = (sequence as? any ConstantExpression)?.constant,
      let values = constant as? any Sequence
    else {
      throw TranslationFailure("`contains` on a stored collection runs in memory")
    }
    let element = try translator.fragment(element)
    let type = element.type
    guard type.scalar != .opaque else {
      throw TranslationFailure("`contains` of a value stored as JSON runs in memory")
    }
    var bound: [DatabaseValue] = []
    var containsNil = false
    for value in elements(of: values) {
      guard let stored = type.bind(value) else {
        throw TranslationFailure(
          "`contains` with a value SQL can't match exactly (NaN, a relative URL) runs in memory")
      }
      if stored.isNull { containsNil = true } else { bound.append(stored) }
    }
    let (tested, item) = try translator.membershipOperands(
      element, type: type, operation: "`contains`")
    let dialect = translator.dialect
    let list = try valueList(bound, type: type, dialect: dialect, item: item)
    let membership: SQLFragment.Part =
      .fragment(.boolean("(", .fragment(tested), " IN (", .fragment(list), "))"))
    switch (bound.isEmpty, containsNil) {
    case (true, false): return .boolean(.text(dialect.booleanLiteral(false)))
    case (true, true): return .boolean("(", .fragment(element.nilTestFragment), " IS NULL)")
    case (false, true):
      // NaN (NULL through the dialect's exact read) is in no list: `coalesce(…, 0)` says so.
      let member: SQLFragment.Part =
        element.nullMayBeNaN
        ? .fragment(.boolean("coalesce(", membership, .text(", \(dialect.booleanLiteral(false)))")))
        : membership
      return .boolean("(", member, " OR ", .fragment(element.nilTestFragment), " IS NULL)")
    case (false, false):
      // A NULL (nil or NaN) is in no list: IN gives NULL, Swift gives false.
      guard type.isOptional || element.mayBeNaN || element.nullMayBeNaN else {
        return .boolean(membership)
      }
      return .boolean("coalesce(", membership, .text(", \(dialect.booleanLiteral(false)))"))
    }
  }

  private func elements(of sequence: some Sequence) -> [Any] { sequence.map { $0 } }
}

/// How many values an `IN` list binds one by one; longer lists of integers and text are bound
/// through one parameter (``SQLDialect/boundList(_:parameter:)``: SQLite limits the number of
/// parameters and the size of a statement).
package let inListParameterLimit = 200

/// The inside of `IN (…)` for `values`: a parameter each, or a bound-list subquery for a long
/// list; `item` makes each parameter (or listed value) compare like the tested value.
private func valueList(
  _ values: [DatabaseValue], type: ValueType, dialect: some SQLDialect,
  item: (String) -> String
) throws(TranslationFailure) -> SQLFragment {
  let marker = String(SQLFragment.parameterMarker)
  guard values.count > inListParameterLimit else {
    return SQLFragment(
      sql: Array(repeating: item(marker), count: values.count).joined(separator: ", "),
      arguments: values, type: type)
  }
  guard let list = dialect.boundList(values, parameter: marker) else {
    throw TranslationFailure(
      "`contains` with more than \(inListParameterLimit) values that are not integers or text"
        + " runs in memory")
  }
  let listed = item("value")
  let subquery =
    listed == "value" ? list.subquery : "SELECT \(listed) FROM (\(list.subquery)) AS kura_list"
  return SQLFragment(sql: subquery, arguments: [list.argument], type: type)
}

extension PredicateExpressions.SequenceContainsWhere: SQLTranslatable {
  /// Always in memory.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    throw TranslationFailure("`contains(where:)` runs in memory", mayThrow: true)
  }
}

extension PredicateExpressions.SequenceAllSatisfy: SQLTranslatable {
  /// Always in memory.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    throw TranslationFailure("`allSatisfy` runs in memory", mayThrow: true)
  }
}
