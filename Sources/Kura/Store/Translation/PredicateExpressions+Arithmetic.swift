import Foundation

// `+`, `-`, `*`, `/`, `%`, unary `-`. Integer overflow and division by zero trap in Swift; SQL
// gives a value or NULL instead of crashing.

extension PredicateExpressions.Arithmetic: SQLTranslatable {
  /// `(a + b)`, `(a - b)`, `(a * b)` for integers and `Double`.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
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
    return .combined(
      ["(", .fragment(left), .text(" \(symbol) "), .fragment(right), ")"], type: left.type,
      mayBeNaN: left.type.scalar.isFloatingPoint)
  }
}

extension PredicateExpressions.IntDivision: SQLTranslatable {
  /// `(a / b)`: SQLite's integer division truncates toward zero, as Swift's does.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let left = try translator.fragment(lhs)
    let right = try translator.fragment(rhs)
    try checkArithmetic(left.type, "/", integerOnly: true)
    return .combined(["(", .fragment(left), " / ", .fragment(right), ")"], type: left.type)
  }
}

extension PredicateExpressions.IntRemainder: SQLTranslatable {
  /// `(a % b)`: the sign follows the dividend in SQLite as in Swift.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let left = try translator.fragment(lhs)
    let right = try translator.fragment(rhs)
    try checkArithmetic(left.type, "%", integerOnly: true)
    return .combined(["(", .fragment(left), " % ", .fragment(right), ")"], type: left.type)
  }
}

extension PredicateExpressions.FloatDivision: SQLTranslatable {
  /// `(a / ?)` for a `Double` divided by a non-zero constant. Division by zero gives ±infinity
  /// in Swift but NULL in SQLite, so any other divisor runs in memory.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let left = try translator.fragment(lhs)
    let right = try translator.fragment(rhs)
    try checkArithmetic(left.type, "/")
    guard let constant = (rhs as? any ConstantExpression)?.constant as? Double, constant != 0
    else {
      throw TranslationFailure(
        "`/` on floating point by anything but a non-zero constant (x / 0 is infinity in Swift,"
          + " NULL in SQL) runs in memory")
    }
    return .combined(
      ["(", .fragment(left), " / ", .fragment(right), ")"], type: left.type, mayBeNaN: true)
  }
}

extension PredicateExpressions.UnaryMinus: SQLTranslatable {
  /// `(- a)`.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let operand = try translator.fragment(wrapped)
    try checkArithmetic(operand.type, "-")
    return .combined(
      ["(- ", .fragment(operand), ")"], type: operand.type, mayBeNaN: operand.mayBeNaN)
  }
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
