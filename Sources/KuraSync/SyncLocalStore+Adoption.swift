import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// Rows saved before sync was turned on for a store: a sync engine starting on the store stamps
/// them (at that moment) and adds them to the outbox, once — a row that has a sync record (saved
/// with sync on, pulled, or adopted before) is never sent again this way.
extension SyncLocalStore {
  /// The most rows one adopted save carries.
  package static let adoptionBatch = 500

  /// Stamps and enqueues every stored row that has no sync record, models that others refer to
  /// first (so a pulled child never arrives before its parent's save).
  ///
  /// Edits made with sync off to rows that were synced before are not found this way (their
  /// records exist): SyncLocalStore+SyncOffEdits.swift finds them.
  ///
  /// - Returns: How many rows were added to the outbox.
  @discardableResult
  package static func uploadRowsSavedBeforeSync(container: ModelContainer, db: StoreConnection)
    throws
    -> Int
  {
    var total = 0
    for schema in referencedFirst(container) {
      let model = schema.storedName
      let primaryKey = quoteIdentifier(schema.primaryKey.name)
      let keys = try db.query("SELECT \(primaryKey) FROM \(schema.quotedTable)") {
        idText($0.value(at: 0))
      }
      guard !keys.isEmpty else { continue }
      let known = Set(
        try db.query("SELECT id FROM kura_sync_records WHERE model = ?", [.text(model)]) {
          $0.string(at: 0)
        })
      let missing = keys.filter { !known.contains($0) }
      for start in stride(from: 0, to: missing.count, by: adoptionBatch) {
        var changes = ChangeSet.ModelChanges()
        changes.inserted = Array(missing[start..<min(start + adoptionBatch, missing.count)])
        try recordSave(
          ChangeSet(token: HistoryToken(rawValue: 0), date: Date(), changes: [model: changes]),
          container: container, db: db)
      }
      total += missing.count
    }
    return total
  }

  /// The container's models, each after the models it refers to (by name where there is no
  /// order, and a cycle broken at its first model by name).
  private static func referencedFirst(_ container: ModelContainer) -> [ModelSchema] {
    let schemas = container.schemas.values.sorted { $0.storedName < $1.storedName }
    var targets: [String: Set<String>] = [:]
    for (target, references) in container.graph.referencesByTarget {
      for reference in references where reference.table != target {
        targets[reference.table, default: []].insert(target)
      }
    }
    var placed: Set<String> = []
    var visiting: Set<String> = []
    var ordered: [ModelSchema] = []
    func place(_ schema: ModelSchema) {
      guard !placed.contains(schema.tableName), visiting.insert(schema.tableName).inserted
      else { return }
      for target in (targets[schema.tableName] ?? []).sorted() {
        if let referenced = schemas.first(where: { $0.tableName == target }) { place(referenced) }
      }
      placed.insert(schema.tableName)
      ordered.append(schema)
    }
    for schema in schemas { place(schema) }
    return ordered
  }
}
