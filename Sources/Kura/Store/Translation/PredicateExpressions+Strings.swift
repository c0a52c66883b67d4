import Foundation

// `contains` and `starts(with:)` on text. Swift matches `Character`s (grapheme clusters under
// canonical equivalence), which neither LIKE nor instr() does; the dialect supplies functions with
// Swift's semantics, or the expression runs in memory.

extension PredicateExpressions.CollectionContainsCollection: SQLTranslatable {
  /// `kura_contains(a, b)` for text.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let text = try translator.fragment(base)
    let other = try translator.fragment(other)
    guard text.type == stringType, other.type == stringType,
      let sql = translator.dialect.stringContains(text.sql, other.sql)
    else {
      throw TranslationFailure("`contains` on a stored collection runs in memory")
    }
    return SQLFragment(sql: sql, arguments: text.arguments + other.arguments, type: .bool)
  }
}

extension PredicateExpressions.SequenceStartsWith: SQLTranslatable {
  /// `kura_starts_with(a, b)` for text.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let text = try translator.fragment(base)
    let prefix = try translator.fragment(prefix)
    guard text.type == stringType, prefix.type == stringType,
      let sql = translator.dialect.stringStartsWith(text.sql, prefix.sql)
    else {
      throw TranslationFailure("`starts(with:)` on a stored collection runs in memory")
    }
    return SQLFragment(sql: sql, arguments: text.arguments + prefix.arguments, type: .bool)
  }
}

extension PredicateExpressions.StringContainsRegex: SQLTranslatable {
  /// Always in memory: SQLite has no regular expressions.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    throw TranslationFailure("`contains` with a regular expression runs in memory", mayThrow: true)
  }
}

private let stringType = ValueType(scalar: .string, isOptional: false)
