import Foundation
import KuraBase
import KuraSQLite

/// The ORDER BY clause for `sortBy`, or why it must be sorted in memory.
///
/// A key sorts in SQL when its key path is a stored column of a type whose SQL order is Swift's:
/// integers, floating point, text (with the Swift string collation), dates, UUIDs, `Bool` (through
/// Kura's `SortDescriptor` initializer) and optionals of these (`nil` first in the forward order,
/// as Foundation's `SortDescriptor` orders them and as SQL orders NULL).
///
/// - Returns: The clause (without `ORDER BY`), `nil` for no sort keys.
/// - Throws: ``TranslationFailure`` naming the first key that has to be sorted in memory.
package func orderByClause<Model>(
  _ sortBy: [SortDescriptor<Model>], schema: ModelSchema, dialect: some SQLDialect
) throws(TranslationFailure) -> String? {
  var terms: [String] = []
  for descriptor in sortBy {
    guard descriptor.stringComparator == nil else {
      throw TranslationFailure(
        "a sort with a string comparator (such as `.lexical`) has no SQL form")
    }
    guard let keyPath = descriptor.keyPath else {
      throw TranslationFailure("a sort descriptor without a key path has no SQL form")
    }
    let direction = dialect.sortDirection(ascending: descriptor.order == .forward)
    if let column = boolColumn(sortedBy: keyPath, in: schema) {
      terms.append(dialect.quoteIdentifier(column.name) + direction)
      continue
    }
    guard let column = schema.column(for: keyPath) else {
      throw TranslationFailure("sorting by \(describe(keyPath)), which is not a stored column")
    }
    let valueType = type(of: keyPath).valueType
    guard let type = ValueType.of(valueType), type.scalar.isOrderedInSQL,
      type.columnKind == column.kind
    else {
      throw TranslationFailure(
        "sorting by \(describe(keyPath)) of type `\(valueType)`, whose SQL order"
          + " is not Swift's")
    }
    let quoted = dialect.quoteIdentifier(column.name)
    if type.scalar == .string {
      guard let comparable = dialect.swiftStringComparable(quoted) else {
        throw TranslationFailure("sorting text has no exact form in this SQL dialect")
      }
      terms.append(comparable + direction)
      continue
    }
    if column.kind == .real || column.kind == .date {
      // The number SQL compares: -0.0 as 0.0, NaN (no place in Swift's order) as NULL, first.
      guard let number = dialect.exactReal(quoted) else {
        throw TranslationFailure(
          "sorting by \(describe(keyPath)) has no exact form in this SQL dialect")
      }
      terms.append(number + direction)
      continue
    }
    terms.append(quoted + direction)
  }
  return terms.isEmpty ? nil : terms.joined(separator: ", ")
}

/// The `Bool` column that `keyPath` sorts by through Kura's `SortDescriptor` initializer.
private func boolColumn(sortedBy keyPath: AnyKeyPath, in schema: ModelSchema) -> ColumnSchema? {
  schema.columns.first { column in
    guard column.kind == .bool else { return false }
    let rank: AnyKeyPath = column.isOptional ? \Bool?.kuraSortRank : \Bool.kuraSortRank
    return column.keyPath.appending(path: rank) == keyPath
  }
}
