import Foundation
import KuraBase
import KuraSQLite

/// A fetch descriptor translated to SQL, plus what the store must finish in memory.
///
/// The SQL part (``whereClause``, ``orderBy``, ``arguments``) narrows the rows; when ``residual``
/// is set, the store evaluates it on those rows; when ``sortsInMemory`` is set, it sorts them; in
/// either case ``limit`` and ``offset`` apply in memory too (``limitsInSQL`` is `false`).
/// ``selectStatement(columns:table:dialect:)`` and ``finish(_:)`` do exactly that.
package struct TranslatedQuery<Model: PersistentModel> {
  /// The WHERE condition (without `WHERE`), with the dialect's placeholders; `nil` for all rows.
  package var whereClause: String?
  /// The ORDER BY terms (without `ORDER BY`); `nil` when unsorted or sorted in memory.
  package var orderBy: String?
  /// The descriptor's `fetchLimit`.
  package var limit: Int?
  /// The descriptor's `fetchOffset`.
  package var offset: Int?
  /// The values bound to the placeholders of ``whereClause``, in order.
  package var arguments: [DatabaseValue]
  /// The part of the predicate to evaluate in memory on the rows the SQL returns.
  package var residual: Predicate<Model>?
  /// Whether the rows must be sorted in memory with ``sortDescriptors``.
  package var sortsInMemory: Bool
  /// The descriptor's sort descriptors.
  package var sortDescriptors: [SortDescriptor<Model>]
  /// What ran in memory, or `nil` when everything ran in SQL.
  package var fallback: InMemoryFallback?

  /// What ran in memory, as one sentence, or `nil` when everything ran in SQL.
  package var fallbackDescription: String? { fallback?.description }

  /// Whether LIMIT and OFFSET go into the SQL (nothing is left to filter or sort in memory).
  package var limitsInSQL: Bool { residual == nil && !sortsInMemory }

  /// The full SELECT statement and its arguments.
  ///
  /// - Parameters:
  ///   - columns: The select list, already quoted (such as `"id", "name"`).
  ///   - table: The table name (quoted here).
  ///   - dialect: The SQL dialect the query was translated for.
  package func selectStatement(columns: String, table: String, dialect: some SQLDialect) -> (
    sql: String, arguments: [DatabaseValue]
  ) {
    var sql = "SELECT \(columns) FROM \(dialect.quoteIdentifier(table))"
    var arguments = self.arguments
    if let whereClause { sql += " WHERE " + whereClause }
    if let orderBy { sql += " ORDER BY " + orderBy }
    if limitsInSQL && (limit != nil || offset != nil) {
      sql += " LIMIT \(dialect.placeholder(arguments.count + 1))"
      arguments.append(.integer(Int64(limit ?? -1)))
      if let offset {
        sql += " OFFSET \(dialect.placeholder(arguments.count + 1))"
        arguments.append(.integer(Int64(offset)))
      }
    }
    return (sql, arguments)
  }

  /// Applies what SQL could not: the residual predicate, the sort, then offset and limit.
  ///
  /// - Parameter models: The models the SELECT returned, in its order.
  /// - Returns: The fetch result.
  /// - Throws: What the residual predicate throws (such as a force unwrap of `nil`).
  package func finish(_ models: [Model]) throws -> [Model] {
    var result = models
    if let residual { result = try result.filter { try residual.evaluate($0) } }
    if sortsInMemory { result = result.kuraSorted(using: sortDescriptors) }
    if !limitsInSQL {
      if let offset { result = Array(result.dropFirst(offset)) }
      if let limit { result = Array(result.prefix(limit)) }
    }
    return result
  }
}
