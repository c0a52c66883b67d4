import Foundation
import KuraBase
import KuraSQLite

// `==`, `!=`, `<`, `<=`, `>`, `>=`.

extension PredicateExpressions.Equal: SQLTranslatable {
  /// `(a = b)`; `(a IS b)` for optionals; `coalesce(a = b, 0)` for floating point (NaN);
  /// text with the Swift string collation.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    try translator.equality(translator.fragment(lhs), translator.fragment(rhs), negated: false)
  }
}

extension PredicateExpressions.NotEqual: SQLTranslatable {
  /// `(a <> b)`; `(a IS NOT b)` for optionals (`nil != 5` is true in Swift);
  /// `coalesce(a <> b, 1)` for floating point (NaN).
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    try translator.equality(translator.fragment(lhs), translator.fragment(rhs), negated: true)
  }
}

extension PredicateExpressions.Comparison: SQLTranslatable {
  /// `(a < b)` and friends, for integers, floating point, text, dates and UUIDs.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let symbol: String
    switch op {
    case .lessThan: symbol = "<"
    case .lessThanOrEqual: symbol = "<="
    case .greaterThan: symbol = ">"
    case .greaterThanOrEqual: symbol = ">="
    }
    return try translator.ordering(translator.fragment(lhs), symbol, translator.fragment(rhs))
  }
}
