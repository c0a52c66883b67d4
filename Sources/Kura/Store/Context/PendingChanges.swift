import Foundation

/// The unsaved changes of one model type in a ``ModelContext``: a log of upserts and deletions,
/// replayed in order on save (so the last change of an id wins, as it would have had each change
/// been saved on its own). An index of each id's last change is built only when a read needs it.
final class PendingChanges<Model: PersistentModel>: AnyPendingChanges {
  enum Change {
    case upsert(Model)
    case delete(Model.ID)
  }

  private var entries: [PendingEntry] = []
  private var models: [Model] = []
  private var deletedIDs: [Model.ID] = []
  private var lastChangeByID: [Model.ID: Int]?

  var isEmpty: Bool { entries.isEmpty }
  var count: Int { entries.count }

  func upsert(_ model: Model) {
    entries.append(.upsert(models.count))
    models.append(model)
    lastChangeByID?[model.id] = entries.count - 1
  }

  func delete(_ id: Model.ID) {
    entries.append(.delete(deletedIDs.count))
    deletedIDs.append(id)
    lastChangeByID?[id] = entries.count - 1
  }

  /// Drops the changes after the first `count` (a failed transaction's).
  func truncate(to count: Int) {
    guard count < entries.count else { return }
    entries.removeSubrange(count...)
    var modelCount = 0
    var deletedCount = 0
    for entry in entries {
      switch entry {
      case .upsert: modelCount += 1
      case .delete: deletedCount += 1
      }
    }
    models.removeSubrange(modelCount...)
    deletedIDs.removeSubrange(deletedCount...)
    lastChangeByID = nil
  }

  private func change(at position: Int) -> Change {
    switch entries[position] {
    case .upsert(let index): return .upsert(models[index])
    case .delete(let index): return .delete(deletedIDs[index])
    }
  }

  private var lastChanges: [Model.ID: Int] {
    if let lastChangeByID { return lastChangeByID }
    var index: [Model.ID: Int] = [:]
    index.reserveCapacity(entries.count)
    for (position, entry) in entries.enumerated() {
      switch entry {
      case .upsert(let model): index[models[model].id] = position
      case .delete(let id): index[deletedIDs[id]] = position
      }
    }
    lastChangeByID = index
    return index
  }

  /// The last change of an id, if any.
  func change(for id: Model.ID) -> Change? { lastChanges[id].map { change(at: $0) } }

  /// Whether an id has a pending change.
  func contains(_ id: Model.ID) -> Bool { lastChanges[id] != nil }

  /// The models inserted or updated and not deleted since, in the order of their last change.
  var upsertedModels: [Model] {
    let last = lastChanges
    return entries.enumerated().compactMap { position, entry in
      guard case .upsert(let index) = entry, last[models[index].id] == position else { return nil }
      return models[index]
    }
  }

  func write(
    to db: Connection, schema: ModelSchema, encoder makeEncoder: (Statement) -> RowEncoder
  ) throws {
    let upsert = try db.cachedStatement(schema.upsertSQL)
    let encoder = makeEncoder(upsert)
    for entry in entries {
      switch entry {
      case .upsert(let index):
        try encoder.bind(models[index])
        try upsert.execute()
      case .delete(let index):
        guard let key = schema.keyValue(deletedIDs[index]) else { continue }
        let delete = try db.cachedStatement(schema.deleteByIDSQL)
        try delete.bind(key, at: 1)
        try delete.execute()
      }
    }
  }
}

/// One logged change of ``PendingChanges``: an index into its upserted models or its deleted ids.
/// (Not nested in the generic class, so that appending one needs no generic metadata.)
enum PendingEntry {
  case upsert(Int)
  case delete(Int)
}

/// ``PendingChanges`` without its model type, so a context holds those of every type together.
protocol AnyPendingChanges: AnyObject {
  var isEmpty: Bool { get }
  var count: Int { get }
  func truncate(to count: Int)
  func write(
    to db: Connection, schema: ModelSchema, encoder makeEncoder: (Statement) -> RowEncoder
  ) throws
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
