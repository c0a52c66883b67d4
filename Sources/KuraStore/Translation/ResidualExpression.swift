import Foundation
import KuraBase
import KuraSQLite

/// Evaluates parts of a predicate, binding the original predicate's variable to the model.
package struct ResidualExpression<Model: Sendable>: StandardPredicateExpression {
  package typealias Output = Bool
  package let operands: [any StandardPredicateExpression<Bool>]
  package let originalVariable: PredicateExpressions.Variable<Model>
  package let variable: PredicateExpressions.Variable<Model>

  package init(
    operands: [any StandardPredicateExpression<Bool>],
    originalVariable: PredicateExpressions.Variable<Model>,
    variable: PredicateExpressions.Variable<Model>
  ) {
    self.operands = operands
    self.originalVariable = originalVariable
    self.variable = variable
  }

  package func evaluate(_ bindings: PredicateBindings) throws -> Bool {
    guard let model = bindings[variable] else {
      throw PredicateError.undefinedVariable
    }
    let originalBindings = PredicateBindings((originalVariable, model))
    for operand in operands where try !operand.evaluate(originalBindings) { return false }
    return true
  }

  package init(from decoder: any Decoder) throws {
    throw DecodingError.dataCorrupted(
      .init(
        codingPath: decoder.codingPath, debugDescription: "A residual predicate can't be decoded"))
  }

  package func encode(to encoder: any Encoder) throws {
    throw EncodingError.invalidValue(
      self,
      .init(
        codingPath: encoder.codingPath, debugDescription: "A residual predicate can't be encoded"))
  }
}
