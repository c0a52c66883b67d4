import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// A replica's side of the server's unique arbitration: naming its models' unique attributes in
/// a push, and settling the values it lost — a row the server never accepted is set aside (moved
/// out of its table into the conflicts list, whole), a row it had accepted gets its former values
/// back — each listed in ``SyncEngine/conflicts()`` with the winner's id.
extension SyncLocalStore {
  /// The unique attributes of the models `changes` touch, as the server takes them.
  package static func uniqueConstraints(for changes: [SyncChange], container: ModelContainer)
    -> [SyncUniqueConstraint]
  {
    let models = Set(changes.map(\.model))
    var constraints: [SyncUniqueConstraint] = []
    for model in models.sorted() {
      guard let schema = container.schemas.values.first(where: { $0.storedName == model })
      else { continue }
      for columns in schema.uniqueConstraints {
        constraints.append(
          SyncUniqueConstraint(model: model, properties: columns.map { schema.columns[$0].name }))
      }
    }
    return constraints
  }

  /// Settles the unique values a push lost, and the deletes it was denied, in the write that
  /// takes in its answer.
  ///
  /// - Returns: The visible changes (rows set aside, rows given their values back, rows
  ///   restored).
  package static func settle(
    _ conflicts: [SyncUniqueConflict], container: ModelContainer, db: StoreConnection
  ) throws -> ChangeSet.ModelChangesByModel {
    // Deletes the server denied (SyncLocalStore+Deny.swift).
    var changes = try restoreDenied(conflicts, container: container, db: db)
    var effects = RuleEffects()
    for conflict in conflicts where conflict.kind == nil {
      guard let schema = container.schemas.values.first(where: { $0.storedName == conflict.model }),
        let id = keyValue(conflict.id, kind: schema.primaryKey.kind)
      else { continue }
      let key = SyncMergeState.Key(model: conflict.model, id: conflict.id)
      var record = try record(key, db)
      // Settled already (a resent answer), or the id lives again since.
      guard record.isLive, record.incarnation == conflict.incarnation else { continue }
      if let restored = conflict.restored {
        let columns = restored.compactMap(\.property)
        guard !columns.isEmpty else { continue }
        for change in restored {
          guard let property = change.property else { continue }
          record.properties[property] = .init(value: change.value ?? .null, stamp: change.stamp)
        }
        try storeRecord(record, key, db)
        try db.run(
          "UPDATE \(schema.quotedTable) SET "
            + columns.map { "\(quoteIdentifier($0)) = ?" }.joined(separator: ", ")
            + " WHERE \(quoteIdentifier(schema.primaryKey.name)) = ?",
          restored.map { ($0.value ?? .null) } + [id])
        try addConflict(
          kind: "uniqueValue", model: conflict.model, id: conflict.id,
          properties: conflict.properties, lost: conflict.values, existingID: conflict.existingID,
          kept: nil, db)
        changes[conflict.model, default: .init()].updated.append(conflict.id)
      } else {
        // The server sends the other replicas a delete of it (SyncService+Uniques.swift), so
        // they settle the models referring to it by their delete rules: so does this one.
        try applyDeleteRules(
          deleting: id, of: schema, container: container, db: db, effects: &effects)
        if try setAside(
          schema, key: key, id: id, record: record, winner: conflict.existingID,
          properties: conflict.properties, lost: conflict.values, db)
        {
          changes[conflict.model, default: .init()].deleted.append(conflict.id)
        }
      }
    }
    try recordRuleEffects(effects, records: [:], container: container, db: db)
    for (model, ids) in effects.deleted { changes[model, default: .init()].deleted += ids }
    for (model, ids) in effects.updated { changes[model, default: .init()].updated += ids }
    return changes
  }

  /// Moves a row out of its table into the conflicts list, with all its values: the server
  /// refused it (another model holds one of its unique values). Its record becomes a deleted
  /// incarnation known only here, so inserting the id again starts the next one.
  ///
  /// - Returns: Whether the row was there to move.
  package static func setAside(
    _ schema: ModelSchema, key: SyncMergeState.Key, id: DatabaseValue, record: SyncRecordState,
    winner: String, properties: [String], lost: [DatabaseValue], _ db: StoreConnection
  ) throws -> Bool {
    guard let values = try rowValues(schema, id: id, db) else { return false }
    try db.run(
      "DELETE FROM \(schema.quotedTable) WHERE \(quoteIdentifier(schema.primaryKey.name)) = ?",
      [id])
    var gone = SyncRecordState(incarnation: record.incarnation)
    var clock = try clock(db, wallClock: HybridLogicalClock.systemWallClock)
    gone.deleted = clock.now()
    try saveClock(clock, db)
    try storeRecord(gone, key, db)
    try addConflict(
      kind: "setAside", model: key.model, id: key.id, properties: properties, lost: lost,
      existingID: winner, kept: values, db)
    return true
  }

  /// The local rows (other than `id`) that hold one of the unique values `record` holds: the
  /// rows a pulled model collides with.
  package static func collidingRows(
    _ schema: ModelSchema, id: DatabaseValue, record: SyncRecordState, _ db: StoreConnection
  ) throws -> [(id: DatabaseValue, properties: [String], values: [DatabaseValue])] {
    var found: [(id: DatabaseValue, properties: [String], values: [DatabaseValue])] = []
    let primaryKey = quoteIdentifier(schema.primaryKey.name)
    for columns in schema.uniqueConstraints {
      var conditions: [String] = []
      var arguments: [DatabaseValue] = []
      var values: [DatabaseValue] = []
      for index in columns {
        let column = schema.columns[index]
        guard let value = record.properties[column.name]?.value, value != .null else { break }
        let name = quoteIdentifier(column.name)
        let condition =
          column.valueType == String.self
          ? db.dialect.swiftStringComparison(name, "=", "?") ?? "\(name) = ?" : "\(name) = ?"
        conditions.append(condition)
        arguments.append(value)
        values.append(value)
      }
      guard conditions.count == columns.count else { continue }
      let rows = try db.query(
        "SELECT \(primaryKey) FROM \(schema.quotedTable) WHERE "
          + conditions.joined(separator: " AND ") + " AND \(primaryKey) <> ?", arguments + [id]
      ) { $0.value(at: 0) }
      for row in rows {
        found.append((row, columns.map { schema.columns[$0].name }, values))
      }
    }
    return found
  }

  package static func addConflict(
    kind: String, model: String, id: String, properties: [String], lost: [DatabaseValue],
    existingID: String, kept: [String: DatabaseValue]?, _ db: StoreConnection
  ) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let lostText =
      lost.isEmpty
      ? Data("null".utf8) : lost.count == 1 ? try encoder.encode(lost[0]) : try encoder.encode(lost)
    try db.run(
      "INSERT INTO kura_sync_conflicts (model, id, property, lost, winner, date, kind, existing, "
        + "kept) VALUES (?, ?, ?, ?, '', ?, ?, ?, ?)",
      [
        .text(model), .text(id),
        properties.isEmpty ? .null : .text(properties.joined(separator: ",")),
        .text(String(decoding: lostText, as: UTF8.self)), .real(Date().timeIntervalSince1970),
        .text(kind), .text(existingID),
        try kept.map { .text(String(decoding: try encoder.encode($0), as: UTF8.self)) } ?? .null,
      ])
  }

  /// Records visible changes made outside a save (pulled, settled) in the history, so live
  /// queries and the change feed see them. The caller recorded the local saves before it
  /// (``recordLocalSaves(container:db:)``) in the same transaction.
  package static func recordHistory(
    _ changes: ChangeSet.ModelChangesByModel, container: ModelContainer, db: StoreConnection
  ) throws {
    guard !changes.isEmpty, container.configuration.historyRetention.records else { return }
    let ordered = changes.sorted { $0.key < $1.key }.map { (model: $0.key, changes: $0.value) }
    let (token, _) = try ChangeHistory.record(
      ordered, date: Date(), in: db, state: container.historyState)
    container.historyState.latest = token.rawValue
    // Sync's own save is no local edit: the local saves before it were recorded first, in
    // this transaction (SyncLocalStore+SyncOffEdits.swift).
    try skipOwnHistory(token, db)
  }
}

extension SyncLocalStore {
  /// Adds the columns a conflict got with unique values and delete rules (`kind`, `existing`,
  /// `kept`) to a `kura_sync_conflicts` table made by an earlier version, which
  /// `CREATE TABLE IF NOT EXISTS` leaves as it is.
  package static func addConflictColumns(_ db: StoreConnection) throws {
    let present = Set(
      try db.query("SELECT name FROM pragma_table_info('kura_sync_conflicts')") {
        $0.string(at: 0)
      })
    for column in ["kind", "existing", "kept"] where !present.contains(column) {
      try db.execute("ALTER TABLE kura_sync_conflicts ADD COLUMN \(column) TEXT")
    }
  }
}
