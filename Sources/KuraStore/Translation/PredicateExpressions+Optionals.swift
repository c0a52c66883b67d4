import Foundation
import KuraBase
import KuraSQLite

// `nil`, `??`, `flatMap`, `!`.

extension PredicateExpressions.NilLiteral: SQLTranslatable {
  /// `NULL`.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let type = ValueType.of(Output.self) ?? ValueType(scalar: .opaque, isOptional: true)
    return SQLFragment(sql: "NULL", arguments: [], type: type, isNilLiteral: true)
  }
}

extension PredicateExpressions.NilCoalesce: SQLTranslatable {
  /// `coalesce(a, b)`.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let optional = try translator.fragment(lhs)
    let fallback = try translator.fragment(rhs)
    guard optional.type.isOptional, optional.type.scalar != .opaque else {
      throw TranslationFailure("`??` on a value stored as JSON runs in memory")
    }
    if optional.nullMayBeNaN {
      guard let nullTest = optional.nullTest, !fallback.type.isOptional else {
        throw TranslationFailure(
          "`??` on an optional floating-point value that may be NaN runs in memory")
      }
      if !nullTest.isRawValue {
        // The fallback where the value is nil, else the number (NaN as NULL).
        var chosen = SQLFragment.combined(
          [
            "(CASE WHEN ", .fragment(optional.nilTestFragment), " IS NULL THEN ",
            .fragment(fallback), " ELSE ", .fragment(optional), " END)",
          ], type: fallback.type)
        chosen.mayBeNaN = true
        return chosen
      }
      // Coalesce the raw column (NULL only for nil), then read the number (NaN as NULL).
      let coalesced = SQLFragment.combined(
        ["coalesce(", .fragment(optional.nilTestFragment), ", ", .fragment(fallback), ")"],
        type: fallback.type)
      var number = coalesced
      number.sql = try translator.exactReal(coalesced.sql)
      number.mayBeNaN = true
      return number
    }
    return .combined(
      ["coalesce(", .fragment(optional), ", ", .fragment(fallback), ")"], type: fallback.type,
      mayBeNaN: fallback.mayBeNaN)
  }
}

extension PredicateExpressions.OptionalFlatMap: SQLTranslatable {
  /// `(CASE WHEN a IS NULL THEN NULL ELSE transform(a) END)`, the variable standing for `a`.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let optional = try translator.fragment(wrapped)
    guard optional.type.isOptional, optional.type.scalar != .opaque else {
      throw TranslationFailure("`flatMap` on a value stored as JSON runs in memory")
    }
    // Each use of the variable repeats the wrapped SQL: nested `flatMap`s would grow it
    // exponentially, so a large one runs in memory.
    guard optional.sql.utf8.count <= 4_096 else {
      throw TranslationFailure("a deeply nested `flatMap` is too large for SQL and runs in memory")
    }
    var unwrapped = SQLFragment(
      sql: optional.sql, arguments: optional.arguments,
      type: ValueType(scalar: optional.type.scalar, isOptional: false))
    unwrapped.mayBeNaN = optional.nullMayBeNaN
    let transformed = try translator.binding(variable.key, to: unwrapped) {
      () throws(TranslationFailure) -> SQLFragment in
      try translator.fragment(transform)
    }
    guard let type = ValueType.of(Output.self) else {
      throw TranslationFailure(
        "`flatMap` producing `\(Output.self)` runs in memory")
    }
    if transformed.mayBeNaN || transformed.nullMayBeNaN {
      // A NaN result would read as nil in SQL.
      throw TranslationFailure(
        "`flatMap` producing a floating-point value that may be NaN runs in memory")
    }
    return .combined(
      [
        "(CASE WHEN ", .fragment(optional.nilTestFragment), " IS NULL THEN NULL ELSE ",
        .fragment(transformed), " END)",
      ],
      type: type)
  }
}

extension PredicateExpressions.ForcedUnwrap: SQLTranslatable {
  /// Always in memory: Swift throws on `nil`, which SQL can't reproduce.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    throw TranslationFailure(
      "a force unwrap `!` (which throws on nil) runs in memory; use `??` or `flatMap` to run it in"
        + " SQL",
      mayThrow: true)
  }
}
