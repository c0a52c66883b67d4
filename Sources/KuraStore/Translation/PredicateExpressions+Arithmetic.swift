import Foundation
import KuraBase
import KuraSQLite

// `+`, `-`, `*`, `/`, `%`, unary `-`. Integer overflow and division by zero trap in Swift; SQL
// gives a value or NULL instead of crashing.

extension PredicateExpressions.Arithmetic: SQLTranslatable {
  /// `(a + b)`, `(a - b)`, `(a * b)` for integers and `Double`.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let left = try translator.fragment(lhs)
    let right = try translator.fragment(rhs)
    let symbol: String
    switch op {
    case .add: symbol = "+"
    case .subtract: symbol = "-"
    case .multiply: symbol = "*"
    }
    try checkArithmetic(left.type, symbol)
    if Output.self == UInt64.self || Output.self == UInt.self {
      // Swift's results run up to UInt64.max; SQLite's integers stop at Int64.max and turn into
      // rounded REALs above it.
      throw TranslationFailure("`\(symbol)` on `\(Output.self)` values runs in memory")
    }
    let operation: IntegerOperation = op == .add ? .add : op == .subtract ? .subtract : .multiply
    if left.type.scalar == .integer {
      return integerFragment(translator, operation, left, right)
    }
    var result = splice(
      translator.dialect.floatingArithmetic(operation, placeholderToken(0), placeholderToken(1)),
      [left, right], type: left.type)
    result.mayBeNaN = left.type.scalar.isFloatingPoint
    return result
  }
}

extension PredicateExpressions.IntDivision: SQLTranslatable {
  /// `(a / b)`: SQLite's integer division truncates toward zero, as Swift's does.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    try integerOnlyFragment(translator, .divide, lhs, rhs)
  }
}

extension PredicateExpressions.IntRemainder: SQLTranslatable {
  /// `(a % b)`: the sign follows the dividend in SQLite as in Swift.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    try integerOnlyFragment(translator, .remainder, lhs, rhs)
  }
}

/// `lhs op rhs` for an operation only integers have (`/` and `%` of `BinaryInteger`).
private func integerOnlyFragment(
  _ translator: SQLTranslator, _ op: IntegerOperation, _ lhs: Any, _ rhs: Any
) throws(TranslationFailure) -> SQLFragment {
  let left = try translator.fragment(lhs)
  let right = try translator.fragment(rhs)
  try checkArithmetic(left.type, op.symbol, integerOnly: true)
  return integerFragment(translator, op, left, right)
}

extension PredicateExpressions.FloatDivision: SQLTranslatable {
  /// `(a / ?)` for a `Double` divided by a non-zero constant. Division by zero gives ±infinity
  /// in Swift but NULL in SQLite, so any other divisor runs in memory.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let left = try translator.fragment(lhs)
    let right = try translator.fragment(rhs)
    try checkArithmetic(left.type, "/")
    guard let constant = (rhs as? any ConstantExpression)?.constant as? Double, constant != 0
    else {
      throw TranslationFailure(
        "`/` on floating point by anything but a non-zero constant (x / 0 is infinity in Swift,"
          + " NULL in SQL) runs in memory")
    }
    var result = splice(
      translator.dialect.floatingArithmetic(.divide, placeholderToken(0), placeholderToken(1)),
      [left, right], type: left.type)
    result.mayBeNaN = true
    return result
  }
}

extension PredicateExpressions.UnaryMinus: SQLTranslatable {
  /// `(- a)`.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let operand = try translator.fragment(wrapped)
    try checkArithmetic(operand.type, "-")
    if operand.isValueParameter {
      // A constant (such as `-1`): negated here (PostgreSQL can't type `- ?`); `Int.min`, whose
      // negation traps, is left to SQL.
      var negated = operand
      switch operand.arguments[0] {
      case .real(let number):
        negated.arguments = [.real(-number)]
        return negated
      case .integer(let number) where number != .min:
        negated.arguments = [.integer(-number)]
        return negated
      default: break
      }
    }
    if operand.type.scalar == .integer {
      return splice(
        translator.dialect.integerNegation(placeholderToken(0)), [operand], type: operand.type)
    }
    return .combined(
      ["(- ", .fragment(operand), ")"], type: operand.type, mayBeNaN: operand.mayBeNaN)
  }
}

/// `lhs op rhs` on 64-bit integers as the dialect spells it (Swift's result, or NULL where Swift
/// traps).
private func integerFragment(
  _ translator: SQLTranslator, _ op: IntegerOperation, _ lhs: SQLFragment, _ rhs: SQLFragment
) -> SQLFragment {
  let template = translator.dialect.integerArithmetic(op, placeholderToken(0), placeholderToken(1))
  return splice(template, [lhs, rhs], type: lhs.type)
}

/// A token standing for operand `index` in a dialect's template (no SQL contains it).
private func placeholderToken(_ index: Int) -> String { "\u{1}\(index)\u{1}" }

/// `template` with each operand token replaced by that operand's SQL, the arguments following
/// in the order the operands appear (an operand may appear more than once).
private func splice(_ template: String, _ operands: [SQLFragment], type: ValueType) -> SQLFragment {
  var parts: [SQLFragment.Part] = []
  var rest = Substring(template)
  while let start = rest.firstIndex(of: "\u{1}") {
    parts.append(.text(String(rest[..<start])))
    let afterStart = rest.index(after: start)
    guard let end = rest[afterStart...].firstIndex(of: "\u{1}"),
      let index = Int(rest[afterStart..<end]), operands.indices.contains(index)
    else { break }
    parts.append(.fragment(operands[index]))
    rest = rest[rest.index(after: end)...]
  }
  parts.append(.text(String(rest)))
  return .combined(parts, type: type)
}

/// Fails unless SQL arithmetic on `type` is Swift's: 64-bit integers and `Double`, not `Float`
/// (rounded to 32 bits in Swift), dates or text.
private func checkArithmetic(_ type: ValueType, _ symbol: String, integerOnly: Bool = false)
  throws(TranslationFailure)
{
  let allowed: Bool
  switch type.scalar {
  case .integer: allowed = true
  case .double: allowed = !integerOnly
  default: allowed = false
  }
  guard allowed, !type.isOptional else {
    throw TranslationFailure("`\(symbol)` on `\(type)` values runs in memory")
  }
}
