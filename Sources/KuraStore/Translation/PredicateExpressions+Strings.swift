import Foundation
import KuraBase
import KuraSQLite

// `contains` and `starts(with:)` on text. Swift matches `Character`s (grapheme clusters under
// canonical equivalence), which neither LIKE nor instr() does; the dialect supplies functions with
// Swift's semantics, or the expression runs in memory.

extension PredicateExpressions.CollectionContainsCollection: SQLTranslatable {
  /// `kura_contains(a, b)` for text.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    try textFunction(
      translator, base, other, sql: translator.dialect.stringContains,
      otherwise: "`contains` on a stored collection runs in memory")
  }
}

extension PredicateExpressions.SequenceStartsWith: SQLTranslatable {
  /// `kura_starts_with(a, b)` for text.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    try textFunction(
      translator, base, prefix, sql: translator.dialect.stringStartsWith,
      otherwise: "`starts(with:)` on a stored collection runs in memory")
  }
}

/// A Boolean SQL function of two text operands, as the dialect spells it; fails (so the
/// expression runs in memory) when an operand is not text or the dialect has no such function.
private func textFunction(
  _ translator: SQLTranslator, _ first: some PredicateExpression,
  _ second: some PredicateExpression, sql spell: (String, String) -> String?,
  otherwise reason: String
) throws(TranslationFailure) -> SQLFragment {
  let text = try translator.fragment(first)
  let other = try translator.fragment(second)
  guard text.type == stringType, other.type == stringType, let sql = spell(text.sql, other.sql)
  else {
    throw TranslationFailure(reason)
  }
  return SQLFragment(sql: sql, arguments: text.arguments + other.arguments, type: .bool)
}

extension PredicateExpressions.StringContainsRegex: SQLTranslatable {
  /// Always in memory: SQLite has no regular expressions.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    throw TranslationFailure("`contains` with a regular expression runs in memory", mayThrow: true)
  }
}

private let stringType = ValueType(scalar: .string, isOptional: false)
