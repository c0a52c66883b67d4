import Foundation
import KuraBase
import KuraSQLite

// Constants, variables and key paths: the leaves of every predicate.

extension PredicateExpressions.Value: SQLTranslatable {
  /// A bound parameter (never spliced into the SQL).
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    guard let type = ValueType.of(Output.self) else {
      throw TranslationFailure(
        "a constant of type `\(Output.self)` has no SQL form")
    }
    guard let bound = type.bind(value) else {
      throw TranslationFailure(
        "a constant of type `\(Output.self)` that SQL can't match exactly"
          + " (NaN, a relative URL or an integer beyond 64 bits) runs in memory")
    }
    return .parameter(bound, type: type)
  }
}

extension PredicateExpressions.Variable: SQLTranslatable {
  /// The value a `flatMap` unwrapped; the model itself has no SQL form.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    if let bound = translator.boundVariable(key) { return bound }
    if key == translator.modelVariable {
      throw TranslationFailure("the model value itself (not one of its properties) runs in memory")
    }
    throw TranslationFailure(
      "a variable of an unsupported expression runs in memory", mayThrow: true)
  }
}

extension PredicateExpressions.KeyPath: SQLTranslatable {
  /// The column of a stored property (`$0.name`), or `isEmpty` of a text value.
  package func sqlFragment(_ translator: SQLTranslator) throws(TranslationFailure) -> SQLFragment {
    let anyKeyPath = keyPath as AnyKeyPath
    if let variable = root as? any VariableExpression,
      variable.variableID == translator.modelVariable
    {
      return try column(anyKeyPath, translator)
    }
    let base = try translator.fragment(root)
    if base.type == ValueType(scalar: .string, isOptional: false),
      anyKeyPath == \String.isEmpty as AnyKeyPath
    {
      // A string is empty exactly when it has no bytes.
      return .boolean("(", .fragment(base), " = '')")
    }
    throw TranslationFailure(
      "\(describe(anyKeyPath)) has no SQL form and runs in memory")
  }

  private func column(_ keyPath: AnyKeyPath, _ translator: SQLTranslator) throws(TranslationFailure)
    -> SQLFragment
  {
    guard let column = translator.schema.column(for: keyPath) else {
      throw TranslationFailure(
        "\(describe(keyPath)) is not a stored column (a computed or nested property) and runs in"
          + " memory")
    }
    let name = translator.dialect.quoteIdentifier(column.name)
    guard let type = ValueType.of(Output.self), type.columnKind == column.kind else {
      return SQLFragment(
        sql: name, arguments: [], type: ValueType(scalar: .opaque, isOptional: column.isOptional))
    }
    if column.kind == .real || column.kind == .date {
      // A `Double` or `Date` column holds NaN and -0.0 exactly; the dialect reads the number SQL
      // compares (NaN as NULL; SQLite: `kura_real`).
      var fragment = SQLFragment(sql: try translator.exactReal(name), arguments: [], type: type)
      fragment.mayBeNaN = !type.isOptional
      fragment.nullMayBeNaN = type.isOptional
      fragment.nullTest = .init(sql: name, isRawValue: true)
      return fragment
    }
    return SQLFragment(sql: name, arguments: [], type: type)
  }
}

/// A readable name for a key path: `\Student.name` for stored properties; for computed ones,
/// whose descriptions hold addresses, the name when known (`\String.count`), else the types.
package func describe(_ keyPath: AnyKeyPath) -> String {
  let text = String(describing: keyPath)
  guard text.contains("<computed") else { return "`\(text)`" }
  let known: [(AnyKeyPath, String)] = [
    (\String.count, "\\String.count"), (\String.first, "\\String.first"),
    (\String.last, "\\String.last"), (\String.isEmpty, "\\String.isEmpty"),
  ]
  if let name = known.first(where: { $0.0 == keyPath })?.1 { return "`\(name)`" }
  let keyPathType = type(of: keyPath)
  return "a computed property of `\(keyPathType.rootType)` (of type `\(keyPathType.valueType)`)"
}
