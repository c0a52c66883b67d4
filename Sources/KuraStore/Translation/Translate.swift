import Foundation
import KuraBase
import KuraSQLite

/// Translates a fetch descriptor to SQL for `schema` in `dialect`.
///
/// The predicate's top-level `&&` operands are translated one by one. Each that has an exact SQL
/// form narrows the rows in SQL; the others form the residual predicate evaluated in memory. Once
/// an operand that may throw in Swift (a force unwrap) is met, the operands after it stay in
/// memory too, so SQL never skips a row on which Swift would have thrown.
///
/// - Returns: The SQL parts and what is left for memory.
/// - Throws: ``StoreError`` when something must run in memory and the descriptor forbids it, or
///   when the limit or offset is negative.
package func translate<Model>(
  _ descriptor: FetchDescriptor<Model>, schema: ModelSchema, dialect: some SQLDialect
) throws -> TranslatedQuery<Model> {
  let modelName = String(describing: Model.self)
  if (descriptor.fetchLimit ?? 0) < 0 || (descriptor.fetchOffset ?? 0) < 0 {
    throw StoreError.negativeLimit(model: modelName)
  }
  var conditions: [SQLFragment] = []
  var inMemory: [BooleanExpression] = []
  var reasons: [String] = []
  if let predicate = descriptor.predicate {
    let translator = SQLTranslator(
      schema: schema, dialect: dialect, modelVariable: predicate.variable.key)
    var mayHaveThrown = false
    var keptAfterThrowing = 0
    for operand in conjuncts(of: predicate.expression) {
      if mayHaveThrown {
        inMemory.append(operand)
        keptAfterThrowing += 1
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
    if keptAfterThrowing > 0 {
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
    throw StoreError.inMemoryFallbackForbidden(
      model: modelName, parts: fallback.predicateParts + (sortReason.map { [$0] } ?? []))
  }
  // A short list reads best flat; a long one nests as a balanced tree (SQLite bounds the depth).
  let condition: SQLFragment? =
    conditions.isEmpty
    ? nil
    : conditions.count > 64
      ? .balanced(conditions[...], "AND")
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

/// A Boolean predicate expression of any type.
package typealias BooleanExpression = any PredicateExpression<Bool>

/// The operands of the top-level `&&` chain, left to right.
private func conjuncts(of expression: BooleanExpression) -> [BooleanExpression] {
  operandChain(of: expression) { ($0 as? any ConjunctionExpression)?.operands }
}

/// A predicate evaluating `operands` (parts of `original`) with `&&`.
private func residualPredicate<Model: Sendable>(
  _ operands: [BooleanExpression], _ original: Predicate<Model>?
) -> Predicate<Model>? {
  guard let original, !operands.isEmpty else { return nil }
  let standard = operands.compactMap { $0 as? any StandardPredicateExpression<Bool> }
  guard standard.count == operands.count else { return original }
  return Predicate<Model> { variable in
    ResidualExpression(operands: standard, originalVariable: original.variable, variable: variable)
  }
}
