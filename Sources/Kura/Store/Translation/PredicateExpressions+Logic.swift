import Foundation

// `&&`, `||`, `!`. Every Boolean fragment is 0 or 1 (never NULL), so SQL's three-valued logic
// never shows.

extension PredicateExpressions.Conjunction: SQLTranslatable {
  /// `(a AND b)`.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    try .boolean(
      "(", .fragment(translator.fragment(lhs)), " AND ", .fragment(translator.fragment(rhs)), ")")
  }
}

extension PredicateExpressions.Disjunction: SQLTranslatable {
  /// `(a OR b)`.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    try .boolean(
      "(", .fragment(translator.fragment(lhs)), " OR ", .fragment(translator.fragment(rhs)), ")")
  }
}

extension PredicateExpressions.Negation: SQLTranslatable {
  /// `(NOT a)`.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    try .boolean("(NOT ", .fragment(translator.fragment(wrapped)), ")")
  }
}
