import Foundation
import KuraBase
import KuraSQLite

/// A predicate expression that can become SQL with Swift's exact semantics.
///
/// Foundation's `PredicateExpressions` types conform in one file per expression family
/// (`PredicateExpressions+Comparison.swift`, `+Logic`, `+Strings`, …), the way swift-foundation
/// converts predicates to `NSPredicate`. Children are translated through
/// ``SQLTranslator/fragment(_:)``, so an expression with an untranslatable child fails as a
/// whole and the translator evaluates it in memory instead.
package protocol SQLTranslatable {
  /// This expression as SQL.
  ///
  /// - Throws: ``TranslationFailure`` when SQL could not give exactly Swift's result.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment
}

/// A predicate variable (`$0`, or the value inside `flatMap`).
package protocol VariableExpression {
  var variableID: PredicateExpressions.VariableID { get }
}

extension PredicateExpressions.Variable: VariableExpression {
  package var variableID: PredicateExpressions.VariableID { key }
}

/// A constant captured by a predicate.
package protocol ConstantExpression {
  var constant: Any { get }
}

extension PredicateExpressions.Value: ConstantExpression {
  package var constant: Any { value }
}

/// The `&&` of two Boolean expressions, seen without its generic parameters.
package protocol ConjunctionExpression {
  var operands: [any PredicateExpression<Bool>] { get }
}

extension PredicateExpressions.Conjunction: ConjunctionExpression {
  package var operands: [any PredicateExpression<Bool>] { [lhs, rhs] }
}

/// The `||` of two Boolean expressions, seen without its generic parameters.
package protocol DisjunctionExpression {
  var operands: [any PredicateExpression<Bool>] { get }
}

extension PredicateExpressions.Disjunction: DisjunctionExpression {
  package var operands: [any PredicateExpression<Bool>] { [lhs, rhs] }
}
