import Foundation
import KuraBase
import KuraSQLite

// `(a...b).contains($0.x)` → BETWEEN; `(a..<b).contains($0.x)` → `>= AND <`; captured ranges and
// partial ranges (`5...`, `..<5`, `...5`) too.

extension PredicateExpressions.RangeExpressionContains: SQLTranslatable {
  /// `(x BETWEEN ? AND ?)`, `(x >= ? AND x < ?)`, or one comparison for a partial range.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    guard let range = range as? any RangeBoundsExpression else {
      throw TranslationFailure("`contains` on a computed range runs in memory")
    }
    let element = try translator.fragment(element)
    let bounds = try range.bounds(translator)
    if let lower = bounds.lower, let upper = bounds.upper, bounds.upperIsIncluded {
      let type = element.type
      guard type.scalar.isOrderedInSQL, !type.isOptional else {
        throw TranslationFailure("`contains` on a range of `\(type)` values runs in memory")
      }
      let (tested, item) = try translator.membershipOperands(
        element, type: type, operation: "`contains` on a range")
      let between = SQLFragment.boolean(
        .fragment(tested), " BETWEEN ", .fragment(lower.mapSQL(item)), " AND ",
        .fragment(upper.mapSQL(item)))
      if element.mayBeNaN || lower.mayBeNaN || upper.mayBeNaN {
        return .boolean(
          "coalesce(", .fragment(between),
          .text(", \(translator.dialect.booleanLiteral(false)))"))
      }
      return .boolean("(", .fragment(between), ")")
    }
    var conditions: [SQLFragment] = []
    if let lower = bounds.lower { conditions.append(try translator.ordering(element, ">=", lower)) }
    if let upper = bounds.upper {
      conditions.append(
        try translator.ordering(element, bounds.upperIsIncluded ? "<=" : "<", upper))
    }
    guard let first = conditions.first else {
      return .boolean(.text(translator.dialect.booleanLiteral(true)))
    }
    guard conditions.count == 2 else { return first }
    return .boolean("(", .fragment(first), " AND ", .fragment(conditions[1]), ")")
  }
}

/// The bounds of a range expression, translated.
package struct RangeBounds {
  package var lower: SQLFragment?
  package var upper: SQLFragment?
  package var upperIsIncluded: Bool
}

/// An expression producing a range whose bounds can be translated.
package protocol RangeBoundsExpression {
  func bounds(_ translator: SQLTranslator) throws(TranslationFailure) -> RangeBounds
}

extension PredicateExpressions.ClosedRange: RangeBoundsExpression {
  package func bounds(_ translator: SQLTranslator) throws(TranslationFailure) -> RangeBounds {
    RangeBounds(
      lower: try translator.fragment(lower), upper: try translator.fragment(upper),
      upperIsIncluded: true)
  }
}

extension PredicateExpressions.Range: RangeBoundsExpression {
  package func bounds(_ translator: SQLTranslator) throws(TranslationFailure) -> RangeBounds {
    RangeBounds(
      lower: try translator.fragment(lower), upper: try translator.fragment(upper),
      upperIsIncluded: false)
  }
}

extension PredicateExpressions.Value: RangeBoundsExpression {
  /// The bounds of a captured range, bound as parameters.
  package func bounds(_ translator: SQLTranslator) throws(TranslationFailure) -> RangeBounds {
    guard let range = value as? any RangeValue, let type = ValueType.of(range.boundType) else {
      throw TranslationFailure("`contains` on a range of this type runs in memory")
    }
    func parameter(_ bound: Any?) throws(TranslationFailure) -> SQLFragment? {
      guard let bound else { return nil }
      guard let stored = type.bind(bound), !stored.isNull else {
        throw TranslationFailure("a range bound SQL can't match exactly (NaN) runs in memory")
      }
      return .parameter(stored, type: type)
    }
    return RangeBounds(
      lower: try parameter(range.lowerBoundValue), upper: try parameter(range.upperBoundValue),
      upperIsIncluded: range.upperIsIncluded)
  }
}

/// A range value seen through `Any`.
package protocol RangeValue {
  var lowerBoundValue: Any? { get }
  var upperBoundValue: Any? { get }
  var upperIsIncluded: Bool { get }
  var boundType: Any.Type { get }
}

extension ClosedRange: RangeValue {
  package var lowerBoundValue: Any? { lowerBound }
  package var upperBoundValue: Any? { upperBound }
  package var upperIsIncluded: Bool { true }
  package var boundType: Any.Type { Bound.self }
}

extension Range: RangeValue {
  package var lowerBoundValue: Any? { lowerBound }
  package var upperBoundValue: Any? { upperBound }
  package var upperIsIncluded: Bool { false }
  package var boundType: Any.Type { Bound.self }
}

extension PartialRangeFrom: RangeValue {
  package var lowerBoundValue: Any? { lowerBound }
  package var upperBoundValue: Any? { nil }
  package var upperIsIncluded: Bool { true }
  package var boundType: Any.Type { Bound.self }
}

extension PartialRangeThrough: RangeValue {
  package var lowerBoundValue: Any? { nil }
  package var upperBoundValue: Any? { upperBound }
  package var upperIsIncluded: Bool { true }
  package var boundType: Any.Type { Bound.self }
}

extension PartialRangeUpTo: RangeValue {
  package var lowerBoundValue: Any? { nil }
  package var upperBoundValue: Any? { upperBound }
  package var upperIsIncluded: Bool { false }
  package var boundType: Any.Type { Bound.self }
}
