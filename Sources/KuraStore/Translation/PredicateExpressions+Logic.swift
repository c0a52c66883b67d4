import Foundation
import KuraBase
import KuraSQLite

// `&&`, `||`, `!`. Every Boolean fragment is 0 or 1 (never NULL), so SQL's three-valued logic
// never shows.

extension PredicateExpressions.Conjunction: SQLTranslatable {
  /// `(a AND b)`; a chain of `&&` as a balanced tree.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    var operands: [SQLFragment] = []
    for operand in operandChain(of: self, { ($0 as? any ConjunctionExpression)?.operands }) {
      operands.append(try translator.fragment(operand))
    }
    return .balanced(operands[...], "AND")
  }
}

extension PredicateExpressions.Disjunction: SQLTranslatable {
  /// `(a OR b)`; a chain of `||` as a balanced tree.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    var operands: [SQLFragment] = []
    for operand in operandChain(of: self, { ($0 as? any DisjunctionExpression)?.operands }) {
      operands.append(try translator.fragment(operand))
    }
    return .balanced(operands[...], "OR")
  }
}

/// The operands of a chain of one Boolean operator, left to right (`a || b || c` nests as
/// `(a || b) || c`, and each level may nest on either side); `operands` gives the two operands
/// of an expression of that operator, `nil` for anything else.
package func operandChain(
  of expression: any PredicateExpression<Bool>,
  _ operands: (any PredicateExpression<Bool>) -> [any PredicateExpression<Bool>]?
) -> [any PredicateExpression<Bool>] {
  var result: [any PredicateExpression<Bool>] = []
  var pending: [any PredicateExpression<Bool>] = [expression]
  while let next = pending.popLast() {
    if let pair = operands(next) {
      pending.append(contentsOf: pair.reversed())
    } else {
      result.append(next)
    }
  }
  return result
}

extension PredicateExpressions.Negation: SQLTranslatable {
  /// `(NOT a)`.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    try .boolean("(NOT ", .fragment(translator.fragment(wrapped)), ")")
  }
}
