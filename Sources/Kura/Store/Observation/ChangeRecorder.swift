import Foundation

/// Records what a save changes: classifies its upserts as inserts or updates, applies the delete
/// rules, and writes the change set to the history table — all inside the save's transaction.
struct ChangeRecorder {
  private var changes: [String: ChangeSet.ModelChanges] = [:]
  private var order: [String] = []

  /// Runs before the save writes its pending changes.
  init(
    tables: [ObjectIdentifier: any AnyPendingChanges], order keys: [ObjectIdentifier],
    container: ModelContainer, db: Connection
  ) throws {
    var deleting: [String: [SQLiteValue]] = [:]
    var modelByTable: [String: String] = [:]
    for key in keys {
      guard let table = tables[key] as? any PendingKeyListing, let schema = container.schemas[key]
      else { continue }
      modelByTable[schema.tableName] = schema.modelName
      let (upserted, deleted) = table.pendingKeys(kind: schema.primaryKey.kind)
      let stored = try Self.storedKeys(upserted + deleted, schema: schema, db: db)
      var modelChanges = ChangeSet.ModelChanges()
      modelChanges.inserted.reserveCapacity(upserted.count)
      for key in upserted {
        if stored.contains(key) {
          modelChanges.updated.append(idText(key))
        } else {
          modelChanges.inserted.append(idText(key))
        }
      }
      var deletedKeys: [SQLiteValue] = []
      for key in deleted where stored.contains(key) {
        deletedKeys.append(key)
        modelChanges.deleted.append(idText(key))
      }
      if !deletedKeys.isEmpty { deleting[schema.tableName] = deletedKeys }
      add(modelChanges, model: schema.modelName)
    }
    let outcome = try DeleteRuleApplier(graph: container.graph, db: db).apply(deleting: deleting)
    for (table, keys) in outcome.deleted {
      let model = Self.modelName(table, container)
      add(ChangeSet.ModelChanges(deleted: keys.map(idText)), model: model)
    }
    for (table, keys) in outcome.updated {
      let model = Self.modelName(table, container)
      add(ChangeSet.ModelChanges(updated: keys.map(idText)), model: model)
    }
  }

  /// Which of `keys` are stored now: one lookup per key for a few, one statement for many.
  private static func storedKeys(_ keys: [SQLiteValue], schema: ModelSchema, db: Connection)
    throws -> Set<SQLiteValue>
  {
    let key = quoteIdentifier(schema.primaryKey.name)
    var stored = Set<SQLiteValue>()
    if keys.count <= 16 {
      let exists = try db.cachedStatement(
        "SELECT 1 FROM \(schema.quotedTable) WHERE \(key) = ?")
      for value in keys {
        exists.reset()
        try exists.bind(value, at: 1)
        if try exists.step() { stored.insert(value) }
      }
      exists.reset()
      return stored
    }
    let rows = try db.query(
      "SELECT \(key) FROM \(schema.quotedTable) WHERE \(key) IN (SELECT value FROM json_each(?))",
      [.text(jsonArray(keys))]
    ) { $0.value(at: 0) }
    stored.formUnion(rows)
    return stored
  }

  private static func modelName(_ table: String, _ container: ModelContainer) -> String {
    container.schemas.values.first { $0.tableName == table }?.modelName ?? table
  }

  private mutating func add(_ more: ChangeSet.ModelChanges, model: String) {
    guard !more.isEmpty else { return }
    if changes[model] == nil { order.append(model) }
    changes[model, default: ChangeSet.ModelChanges()].inserted += more.inserted
    changes[model, default: ChangeSet.ModelChanges()].updated += more.updated
    changes[model, default: ChangeSet.ModelChanges()].deleted += more.deleted
  }

  /// Writes the change set to the history; runs after the pending changes are written.
  func commit(_ db: Connection) throws -> ChangeSet {
    let date = Date()
    guard !changes.isEmpty else {
      return ChangeSet.empty(at: try ChangeHistory.latestToken(db))
    }
    let token = try ChangeHistory.record(changes, order: order, date: date, in: db)
    return ChangeSet(token: token, date: date, changes: changes)
  }
}

/// The keys a ``PendingChanges`` upserts and deletes, without its model type.
protocol PendingKeyListing {
  func pendingKeys(kind: ColumnKind) -> (upserted: [SQLiteValue], deleted: [SQLiteValue])
}

extension PendingChanges: PendingKeyListing {
  func pendingKeys(kind: ColumnKind) -> (upserted: [SQLiteValue], deleted: [SQLiteValue]) {
    let (upserted, deleted) = finalChanges
    return (
      upserted.compactMap { sqliteValue(for: $0, kind: kind) },
      deleted.compactMap { sqliteValue(for: $0, kind: kind) }
    )
  }
}
