import Foundation
import KuraBase
import KuraSQLite

// `test ? a : b`.

extension PredicateExpressions.Conditional: SQLTranslatable {
  /// `(CASE WHEN test THEN a ELSE b END)`. When a branch is an optional `Double` or `Date` whose
  /// NULL may be NaN, the result's nil test is the same choice between the branches' nil tests
  /// (each as `1` or NULL, so the branches' types agree), so a NaN chosen by the test is not
  /// read as `nil`.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let test = try translator.fragment(test)
    let whenTrue = try translator.fragment(trueBranch)
    let whenFalse = try translator.fragment(falseBranch)
    var result = SQLFragment.combined(
      [
        "(CASE WHEN ", .fragment(test), " THEN ", .fragment(whenTrue), " ELSE ",
        .fragment(whenFalse), " END)",
      ],
      type: whenTrue.isNilLiteral ? whenFalse.type : whenTrue.type,
      mayBeNaN: whenTrue.mayBeNaN || whenFalse.mayBeNaN)
    if result.type.isOptional && (whenTrue.nullMayBeNaN || whenFalse.nullMayBeNaN) {
      let nilTest = SQLFragment.combined(
        [
          "(CASE WHEN ", .fragment(test), " THEN ", isNotNil(whenTrue), " ELSE ",
          isNotNil(whenFalse), " END)",
        ],
        type: result.type)
      result.nullMayBeNaN = true
      result.nullTest = .init(sql: nilTest.sql, arguments: nilTest.arguments)
    }
    return result
  }
}

/// `1` where `value` is not `nil`, else NULL; a constant is written as `1` or `NULL` (an engine
/// can't type `? IS NULL`).
private func isNotNil(_ value: SQLFragment) -> SQLFragment.Part {
  if value.isNilLiteral || value.isNullParameter { return "NULL" }
  if value.isValueParameter { return "1" }
  return .fragment(
    .combined(
      ["(CASE WHEN ", .fragment(value.nilTestFragment), " IS NULL THEN NULL ELSE 1 END)"],
      type: .bool))
}
