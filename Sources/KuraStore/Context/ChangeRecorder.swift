import Foundation
import KuraBase
import KuraSQLite

/// Records what a save changes, inside its transaction: applies the delete rules before the
/// pending changes are written (``init(order:container:db:)``), takes what each model's
/// writes did (``record(_:model:)``: inserts and updates as the engine's row tracker reported
/// them), and writes the change set to the history table (``commit(_:)``).
package struct ChangeRecorder {
  /// What the save changed, by model, in the order the models were first changed (the first
  /// held inline: a save of one model allocates no list), handed to the change set as they are
  /// (a dictionary only when several models changed).
  private var changes = SavedChanges()
  /// The keys of the pending deletions that were stored before the save, by model type (`nil`
  /// when the save deletes nothing: no dictionary to make and destroy).
  private var storedDeletionsByType: [ObjectIdentifier: Set<DatabaseValue>]?
  /// What the delete rules deleted and updated, reported after the save's own changes (`nil`
  /// when no rule ran).
  private var ruleOutcome: DeleteRuleApplier.Outcome?
  private let container: ModelContainer

  /// Runs before the save writes its pending changes: finds which pending deletions are stored
  /// and applies the delete rules to them (nothing to do when the save deletes nothing).
  package init(
    order: [PendingTable],
    container: ModelContainer, db: StoreConnection
  ) throws {
    self.container = container
    guard order.contains(where: { $0.table.hasDeletions }) else { return }
    var deleting: [String: [DatabaseValue]] = [:]
    var storedDeletions: [ObjectIdentifier: Set<DatabaseValue>] = [:]
    for (key, table) in order {
      guard table.hasDeletions,
        let listing = table as? any PendingKeyListing, let schema = container.schemas[key]
      else { continue }
      let deleted = listing.pendingDeletedKeys(kind: schema.primaryKey.kind)
      let stored = try Self.storedKeys(deleted, schema: schema, db: db)
      storedDeletions[key] = stored
      let deletedKeys = deleted.filter { stored.contains($0) }
      if !deletedKeys.isEmpty { deleting[schema.tableName] = deletedKeys }
    }
    storedDeletionsByType = storedDeletions
    guard !deleting.isEmpty else { return }
    ruleOutcome = try DeleteRuleApplier(graph: container.graph, db: db).apply(deleting: deleting)
  }

  /// The keys of the pending deletions of the model type with this identity that were stored
  /// before the save.
  package func storedDeletions(of key: ObjectIdentifier) -> Set<DatabaseValue> {
    storedDeletionsByType?[key] ?? []
  }

  /// Adds what the save's writes to one model's table did.
  package mutating func record(_ written: ChangeSet.ModelChanges, model: String) {
    changes.add(written, model: model)
  }

  /// Which of `keys` are stored now: one lookup per key for a few, one statement for many.
  private static func storedKeys(_ keys: [DatabaseValue], schema: ModelSchema, db: StoreConnection)
    throws -> Set<DatabaseValue>
  {
    var stored = Set<DatabaseValue>()
    if keys.count <= 16 {
      let exists = try db.cachedStatement(schema.existsByIDSQL)
      for value in keys {
        exists.reset()
        try exists.bind(value, at: 1)
        if try exists.step() { stored.insert(value) }
      }
      exists.reset()
      return stored
    }
    let key = quoteIdentifier(schema.primaryKey.name)
    let (condition, arguments) = try storeKeyList(key, keys, text: false, dialect: db.dialect)
    let rows = try db.query(
      "SELECT \(key) FROM \(schema.quotedTable) WHERE \(condition)", arguments
    ) { $0.value(at: 0) }
    stored.formUnion(rows)
    return stored
  }

  private func modelName(_ table: String) -> String {
    container.schemas.values.first { $0.tableName == table }?.storedName ?? table
  }

  /// Writes the change set (with the delete rules' changes) to the history; runs after the
  /// pending changes are written.
  /// `scratch` is what the saving context keeps for its history rows (see
  /// ``ChangeHistory/record(_:date:in:scratch:)``).
  package mutating func commit(_ db: StoreConnection, scratch: inout HistoryScratch) throws
    -> ChangeSet
  {
    if let ruleOutcome, !ruleOutcome.denials.isEmpty {
      try DeleteRuleApplier(graph: container.graph, db: db).checkDenials(ruleOutcome)
    }
    if try db.hasForeignKeyViolations { throw try danglingReference(db) }
    if let ruleOutcome {
      for (table, keys) in ruleOutcome.deleted {
        changes.add(ChangeSet.ModelChanges(deleted: keys.map(idText)), model: modelName(table))
      }
      for (table, keys) in ruleOutcome.updated {
        changes.add(ChangeSet.ModelChanges(updated: keys.map(idText)), model: modelName(table))
      }
    }
    let date = Date()
    guard !changes.isEmpty else {
      return ChangeSet.empty(at: try ChangeHistory.latestToken(db))
    }
    let retention = container.configuration.historyRetention
    guard retention.records else {
      // History off (`HistoryRetention.off`): no row, the token stays where it was (as this
      // container last saw it: a lower bound, so reading history since it misses nothing).
      let state = container.historyState
      if let latest = state.latest {
        return ChangeSet(
          token: HistoryToken(rawValue: latest), date: date, changes: changes)
      }
      let token = try ChangeHistory.latestToken(db)
      state.latest = token.rawValue
      return ChangeSet(token: token, date: date, changes: changes)
    }
    let state = container.historyState
    let plan = ChangeHistory.plan(
      keeping: retention, state: state, now: date,
      consecutiveTokens: db.engine.hasConsecutiveTokens)
    let (token, oldest) = try ChangeHistory.record(
      changes, date: date, in: db, scratch: &scratch, readingOldest: plan.readsOldest)
    state.latest = token.rawValue
    // A participant (sync) may still need history rows the retention would delete (asked only
    // when a trim would delete some).
    let saving = container
    let kept: ((StoreConnection) throws -> Int64?)? =
      saving.hasSaveParticipant
      ? { db in try saving.configuration.saveParticipant?.participant.keptHistory(db) ?? nil }
      : nil
    func trim() throws {
      try ChangeHistory.trim(
        db, keeping: retention, latest: token, now: date, state: state, plan: plan,
        oldest: oldest, kept: kept)
    }
    if container.activeWriteHere != nil {
      try ChangeHistory.trimInsideWrite(db, trim)
    } else {
      try trim()
    }
    return ChangeSet(token: token, date: date, changes: changes)
  }
}

extension ChangeRecorder {
  /// The error naming the first row of this save whose reference points at nothing: its model,
  /// id, property and the missing id (rather than SQLite's "FOREIGN KEY constraint failed").
  fileprivate func danglingReference(_ db: StoreConnection) throws -> StoreError {
    for schema in container.schemas.values
    where !(container.graph.attributesByTable[schema.tableName]?.references.isEmpty ?? true) {
      guard
        let dangling = try db.firstDanglingReference(
          in: schema.tableName, primaryKey: schema.primaryKey.name)
      else { continue }
      let (id, missing) = (dangling.key, dangling.missing)
      let (column, target) = (dangling.column, dangling.target)
      let targetModel =
        container.schemas.values.first { $0.tableName == target }?.modelName ?? target
      return StoreError(
        .danglingReference, model: schema.modelName, property: column, column: column,
        url: container.storeURL,
        message:
          "Can't save `\(schema.modelName)` `\(idText(id))`: its `\(column)` refers to "
          + "`\(targetModel)` `\(idText(missing))`, which does not exist. Nothing was saved; save "
          + "that `\(targetModel)` first (in the same save or before), or refer to one that exists."
      )
    }
    return StoreError(
      .danglingReference, url: container.storeURL,
      message:
        "Can't save: a saved model refers to a model that does not exist. Nothing was saved; "
        + "save the models it refers to first.")
  }
}

/// A model type's identity and its pending changes (an entry of a context's save order).
package typealias PendingTable = (key: ObjectIdentifier, table: any AnyPendingChanges)

/// The keys a ``PendingChanges`` deletes, without its model type.
package protocol PendingKeyListing {
  func pendingDeletedKeys(kind: ColumnKind) -> [DatabaseValue]
}

extension PendingChanges: PendingKeyListing {
  package func pendingDeletedKeys(kind: ColumnKind) -> [DatabaseValue] {
    guard hasDeletions else { return [] }
    return finalChanges.deleted.compactMap { databaseValue(for: $0, kind: kind) }
  }
}
