import Foundation

// `[values].contains($0.x)` → IN with bound values. Closures over sequences (`contains(where:)`,
// `allSatisfy`, `filter`, `min`, `max`) run in memory.

extension PredicateExpressions.SequenceContains: SQLTranslatable {
  /// `(x IN (?, ?, …))`, with `x IS NULL` for a `nil` among the values and the Swift string
  /// collation for text.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
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
    var bound: [SQLiteValue] = []
    var containsNil = false
    for value in elements(of: values) {
      guard let stored = type.bind(value) else {
        throw TranslationFailure(
          "`contains` with a value SQL can't match exactly (NaN, a relative URL) runs in memory")
      }
      if stored.isNull { containsNil = true } else { bound.append(stored) }
    }
    let collate = try translator.collation(for: type, operation: "`contains`")
    let dialect = translator.dialect
    let list = try valueList(bound, type: type, dialect: dialect)
    let membership: SQLFragment.Part =
      .fragment(.boolean("(", .fragment(element), .text(collate + " IN ("), .fragment(list), "))"))
    switch (bound.isEmpty, containsNil) {
    case (true, false): return .boolean(.text(dialect.booleanLiteral(false)))
    case (true, true): return .boolean("(", .fragment(element.nilTestFragment), " IS NULL)")
    case (false, true):
      // NaN (NULL through `kura_real`) is in no list: `coalesce(…, 0)` says so.
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

/// How many values an `IN` list binds one by one; longer lists of integers and text are bound as
/// one JSON array (SQLite limits the number of parameters and the size of a statement).
let inListParameterLimit = 200

/// The inside of `IN (…)` for `values`: a parameter each, or a JSON array subquery for a long list.
private func valueList(_ values: [SQLiteValue], type: ValueType, dialect: some SQLDialect)
  throws(TranslationFailure) -> SQLFragment
{
  guard values.count > inListParameterLimit else {
    return SQLFragment(
      sql: Array(repeating: String(SQLFragment.parameterMarker), count: values.count)
        .joined(separator: ", "),
      arguments: values, type: type)
  }
  var integers: [Int64] = []
  var texts: [String] = []
  for value in values {
    switch value {
    case .integer(let integer): integers.append(integer)
    case .text(let text) where !text.utf8.contains(0): texts.append(text)
    default: break
    }
  }
  let json: String?
  if integers.count == values.count {
    json = "[" + integers.map(String.init).joined(separator: ",") + "]"
  } else if texts.count == values.count {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    json = (try? encoder.encode(texts)).map { String(decoding: $0, as: UTF8.self) }
  } else {
    json = nil
  }
  guard let json, let subquery = dialect.jsonArrayValues(String(SQLFragment.parameterMarker))
  else {
    throw TranslationFailure(
      "`contains` with more than \(inListParameterLimit) values that are not integers or text"
        + " runs in memory")
  }
  return SQLFragment(sql: subquery, arguments: [.text(json)], type: type)
}

extension PredicateExpressions.SequenceContainsWhere: SQLTranslatable {
  /// Always in memory.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    throw TranslationFailure("`contains(where:)` runs in memory", mayThrow: true)
  }
}

extension PredicateExpressions.SequenceAllSatisfy: SQLTranslatable {
  /// Always in memory.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    throw TranslationFailure("`allSatisfy` runs in memory", mayThrow: true)
  }
}
