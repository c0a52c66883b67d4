import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// Delete rules after a pull. Every replica applies a model's delete rules to its own rows when
/// a pulled change deletes the model, as a local delete would, and sends what the rules did as
/// its own changes (stamped then): the replica that holds a dependent may be the only one that
/// knows it (it was made there, concurrently with the delete), so the outcome must travel from
/// there. Several replicas doing the same is harmless: a delete is a delete, and `nil` is `nil`.
///
/// - `.cascade`: the dependents are deleted (and their deletes synced).
/// - `.nullify`: the reference is cleared (and the change synced).
/// - `.deny`: the server is the truth, so the pulled delete stands — a local dependent can't
///   refuse it. The dependents are deleted like `.cascade`, and each replica that held one lists
///   it in its conflicts (``SyncConflict/Kind/targetDeleted``) with all its values, so the app can
///   restore it under another model.
///
/// A pulled model referring to a model this replica knows is deleted gets the same treatment;
/// one referring to a model it doesn't know yet is parked — kept out of its table (its values
/// are in the sync registers) until a later pull brings the target — instead of failing the
/// pull at commit.
extension SyncLocalStore {
  /// What the rules did to local rows, by model: deleted and updated ids (for the history and
  /// for this replica's own synced changes).
  package struct RuleEffects {
    package var deleted: [String: [String]] = [:]
    package var updated: [String: [String]] = [:]

    package var isEmpty: Bool { deleted.isEmpty && updated.isEmpty }
  }

  /// What to do with a pulled live model's row, given its references.
  package enum ReferenceCheck {
    /// Write it.
    case write
    /// Write it with these references cleared (their targets are deleted: `.nullify`).
    case nullifying([String])
    /// Don't write it: a target is deleted and the rule deletes it (`deny` set: list it).
    case delete(deny: Bool, target: String)
    /// Don't write it yet: a target is not known here yet.
    case park
  }

  /// The parked models, to try again with a pull.
  package static func parked(_ db: StoreConnection) throws -> [SyncMergeState.Key] {
    try db.query("SELECT model, id FROM kura_sync_parked ORDER BY model, id") {
      SyncMergeState.Key(model: $0.string(at: 0), id: $0.string(at: 1))
    }
  }

  package static func setParked(_ key: SyncMergeState.Key, _ parked: Bool, _ db: StoreConnection)
    throws
  {
    try db.run(
      parked
        ? "INSERT OR IGNORE INTO kura_sync_parked (model, id) VALUES (?, ?)"
        : "DELETE FROM kura_sync_parked WHERE model = ? AND id = ?",
      [.text(key.model), .text(key.id)])
  }

  /// Checks a pulled live model's references against what this replica holds (and what the
  /// page being applied will hold: `records`).
  package static func checkReferences(
    _ schema: ModelSchema, record: SyncRecordState,
    records: [SyncMergeState.Key: SyncRecordState], container: ModelContainer,
    db: StoreConnection
  ) throws -> ReferenceCheck {
    guard let attributes = container.graph.attributesByTable[schema.tableName] else {
      return .write
    }
    var cleared: [String] = []
    for reference in attributes.references where reference.deleteRule != .noAction {
      guard let value = record.properties[reference.column]?.value, value != .null,
        let target = container.schemas.values.first(where: { $0.tableName == reference.targetTable }
        )
      else { continue }
      let targetKey = SyncMergeState.Key(model: target.storedName, id: idText(value))
      // A target this page makes live is written before the dependent's commit — unless it
      // waits in the quarantine (a property missing): then the dependent is parked too.
      if let pulled = records[targetKey], pulled.isLive {
        let complete = SyncVersions.defaults(target, missingFrom: pulled, container: container)
          .missing.isEmpty
        if complete { continue }
        if try db.queryFirst(target.existsByIDSQL, [value], row: { _ in true })
          ?? false
        {
          continue
        }
        return .park
      }
      let exists =
        try db.queryFirst(
          "SELECT 1 FROM \(target.quotedTable) WHERE \(quoteIdentifier(reference.targetKey)) = ?",
          [value]
        ) { _ in true } ?? false
      if exists, records[targetKey] == nil { continue }
      let known = try records[targetKey] ?? self.record(targetKey, db)
      guard known.incarnation > 0, !known.isLive else { return .park }
      switch reference.deleteRule {
      case .nullify: cleared.append(reference.column)
      case .deny: return .delete(deny: true, target: targetKey.id)
      default: return .delete(deny: false, target: targetKey.id)
      }
    }
    return cleared.isEmpty ? .write : .nullifying(cleared)
  }

  /// Applies the delete rules for a pulled delete of `id`, before the row itself is deleted:
  /// cascades and nullifies as a local delete would, and deletes (listing them) the dependents
  /// a `.deny` reference would have kept.
  package static func applyDeleteRules(
    deleting id: DatabaseValue, of schema: ModelSchema, container: ModelContainer,
    db: StoreConnection, effects: inout RuleEffects
  ) throws {
    guard !container.graph.isEmpty else { return }
    let applier = DeleteRuleApplier(graph: container.graph, db: db)
    var deleting: [String: [DatabaseValue]] = [schema.tableName: [id]]
    var target = idText(id)
    var rounds = 0
    while !deleting.isEmpty, rounds < 64 {
      rounds += 1
      let outcome = try applier.apply(deleting: deleting)
      for (table, keys) in outcome.deleted {
        guard let model = storedName(ofTable: table, container) else { continue }
        effects.deleted[model, default: []] += keys.map(idText)
      }
      for (table, keys) in outcome.updated {
        guard let model = storedName(ofTable: table, container) else { continue }
        effects.updated[model, default: []] += keys.map(idText)
      }
      deleting = [:]
      for (reference, targets) in outcome.denials {
        guard
          let dependent = container.schemas.values.first(where: { $0.tableName == reference.table })
        else { continue }
        let (condition, arguments) = try storeKeyList(
          quoteIdentifier(reference.column), targets, text: reference.comparesLikeSwift,
          dialect: db.dialect)
        let keys = try db.query(
          "SELECT \(quoteIdentifier(reference.primaryKey)) FROM \(quoteIdentifier(reference.table)) "
            + "WHERE \(condition)", arguments
        ) { $0.value(at: 0) }
        for key in keys {
          try listDenied(dependent, id: key, target: target, db)
          effects.deleted[dependent.storedName, default: []].append(idText(key))
        }
        if !keys.isEmpty {
          try db.run(
            "DELETE FROM \(dependent.quotedTable) WHERE "
              + "\(quoteIdentifier(dependent.primaryKey.name)) IN ("
              + Array(repeating: "?", count: keys.count).joined(separator: ", ") + ")", keys)
          deleting[dependent.tableName, default: []] += keys
        }
      }
      target = ""
    }
  }

  /// Lists a row a `.deny` rule would have kept, with its values, before it is deleted.
  package static func listDenied(
    _ schema: ModelSchema, id: DatabaseValue, target: String, _ db: StoreConnection
  ) throws {
    guard let values = try rowValues(schema, id: id, db) else { return }
    try addConflict(
      kind: "targetDeleted", model: schema.storedName, id: idText(id), properties: [],
      lost: [], existingID: target, kept: values, db)
  }

  /// A stored row's values by column, or `nil` when there is no such row.
  package static func rowValues(_ schema: ModelSchema, id: DatabaseValue, _ db: StoreConnection)
    throws
    -> [String: DatabaseValue]?
  {
    let select = try db.cachedStatement(
      "SELECT * FROM \(schema.quotedTable) WHERE \(quoteIdentifier(schema.primaryKey.name)) = ?")
    select.reset()
    defer { select.reset() }
    try select.bind(id, at: 1)
    guard try select.step() else { return nil }
    var values: [String: DatabaseValue] = [:]
    for index in 0..<select.columnCount {
      values[select.columnName(at: index)] = select.value(at: index)
    }
    return values
  }

  /// Sends what the rules did as this replica's own changes (after the pull's clock is saved).
  package static func recordRuleEffects(
    _ effects: RuleEffects, records: [SyncMergeState.Key: SyncRecordState],
    container: ModelContainer, db: StoreConnection
  ) throws {
    var changes: [String: ChangeSet.ModelChanges] = [:]
    for (model, ids) in effects.deleted {
      // A dependent the pulled page deletes itself needs no delete of this replica's.
      let own = ids.filter { records[SyncMergeState.Key(model: model, id: $0)]?.isLive != false }
      if !own.isEmpty { changes[model, default: .init()].deleted = own }
    }
    for (model, ids) in effects.updated { changes[model, default: .init()].updated = ids }
    guard !changes.isEmpty else { return }
    try recordSave(
      ChangeSet(token: HistoryToken(rawValue: 0), date: Date(), changes: changes),
      container: container, db: db)
  }

  private static func storedName(ofTable table: String, _ container: ModelContainer) -> String? {
    container.schemas.values.first { $0.tableName == table }?.storedName
  }
}
