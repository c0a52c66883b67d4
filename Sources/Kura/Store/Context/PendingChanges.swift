import Foundation

/// The unsaved changes of one model type in a ``ModelContext``: a log of upserts and deletions,
/// replayed in order on save (so the last change of an id wins, as it would have had each change
/// been saved on its own). An index of each id's last change is built only when a read needs it.
final class PendingChanges<Model: PersistentModel>: AnyPendingChanges {
  enum Change {
    case upsert(Model)
    case delete(Model.ID)
  }

  private(set) var log: [Change] = []
  private var lastChangeByID: [Model.ID: Int]?

  var isEmpty: Bool { log.isEmpty }
  var count: Int { log.count }

  func upsert(_ model: Model) {
    log.append(.upsert(model))
    lastChangeByID?[model.id] = log.count - 1
  }

  func delete(_ id: Model.ID) {
    log.append(.delete(id))
    lastChangeByID?[id] = log.count - 1
  }

  /// Drops the changes after the first `count` (a failed transaction's).
  func truncate(to count: Int) {
    guard count < log.count else { return }
    log.removeSubrange(count...)
    lastChangeByID = nil
  }

  private var lastChanges: [Model.ID: Int] {
    if let lastChangeByID { return lastChangeByID }
    var index: [Model.ID: Int] = [:]
    index.reserveCapacity(log.count)
    for (position, change) in log.enumerated() { index[Self.id(of: change)] = position }
    lastChangeByID = index
    return index
  }

  private static func id(of change: Change) -> Model.ID {
    switch change {
    case .upsert(let model): return model.id
    case .delete(let id): return id
    }
  }

  /// The last change of an id, if any.
  func change(for id: Model.ID) -> Change? { lastChanges[id].map { log[$0] } }

  /// Whether an id has a pending change.
  func contains(_ id: Model.ID) -> Bool { lastChanges[id] != nil }

  /// The models inserted or updated and not deleted since, in the order of their last change.
  var upsertedModels: [Model] {
    let last = lastChanges
    return log.enumerated().compactMap { position, change in
      guard case .upsert(let model) = change, last[model.id] == position else { return nil }
      return model
    }
  }

  func write(to db: Connection, schema: ModelSchema) throws {
    let upsert = try db.cachedStatement(schema.upsertSQL)
    let encoder = RowEncoder(schema: schema, statement: upsert)
    let keyKind = schema.primaryKey.kind
    for change in log {
      switch change {
      case .upsert(let model):
        try encoder.bind(model)
        try upsert.execute()
      case .delete(let id):
        guard let key = sqliteValue(for: id, kind: keyKind) else { continue }
        let delete = try db.cachedStatement(schema.deleteByIDSQL)
        try delete.bind(key, at: 1)
        try delete.execute()
      }
    }
  }
}

/// ``PendingChanges`` without its model type, so a context holds those of every type together.
protocol AnyPendingChanges: AnyObject {
  var isEmpty: Bool { get }
  var count: Int { get }
  func truncate(to count: Int)
  func write(to db: Connection, schema: ModelSchema) throws
}

/// The SQL the context runs, built from a model's schema.
enum StoreSQL {
  /// `INSERT … ON CONFLICT (id) DO UPDATE …`, plus one upsert clause per unique attribute, so an
  /// insert whose unique values match a stored row updates that row (which keeps its id).
  static func upsert(_ schema: ModelSchema) -> String { schema.upsertSQL }

  static func upsert(
    table: String, columns: [ColumnSchema], primaryKeyIndex: Int, uniqueConstraints: [[Int]]
  ) -> String {
    let names = columns.map { quoteIdentifier($0.name) }
    let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
    var sql =
      "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(placeholders))"
    let others = names.enumerated().filter { $0.offset != primaryKeyIndex }.map(\.element)
    let update =
      others.isEmpty
      ? "DO NOTHING"
      : "DO UPDATE SET " + others.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    sql += " ON CONFLICT (\(names[primaryKeyIndex])) \(update)"
    for constraint in uniqueConstraints {
      sql += " ON CONFLICT (\(indexedColumns(columns, constraint))) \(update)"
    }
    return sql
  }

  /// Columns of an index or conflict target. String columns use the collation the predicate
  /// translation compares strings with (Swift's `==` and `<`), so its comparisons use the index.
  static func indexedColumns(_ schema: ModelSchema, _ columns: [Int]) -> String {
    indexedColumns(schema.columns, columns)
  }

  static func indexedColumns(_ all: [ColumnSchema], _ columns: [Int]) -> String {
    columns.map { index in
      let column = all[index]
      let collation = column.valueType == String.self ? " COLLATE " + SwiftStringSQL.collation : ""
      return quoteIdentifier(column.name) + collation
    }.joined(separator: ", ")
  }

  static func deleteByID(_ schema: ModelSchema) -> String { schema.deleteByIDSQL }

  static func select(_ schema: ModelSchema) -> String { schema.selectSQL }

  static func selectByID(_ schema: ModelSchema) -> String { schema.selectByIDSQL }
}
