import Foundation

/// The unsaved changes of one model type in a ``ModelContext``: per id, the latest model to
/// insert or update, or a deletion; written in first-change order on save.
struct PendingChanges<Model: PersistentModel>: AnyPendingChanges {
  enum Change {
    case upsert(Model)
    case delete
  }

  private(set) var order: [Model.ID] = []
  private(set) var changes: [Model.ID: Change] = [:]

  var isEmpty: Bool { order.isEmpty }

  mutating func reserve(_ count: Int) {
    order.reserveCapacity(count)
    changes.reserveCapacity(count)
  }

  mutating func upsert(_ model: Model) {
    if changes.updateValue(.upsert(model), forKey: model.id) == nil { order.append(model.id) }
  }

  mutating func delete(_ id: Model.ID) {
    if changes.updateValue(.delete, forKey: id) == nil { order.append(id) }
  }

  func write(to db: Connection, schema: ModelSchema) throws {
    let upsert = try db.cachedStatement(StoreSQL.upsert(schema))
    let delete = try db.cachedStatement(StoreSQL.deleteByID(schema))
    let encoder = RowEncoder(schema: schema, statement: upsert)
    let keyKind = schema.primaryKey.kind
    for id in order {
      switch changes[id] {
      case .upsert(let model)?:
        try encoder.bind(model)
        try upsert.execute()
      case .delete?:
        guard let key = sqliteValue(for: id, kind: keyKind) else { continue }
        delete.reset()
        try delete.bind(key, at: 1)
        try delete.execute()
      case nil:
        continue
      }
    }
  }
}

/// ``PendingChanges`` without its model type, so a context holds those of every type together.
protocol AnyPendingChanges {
  var isEmpty: Bool { get }
  func write(to db: Connection, schema: ModelSchema) throws
}

/// The SQL the context runs, built from a model's schema.
enum StoreSQL {
  /// `INSERT … ON CONFLICT (id) DO UPDATE …`, plus one upsert clause per unique attribute, so an
  /// insert whose unique values match a stored row updates that row (which keeps its id).
  static func upsert(_ schema: ModelSchema) -> String {
    let names = schema.columns.map { quoteIdentifier($0.name) }
    let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
    var sql =
      "INSERT INTO \(schema.quotedTable) (\(names.joined(separator: ", "))) VALUES "
      + "(\(placeholders))"
    let others = names.enumerated().filter { $0.offset != schema.primaryKeyIndex }.map(\.element)
    let update =
      others.isEmpty
      ? "DO NOTHING"
      : "DO UPDATE SET " + others.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    sql += " ON CONFLICT (\(names[schema.primaryKeyIndex])) \(update)"
    for columns in schema.uniqueConstraints {
      sql += " ON CONFLICT (\(indexedColumns(schema, columns))) \(update)"
    }
    return sql
  }

  /// Columns of an index or conflict target. String columns use the collation the predicate
  /// translation compares strings with (Swift's `==` and `<`), so its comparisons use the index.
  static func indexedColumns(_ schema: ModelSchema, _ columns: [Int]) -> String {
    columns.map { index in
      let column = schema.columns[index]
      let collation = column.valueType == String.self ? " COLLATE " + SwiftStringSQL.collation : ""
      return quoteIdentifier(column.name) + collation
    }.joined(separator: ", ")
  }

  static func deleteByID(_ schema: ModelSchema) -> String {
    "DELETE FROM \(schema.quotedTable) WHERE \(quoteIdentifier(schema.primaryKey.name)) = ?"
  }

  static func select(_ schema: ModelSchema) -> String {
    "SELECT \(schema.quotedColumnList) FROM \(schema.quotedTable)"
  }

  static func selectByID(_ schema: ModelSchema) -> String {
    select(schema) + " WHERE \(quoteIdentifier(schema.primaryKey.name)) = ?"
  }
}
