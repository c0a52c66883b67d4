import Foundation

/// Translates a fetch descriptor to SQL for `schema` in `dialect`.
///
/// The predicate's top-level `&&` operands are translated one by one. Each that has an exact SQL
/// form narrows the rows in SQL; the others form the residual predicate evaluated in memory. Once
/// an operand that may throw in Swift (a force unwrap) is met, the operands after it stay in
/// memory too, so SQL never skips a row on which Swift would have thrown.
///
/// - Returns: The SQL parts and what is left for memory.
/// - Throws: ``QueryError`` when something must run in memory and the descriptor forbids it, or
///   when the limit or offset is negative.
func translate<Model>(
  _ descriptor: FetchDescriptor<Model>, schema: ModelSchema, dialect: some SQLDialect
) throws -> TranslatedQuery<Model> {
  let modelName = String(describing: Model.self)
  if (descriptor.fetchLimit ?? 0) < 0 || (descriptor.fetchOffset ?? 0) < 0 {
    throw QueryError(code: .negativeLimit, model: modelName, inMemoryParts: [])
  }
  var conditions: [SQLFragment] = []
  var inMemory: [any PredicateExpression<Bool>] = []
  var reasons: [String] = []
  if let predicate = descriptor.predicate {
    let translator = SQLTranslator(
      schema: schema, dialect: dialect, modelVariable: predicate.variable.key)
    var mayHaveThrown = false
    for operand in conjuncts(of: predicate.expression) {
      if mayHaveThrown {
        inMemory.append(operand)
        continue
      }
      do {
        conditions.append(try translator.fragment(operand))
      } catch {
        inMemory.append(operand)
        reasons.append(error.reason)
        mayHaveThrown = error.mayThrow
      }
    }
    if mayHaveThrown && inMemory.count > 1 {
      reasons.append("the conditions after it run in memory too, in their order")
    }
  }
  var sortReason: String?
  var orderBy: String?
  do {
    orderBy = try orderByClause(descriptor.sortBy, schema: schema, dialect: dialect)
  } catch {
    sortReason = error.reason
  }
  let fallback =
    reasons.isEmpty && sortReason == nil
    ? nil : InMemoryFallback(predicateParts: reasons, sortReason: sortReason)
  if let fallback, !descriptor.allowsInMemoryFallback {
    throw QueryError(
      code: .inMemoryFallbackForbidden, model: modelName,
      inMemoryParts: fallback.predicateParts + (sortReason.map { [$0] } ?? []))
  }
  let condition: SQLFragment? =
    conditions.isEmpty
    ? nil
    : .combined(
      Array(
        conditions.map { SQLFragment.Part.fragment($0) }
          .map { [$0] }.joined(separator: [.text(" AND ")])), type: .bool)
  return TranslatedQuery(
    whereClause: condition?.render(in: dialect), orderBy: orderBy,
    limit: descriptor.fetchLimit, offset: descriptor.fetchOffset,
    arguments: condition?.arguments ?? [],
    residual: residualPredicate(inMemory, descriptor.predicate),
    sortsInMemory: sortReason != nil, sortDescriptors: descriptor.sortBy, fallback: fallback)
}

/// The operands of the top-level `&&` chain, left to right.
private func conjuncts(of expression: any PredicateExpression<Bool>) -> [any PredicateExpression<
  Bool
>] {
  guard let conjunction = expression as? any ConjunctionExpression else { return [expression] }
  return conjunction.operands.flatMap { conjuncts(of: $0) }
}

/// A predicate evaluating `operands` (parts of `original`) with `&&`.
private func residualPredicate<Model: Sendable>(
  _ operands: [any PredicateExpression<Bool>], _ original: Predicate<Model>?
) -> Predicate<Model>? {
  guard let original, !operands.isEmpty else { return nil }
  let standard = operands.compactMap { $0 as? any StandardPredicateExpression<Bool> }
  guard standard.count == operands.count else { return original }
  return Predicate<Model> { variable in
    ResidualExpression(operands: standard, originalVariable: original.variable, variable: variable)
  }
}

/// Evaluates parts of a predicate, binding the original predicate's variable to the model.
struct ResidualExpression<Model: Sendable>: StandardPredicateExpression {
  typealias Output = Bool
  let operands: [any StandardPredicateExpression<Bool>]
  let originalVariable: PredicateExpressions.Variable<Model>
  let variable: PredicateExpressions.Variable<Model>

  init(
    operands: [any StandardPredicateExpression<Bool>],
    originalVariable: PredicateExpressions.Variable<Model>,
    variable: PredicateExpressions.Variable<Model>
  ) {
    self.operands = operands
    self.originalVariable = originalVariable
    self.variable = variable
  }

  func evaluate(_ bindings: PredicateBindings) throws -> Bool {
    guard let model = bindings[variable] else {
      throw PredicateError.undefinedVariable
    }
    let originalBindings = PredicateBindings((originalVariable, model))
    for operand in operands where try !operand.evaluate(originalBindings) { return false }
    return true
  }

  init(from decoder: any Decoder) throws {
    throw DecodingError.dataCorrupted(
      .init(
        codingPath: decoder.codingPath, debugDescription: "A residual predicate can't be decoded"))
  }

  func encode(to encoder: any Encoder) throws {
    throw EncodingError.invalidValue(
      self,
      .init(
        codingPath: encoder.codingPath, debugDescription: "A residual predicate can't be encoded"))
  }
}
