import Foundation
import KuraBase
import KuraSQLite

/// How the context runs one fetch: the SQL parts (from the translation of a fetch descriptor)
/// and what must happen in memory (the untranslated rest of a predicate, a sort SQL cannot do,
/// and merging unsaved changes).
package struct QueryPlan<Model: PersistentModel> {
  /// The SQL condition after `WHERE`, with `?` placeholders.
  package var whereClause: String?
  /// One value per placeholder of ``whereClause``.
  package var arguments: [DatabaseValue] = []
  /// The SQL after `ORDER BY`.
  package var orderBy: String?
  /// At most this many models (after the offset).
  package var limit: Int?
  /// Skip this many models first.
  package var offset: Int?
  /// The part of the predicate SQL could not run, evaluated on the rows SQL returned.
  package var residual: ((Model) throws -> Bool)?
  /// The whole predicate, evaluated on unsaved models.
  package var predicate: ((Model) throws -> Bool)?
  /// Whether the order must be computed in memory (SQL could not sort as asked).
  package var sortInMemory = false
  /// The requested order, for sorting in memory.
  package var areInIncreasingOrder: ((Model, Model) -> Bool)?

  /// Whether every step runs in SQL (no residual, no in-memory sort).
  package var isPureSQL: Bool { residual == nil && !sortInMemory }

  /// The `SELECT` of the model's columns with the plan's clauses; `paging` adds LIMIT/OFFSET.
  package func sql(
    _ schema: ModelSchema, dialect: any SQLDialect, paging: Bool, ordering: Bool = true
  ) -> String {
    var sql = StoreSQL.select(schema)
    if let whereClause { sql += " WHERE " + whereClause }
    // Rows equal under the order (or all rows, without one) come in the store's row order:
    // SQLite's scans give rowid order by themselves; other engines name it.
    let rowOrder = dialect.rowOrder(schema)
    switch (ordering ? orderBy : nil, rowOrder) {
    case (let orderBy?, let rowOrder?): sql += " ORDER BY " + orderBy + ", " + rowOrder
    case (let orderBy?, nil): sql += " ORDER BY " + orderBy
    case (nil, let rowOrder?): sql += " ORDER BY " + rowOrder
    case (nil, nil): break
    }
    if paging { sql += dialect.pagingClause(limit: limit, offset: offset) }
    return sql
  }

  /// Creates the value from each of its stored properties.
  package init(
    whereClause: String? = nil, arguments: [DatabaseValue] = [], orderBy: String? = nil,
    limit: Int? = nil, offset: Int? = nil, residual: ((Model) throws -> Bool)? = nil,
    predicate: ((Model) throws -> Bool)? = nil, sortInMemory: Bool = false,
    areInIncreasingOrder: ((Model, Model) -> Bool)? = nil
  ) {
    self.whereClause = whereClause
    self.arguments = arguments
    self.orderBy = orderBy
    self.limit = limit
    self.offset = offset
    self.residual = residual
    self.predicate = predicate
    self.sortInMemory = sortInMemory
    self.areInIncreasingOrder = areInIncreasingOrder
  }
}
