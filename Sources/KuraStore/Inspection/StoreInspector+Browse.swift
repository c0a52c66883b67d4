import Foundation
import KuraBase
import KuraSQLite

// Reading a store's models and rows without their Swift types, for `kura studio`: models with
// their references both ways, pages of rows by key, one row and what refers to it.

extension StoreInspector {
  /// The store's models with their properties, indexes, references (both ways), search index
  /// and row counts (0 unless `counting`: a count reads the whole table).
  ///
  /// - Throws: ``StoreError`` when the store can't be read.
  package func browsedModels(counting: Bool = true) throws -> [BrowsedModel] {
    try run {
      let found = try models()
      var tables: [String: String] = [:]
      for model in found { tables[model.table] = model.name }
      var result: [BrowsedModel] = []
      for model in found where try tableExists(model.table) {
        let indexes = try connection.indexes(of: model.table)
        let uniqueAlone = Set(
          indexes.filter { $0.unique && $0.columns.count == 1 }.compactMap(\.columns.first))
        let columns = try connection.tableColumns(model.table).map { info in
          BrowsedModel.Column(
            name: info.name,
            kind: model.kinds[info.name]
              ?? (connection.engine.columnKind(ofDeclaredType: info.type) ?? .text).rawValue,
            type: info.type, isOptional: !info.notNull && !info.primaryKey,
            isPrimaryKey: info.primaryKey,
            isUnique: info.primaryKey || uniqueAlone.contains(info.name))
        }
        let references = try connection.foreignKeys(of: model.table).map { key in
          BrowsedModel.Reference(
            property: key.column, model: tables[key.targetTable] ?? key.targetTable,
            deleteRule: BrowsedModel.deleteRule(onDelete: key.onDelete))
        }
        let rows =
          counting
          ? try connection.queryFirst("SELECT count(*) FROM \(quoteIdentifier(model.table))") {
            $0.int64(at: 0)
          } : 0
        result.append(
          BrowsedModel(
            name: model.name, table: model.table, rows: Int(rows ?? 0), columns: columns,
            indexes: indexes.map {
              TableSchema.Index(name: $0.name, columns: $0.columns, unique: $0.unique)
            },
            references: references, referrers: [],
            searchable: try searchableColumns(
              model.table, columns: columns.map(\.name), indexes: indexes.map(\.name))))
      }
      for model in result {
        for reference in model.references {
          guard let target = result.firstIndex(where: { $0.name == reference.model }) else {
            continue
          }
          result[target].referrers.append(
            BrowsedModel.Referrer(
              model: model.name, property: reference.property, deleteRule: reference.deleteRule))
        }
      }
      return result
    }
  }

  /// The columns of a model's full-text search index (SQLite's `<table>_search`), or none.
  /// PostgreSQL searches the table itself and keeps no index table: there they are the columns
  /// of its trigram indexes, `<table>_search_<column>` (made when the server has `pg_trgm`;
  /// without it the store records no trace of which properties are searchable).
  private func searchableColumns(_ table: String, columns: [String], indexes: [String]) throws
    -> [String]
  {
    guard engine == .sqlite else {
      let prefix = table + "_search_"
      let searched = Set(
        indexes.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
      return columns.filter { searched.contains($0) }
    }
    guard try connection.tableExists(table + "_search") else { return [] }
    return try connection.tableColumns(table + "_search").map(\.name)
  }

  /// One page of a model's rows, by key: sorted, filtered through the store's predicate
  /// translation (a part without an exact SQL form runs in memory, as in a fetch), searched.
  ///
  /// - Throws: ``StoreError/Code/unsupportedQuery`` for a filter that can't apply, a sort by
  ///   an unknown property, or a search of a model without a search index; ``StoreError`` when
  ///   the store can't be read.
  package func page(of model: BrowsedModel, _ query: RowQuery) throws -> RowPage {
    let dialect = connection.dialect
    let schema = model.schema
    var conditions: [SQLFragment] = []
    var residual: [Predicate<BrowsedRow>] = []
    var reasons: [String] = []
    var mayHaveThrown = false
    for filter in query.filters {
      let predicate = try filter.predicate(for: model)
      if mayHaveThrown {
        residual.append(predicate)
        continue
      }
      let translator = SQLTranslator(
        schema: schema, dialect: dialect, modelVariable: predicate.variable.key)
      do {
        conditions.append(try translator.fragment(predicate.expression))
      } catch {
        residual.append(predicate)
        reasons.append(error.reason)
        mayHaveThrown = error.mayThrow
      }
    }
    var search: (sql: String, arguments: [DatabaseValue])?
    if let text = query.search, !text.trimmingCharacters(in: .whitespaces).isEmpty {
      guard !model.searchable.isEmpty else {
        throw StoreError(
          .unsupportedQuery, model: model.name,
          message:
            "Can't search `\(model.name)`: it has no search index (none of its properties is "
            + "declared `.searchable`). Filter by a property instead.")
      }
      search = SearchIndex(schema: schema, columns: model.searchable)
        .condition(for: text, engine: connection.engine)
    }
    let key = model.primaryKey
    let quotedKey = dialect.quoteIdentifier(key.name)
    var sortExpression: String?
    // Whether the sort's value may be NULL (an optional property, or a number whose NaN sorts
    // as NULL): only then does the order need the dialect's NULLS placement.
    var sortMayBeNull = false
    if let sort = query.sort, sort != key.name {
      guard let column = model.columns.first(where: { $0.name == sort }) else {
        throw StoreError(
          .unsupportedQuery, model: model.name, property: sort,
          message: "Can't sort `\(model.name)` by `\(sort)`: it has no such property.")
      }
      let quoted = dialect.quoteIdentifier(column.name)
      sortMayBeNull =
        column.isOptional || column.storedKind == .real || column.storedKind == .date
      switch column.storedKind {
      case .text: sortExpression = dialect.swiftStringComparable(quoted) ?? quoted
      case .real, .date: sortExpression = dialect.exactReal(quoted) ?? quoted
      default: sortExpression = quoted
      }
    }
    let filterCondition: SQLFragment? =
      conditions.isEmpty ? nil : .balanced(conditions[...], "AND")
    let firstIndex = (search?.arguments.count ?? 0) + 1
    let shownCondition = [
      search?.sql, filterCondition?.render(in: dialect, firstIndex: firstIndex),
    ]
    .compactMap { $0 }.joined(separator: " AND ")
    let direction = dialect.sortDirection(ascending: !query.descending)
    // A value that is never NULL is ordered by a plain ASC or DESC: PostgreSQL's `NULLS FIRST`
    // ascending is not its indexes' order, and made it sort the whole table for every page.
    let plain = query.descending ? " DESC" : " ASC"
    let orderBy =
      (sortExpression.map { [$0 + (sortMayBeNull ? direction : plain)] } ?? [])
      .joined(separator: ", ") + (sortExpression == nil ? "" : ", ") + quotedKey + plain
    let selectList =
      model.columns.map { dialect.quoteIdentifier($0.name) }.joined(separator: ", ")
      + (sortExpression.map { ", " + $0 } ?? "")
    let keyIndex = model.columns.firstIndex(where: { $0.name == key.name }) ?? 0
    let batch = residual.isEmpty ? query.limit + 1 : max(500, query.limit + 1)

    return try run {
      var rows: [[DatabaseValue]] = []
      var scanned = 0
      var position = query.after
      var lastKept: RowCursor?
      var next: RowCursor?
      var stopped = false
      scanning: while true {
        var parts: [SQLFragment] = filterCondition.map { [$0] } ?? []
        if let position {
          parts.append(
            Self.keyset(
              after: position, sort: sortExpression, key: quotedKey,
              descending: query.descending))
        }
        let combined: SQLFragment? = parts.isEmpty ? nil : .balanced(parts[...], "AND")
        let whereParts = [search?.sql, combined?.render(in: dialect, firstIndex: firstIndex)]
          .compactMap { $0 }
        var sql = "SELECT \(selectList) FROM \(dialect.quoteIdentifier(model.table))"
        if !whereParts.isEmpty { sql += " WHERE " + whereParts.joined(separator: " AND ") }
        let arguments = (search?.arguments ?? []) + (combined?.arguments ?? [])
        // The limit is written into the statement, not bound: PostgreSQL plans a prepared
        // statement's LIMIT parameter as a tenth of the table (a scan and a sort of a million
        // rows for a page of 50), and reads the index only with the number in sight.
        sql += " ORDER BY \(orderBy) LIMIT \(batch)"
        let statement = try connection.prepare(sql)
        try statement.bind(arguments)
        var fetched = 0
        while try statement.step() {
          fetched += 1
          scanned += 1
          let values = model.columns.indices.map { statement.value(at: $0) }
          let cursor = RowCursor(
            sortValue: sortExpression == nil ? nil : statement.value(at: model.columns.count),
            key: values[keyIndex])
          position = cursor
          if !residual.isEmpty {
            var row = BrowsedRow(values: [:])
            for (index, column) in model.columns.enumerated() {
              row.values[column.name] = values[index]
            }
            var kept = true
            for predicate in residual where try !predicate.evaluate(row) {
              kept = false
              break
            }
            if !kept { continue }
          }
          if rows.count == query.limit {
            next = lastKept
            break scanning
          }
          rows.append(values)
          lastKept = cursor
        }
        if fetched < batch { break }
        if scanned >= query.scanLimit {
          next = position
          stopped = true
          break
        }
      }
      return RowPage(
        columns: model.columns, rows: rows, next: next, inMemory: reasons,
        condition: shownCondition.isEmpty ? nil : shownCondition, scanned: scanned,
        stoppedAtScanLimit: stopped)
    }
  }

  /// The condition of the rows after `cursor` in the order `sort` (then the key), with `nil`
  /// first ascending and last descending.
  private static func keyset(
    after cursor: RowCursor, sort: String?, key: String, descending: Bool
  ) -> SQLFragment {
    let keyValue = SQLFragment.parameter(cursor.key, type: .bool)
    let after = descending ? " < " : " > "
    guard let sort else { return .boolean("(", .text(key + after), .fragment(keyValue), ")") }
    let sortValue = cursor.sortValue ?? .null
    if sortValue.isNull {
      if descending {
        return .boolean(.text("(\(sort) IS NULL AND \(key) < "), .fragment(keyValue), ")")
      }
      return .boolean(
        .text("((\(sort) IS NULL AND \(key) > "), .fragment(keyValue),
        .text(") OR \(sort) IS NOT NULL)"))
    }
    let value = SQLFragment.parameter(sortValue, type: .bool)
    return .boolean(
      .text("(\(sort)\(after)"), .fragment(value), .text(" OR (\(sort) = "), .fragment(value),
      .text(" AND \(key)\(after)"), .fragment(keyValue), ")",
      .text(descending ? " OR \(sort) IS NULL)" : ")"))
  }

  /// A model's row with primary key `key`, as stored (one value per column), or `nil`.
  ///
  /// - Throws: ``StoreError`` when the store can't be read.
  package func row(of model: BrowsedModel, key: DatabaseValue) throws -> [DatabaseValue]? {
    try run {
      let dialect = connection.dialect
      let list = model.columns.map { dialect.quoteIdentifier($0.name) }.joined(separator: ", ")
      let statement = try connection.prepare(
        "SELECT \(list) FROM \(dialect.quoteIdentifier(model.table)) WHERE "
          + "\(dialect.quoteIdentifier(model.primaryKey.name)) = \(dialect.placeholder(1))")
      try statement.bind([key])
      guard try statement.step() else { return nil }
      return model.columns.indices.map { statement.value(at: $0) }
    }
  }

  /// The rows of other models that refer to a model's row: per referring model and property,
  /// how many and the keys of the first `limit`.
  ///
  /// - Throws: ``StoreError`` when the store can't be read.
  package func referrers(
    to model: BrowsedModel, key: DatabaseValue, among models: [BrowsedModel], limit: Int = 20
  ) throws -> [(referrer: BrowsedModel.Referrer, count: Int, keys: [DatabaseValue])] {
    try run {
      let dialect = connection.dialect
      return try model.referrers.compactMap { referrer in
        guard let other = models.first(where: { $0.name == referrer.model }) else { return nil }
        let table = dialect.quoteIdentifier(other.table)
        let column = dialect.quoteIdentifier(referrer.property)
        let count =
          try connection.queryFirst(
            "SELECT count(*) FROM \(table) WHERE \(column) = \(dialect.placeholder(1))", [key]
          ) { $0.int64(at: 0) } ?? 0
        let otherKey = dialect.quoteIdentifier(other.primaryKey.name)
        let keys = try connection.query(
          "SELECT \(otherKey) FROM \(table) WHERE \(column) = \(dialect.placeholder(1)) "
            + "ORDER BY \(otherKey) LIMIT \(limit)", [key]
        ) { $0.value(at: 0) }
        return (referrer, Int(count), keys)
      }
    }
  }
}
