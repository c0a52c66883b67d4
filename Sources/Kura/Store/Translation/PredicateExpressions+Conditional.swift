import Foundation

// `test ? a : b`.

extension PredicateExpressions.Conditional: SQLTranslatable {
  /// `(CASE WHEN test THEN a ELSE b END)`.
  func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let test = try translator.fragment(test)
    let whenTrue = try translator.fragment(trueBranch)
    let whenFalse = try translator.fragment(falseBranch)
    return .combined(
      [
        "(CASE WHEN ", .fragment(test), " THEN ", .fragment(whenTrue), " ELSE ",
        .fragment(whenFalse), " END)",
      ],
      type: whenTrue.isNilLiteral ? whenFalse.type : whenTrue.type,
      mayBeNaN: whenTrue.mayBeNaN || whenFalse.mayBeNaN)
  }
}
