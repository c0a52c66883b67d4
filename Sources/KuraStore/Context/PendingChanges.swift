import Foundation
import KuraBase
import KuraSQLite

/// The unsaved changes of one model type in a ``ModelContext``: a log of upserts and deletions,
/// replayed in order on save (so the last change of an id wins, as it would have had each change
/// been saved on its own). An index of each id's last change is built only when a read needs it.
package final class PendingChanges<Model: PersistentModel>: AnyPendingChanges {
  package enum Change {
    case upsert(Model)
    case delete(Model.ID)
  }

  // A context is used by one thread at a time and these are never accessed overlapping: the
  // per-access exclusivity checks are left out of the per-model hot path.
  // The log's order: change `n` is `entries[n]` once the log holds a delete (`entriesListed`);
  // until then (most logs: inserts and updates) change `n` is the upsert of `models[n]` and
  // `entries` stays empty, so a large insert writes and reads no entry per model.
  @exclusivity(unchecked) private var entries: [PendingEntry] = []
  @exclusivity(unchecked) private var entriesListed = false
  @exclusivity(unchecked) private var models = ModelLog<Model>()
  // A log, not an array: an array of the unspecialized `Model.ID` looks its type metadata up
  // for `isEmpty`, `count` and `removeAll` (three times per save).
  @exclusivity(unchecked) private var deletedIDs = ModelLog<Model.ID>()
  @exclusivity(unchecked) private var lastChangeByID: [Model.ID: Int]?
  /// The upsert's SQL, asked of the schema once: a context writes to one store, so one engine
  /// (the schema's lookup by engine takes a lock and a hash, about 280 instructions a save).
  @exclusivity(unchecked) private var upsertSQL: String?

  package var isEmpty: Bool { count == 0 }
  package var count: Int { entriesListed ? entries.count : models.count }

  /// The change at `position` of the log.
  @inline(__always)
  private func entry(at position: Int) -> PendingEntry {
    entriesListed ? entries[position] : .upsert(position)
  }

  /// Logs an upsert of `model`, moved into the log.
  package func upsert(_ model: consuming Model) {
    let position = count
    if entriesListed { entries.append(.upsert(models.count)) }
    lastChangeByID?[model.id] = position
    models.append(model)
  }

  package func delete(_ id: Model.ID) {
    let position = count
    if !entriesListed {
      entries = (0..<models.count).map { .upsert($0) }
      entriesListed = true
    }
    entries.append(.delete(deletedIDs.count))
    deletedIDs.append(id)
    lastChangeByID?[id] = position
  }

  /// Drops every change after a save; the storage of a small log is kept for the next changes
  /// (a large one is released).
  package func clear() {
    if count > 1024 {
      entries = []
      models = ModelLog()
      deletedIDs = ModelLog()
    } else {
      if entriesListed {
        // One by one for a few (`removeAll(keepingCapacity:)` costs more than removing the
        // one or two changes of most saves).
        if entries.count <= 4 {
          while !entries.isEmpty { entries.removeLast() }
        } else {
          entries.removeAll(keepingCapacity: true)
        }
      }
      models.truncate(to: 0)
      deletedIDs.truncate(to: 0)
    }
    entriesListed = false
    if lastChangeByID != nil { lastChangeByID = nil }
  }

  /// Drops the changes after the first `count` (a failed transaction's).
  package func truncate(to count: Int) {
    guard count < self.count else { return }
    lastChangeByID = nil
    guard entriesListed else { return models.truncate(to: count) }
    entries.removeSubrange(count...)
    var modelCount = 0
    var deletedCount = 0
    for entry in entries {
      switch entry {
      case .upsert: modelCount += 1
      case .delete: deletedCount += 1
      }
    }
    models.truncate(to: modelCount)
    deletedIDs.truncate(to: deletedCount)
  }

  private func change(at position: Int) -> Change {
    switch entry(at: position) {
    case .upsert(let index): return .upsert(models[index])
    case .delete(let index): return .delete(deletedIDs[index])
    }
  }

  private var lastChanges: [Model.ID: Int] {
    if let lastChangeByID { return lastChangeByID }
    var index: [Model.ID: Int] = [:]
    index.reserveCapacity(count)
    for position in 0..<count {
      switch entry(at: position) {
      case .upsert(let model): index[models[model].id] = position
      case .delete(let id): index[deletedIDs[id]] = position
      }
    }
    lastChangeByID = index
    return index
  }

  /// The last change of an id, if any.
  package func change(for id: Model.ID) -> Change? { lastChanges[id].map { change(at: $0) } }

  /// Whether an id has a pending change.
  package func contains(_ id: Model.ID) -> Bool { lastChanges[id] != nil }

  /// The models inserted or updated and not deleted since, in the order of their last change.
  package var upsertedModels: [Model] {
    let last = lastChanges
    return (0..<count).compactMap { position in
      guard case .upsert(let index) = entry(at: position), last[models[index].id] == position
      else { return nil }
      return models[index]
    }
  }

  /// The ids whose last change is an upsert and those whose last change is a delete, each in
  /// the order of that last change (what a save inserts or updates, and deletes).
  package var finalChanges: (upserted: [Model.ID], deleted: [Model.ID]) {
    let last = lastChanges
    var upserted: [Model.ID] = []
    var deleted: [Model.ID] = []
    for position in 0..<count {
      switch entry(at: position) {
      case .upsert(let index):
        let id = models[index].id
        if last[id] == position { upserted.append(id) }
      case .delete(let index):
        let id = deletedIDs[index]
        if last[id] == position { deleted.append(id) }
      }
    }
    return (upserted, deleted)
  }

  /// Calls `body` with each logged change, in order.
  package func forEachChange(_ body: (Change) throws -> Void) rethrows {
    for position in 0..<count { try body(change(at: position)) }
  }

  /// Whether the log deletes any id.
  package var hasDeletions: Bool { deletedIDs.count > 0 }

  /// Replays the log on the writer and returns what it changed: each id whose last change is an
  /// upsert as inserted (it was not stored before the save) or updated, and each id whose last
  /// change is a delete and that was stored (`storedDeletions`, read before the save) as deleted.
  /// Whether an id was stored before is what its first change found: the engine's row tracker
  /// (SQLite: the update hook) reports whether an upsert inserted or updated and whether a delete
  /// removed a row.
  package func write(
    to db: StoreConnection, schema: ModelSchema, storedDeletions: Set<DatabaseValue>,
    encoder makeEncoder: (StoreStatement) -> RowEncoder
  ) throws -> ChangeSet.ModelChanges {
    if deletedIDs.count == 0, let minimum = db.bulkUpsertMinimumRows, models.count >= minimum,
      let changes = try bulkUpsert(to: db, schema: schema, encoder: makeEncoder)
    {
      return changes
    }
    // The encoder binds every parameter of each row: the statement keeps its bindings' memory.
    let sql: String
    if let upsertSQL {
      sql = upsertSQL
    } else {
      sql = StoreSQL.upsert(schema, engine: db.engine)
      upsertSQL = sql
    }
    let upsert = try db.cachedStatementToRebind(sql)
    let encoder = makeEncoder(upsert)
    // The tracker reports an integer key itself (SQLite: the rowid an `INTEGER PRIMARY KEY` is).
    let integerKeys = schema.primaryKey.kind == .integer
    // Whether each upsert inserted: kept from the first upsert that did not (every one before it
    // did), so a save of new rows allocates no flags.
    var inserted: [Bool] = []
    var upserts = 0
    var onlyInserts = true
    // While every upsert inserted, with integer keys: the ids (the change set keeps them).
    var insertedIDs: [Int64] = []
    if integerKeys { insertedIDs.reserveCapacity(models.count) }
    var deletedRow: [Bool] = []
    if deletedIDs.count > 0 { deletedRow.reserveCapacity(deletedIDs.count) }
    // An upsert whose unique attribute matched another stored row updated that row, which keeps
    // its id: the change is reported under the stored id (id text of the model → stored id text).
    var storedIDs: [String: String] = [:]
    try db.trackingRowChanges(in: schema.tableName) { tracker in
      for position in 0..<count {
        switch entry(at: position) {
        case .upsert(let index):
          try encoder.bind(at: models.pointer(at: index))
          let before = tracker.count
          try upsert.execute()
          // No report: `DO NOTHING` on a stored row (a model with only an id).
          let didInsert = tracker.count != before && tracker.lastOperation == .insert
          if onlyInserts && !didInsert {
            onlyInserts = false
            inserted = Array(repeating: true, count: upserts)
            insertedIDs = []
          }
          if !onlyInserts {
            inserted.append(didInsert)
          } else if integerKeys {
            insertedIDs.append(tracker.lastIntegerKey)
          }
          upserts += 1
          if !didInsert && tracker.count != before && !schema.uniqueConstraints.isEmpty,
            let key = schema.keyValue(models[index].id)
          {
            let stored = try db.storedKey(ofLastChangeIn: schema, tracker: tracker) ?? key
            if stored != key { storedIDs[idText(key)] = idText(stored) }
          }
        case .delete(let index):
          guard let key = schema.keyValue(deletedIDs[index]) else {
            deletedRow.append(false)
            continue
          }
          let delete = try db.cachedStatement(schema.deleteByIDSQL)
          try delete.bind(key, at: 1)
          let before = tracker.count
          try delete.execute()
          deletedRow.append(tracker.count != before)
        }
      }
    }
    var changes = ChangeSet.ModelChanges()
    if onlyInserts && deletedIDs.count == 0 {
      // Every upsert inserted a new row, so no id repeats: each is a final change.
      changes.insertedIDs =
        integerKeys
        ? .integers(insertedIDs)
        : .texts(models.elements.compactMap { schema.keyValue($0.id).map(idText) })
      return changes
    }
    // Whether each id was stored before the save: what its first change found.
    var storedBefore: [Model.ID: Bool] = [:]
    for position in 0..<count {
      switch entry(at: position) {
      case .upsert(let index):
        let id = models[index].id
        if storedBefore[id] == nil { storedBefore[id] = !(onlyInserts || inserted[index]) }
      case .delete(let index):
        let id = deletedIDs[index]
        if storedBefore[id] == nil {
          // Stored before the delete rules ran, or found by this delete.
          storedBefore[id] =
            deletedRow[index] || (schema.keyValue(id).map { storedDeletions.contains($0) } ?? false)
        }
      }
    }
    let (upserted, deleted) = finalChanges
    for id in upserted {
      guard let key = schema.keyValue(id) else { continue }
      if storedBefore[id] == true {
        changes.updated.append(idText(key))
      } else {
        changes.inserted.append(idText(key))
      }
    }
    for id in deleted where storedBefore[id] == true {
      guard let key = schema.keyValue(id) else { continue }
      changes.deleted.append(idText(key))
    }
    changes.updated = reportedUnderStoredIDs(changes.updated, storedIDs)
    return changes
  }

  /// Writes the last upsert of each pending id in one batch through the engine's bulk path
  /// (``StoreConnection/bulkUpsert(_:rowCount:bindRow:)``), returning what changed; `nil`
  /// (nothing written) when the row-by-row path must run instead.
  private func bulkUpsert(
    to db: StoreConnection, schema: ModelSchema, encoder makeEncoder: (StoreStatement) -> RowEncoder
  ) throws -> ChangeSet.ModelChanges? {
    // Which model each row comes from: each id's last upsert, in the order of its first. Ids
    // are told apart by their stored key (`DatabaseValue`: one concrete dictionary, where one
    // keyed by the unspecialized `Model.ID` looks its type metadata up on every access); the
    // keys are kept for the change set. While the keys are increasing integers (a load of
    // ordered ids) none can repeat, and no dictionary is made until one is not.
    var staged: [Int] = []
    staged.reserveCapacity(models.count)
    var keys: [DatabaseValue] = []
    keys.reserveCapacity(models.count)
    var positions: [DatabaseValue: Int]?
    var previous = Int64.min
    var increasing = true
    var repeated = false
    for index in 0..<models.count {
      guard let key = schema.keyValue(models.pointer(at: index).pointee.id) else {
        // An id the store can't key: the row-by-row path reports what it does with it.
        return nil
      }
      if increasing {
        if case .integer(let integer) = key, integer > previous || index == 0 {
          previous = integer
          staged.append(index)
          keys.append(key)
          continue
        }
        increasing = false
        var built: [DatabaseValue: Int] = [:]
        built.reserveCapacity(models.count)
        for (row, stored) in keys.enumerated() { built[stored] = row }
        positions = built
      }
      if let position = positions?[key] {
        staged[position] = index
        repeated = true
      } else {
        positions?[key] = staged.count
        staged.append(index)
        keys.append(key)
      }
    }
    var encoder: (statement: ObjectIdentifier, encoder: RowEncoder)?
    let outcome = try db.bulkUpsert(schema, rowCount: staged.count) { row, statement in
      let identity = statement.identity
      let rowEncoder: RowEncoder
      if let encoder, encoder.statement == identity {
        rowEncoder = encoder.encoder
      } else {
        rowEncoder = makeEncoder(statement)
        encoder = (identity, rowEncoder)
      }
      try rowEncoder.bind(at: models.pointer(at: staged[row]))
    }
    guard let outcome else { return nil }
    var changes = ChangeSet.ModelChanges()
    // The change set lists ids in the order of their last change, as the row-by-row path: the
    // rows' order (their first change) unless an id changed again later.
    let rows = repeated ? staged.indices.sorted { staged[$0] < staged[$1] } : Array(staged.indices)
    switch outcome {
    case .allInserted:
      changes.inserted = rows.map { idText(keys[$0]) }
    case .inserted(let insertedKeys):
      let inserted = Set(insertedKeys.map(idText))
      for row in rows {
        let text = idText(keys[row])
        if inserted.contains(text) {
          changes.inserted.append(text)
        } else {
          changes.updated.append(text)
        }
      }
    case .eachRow(let results):
      // An upsert whose unique attribute matched another stored row updated that row: the
      // change is reported under the stored id, as on the row-by-row path.
      var storedIDs: [String: String] = [:]
      for row in rows {
        let text = idText(keys[row])
        guard let result = results[row] else {
          changes.updated.append(text)
          continue
        }
        if result.inserted {
          changes.inserted.append(text)
        } else {
          changes.updated.append(text)
          let stored = idText(result.key)
          if stored != text { storedIDs[text] = stored }
        }
      }
      changes.updated = reportedUnderStoredIDs(changes.updated, storedIDs)
    }
    return changes
  }
}

/// `updated` with each id an upsert's unique attribute redirected to another stored row
/// (`storedIDs`: id text of the model → stored id text) reported under the stored id, once.
private func reportedUnderStoredIDs(_ updated: [String], _ storedIDs: [String: String])
  -> [String]
{
  guard !storedIDs.isEmpty else { return updated }
  var seen = Set<String>()
  return updated.map { storedIDs[$0] ?? $0 }.filter { seen.insert($0).inserted }
}

/// The decimal text of an integer, as `String(value)` writes it, without its generic path (a
/// call through `CustomStringConvertible` per id of a save).
package func decimalText(_ value: Int64) -> String {
  withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
    guard let base = buffer.baseAddress else { return "" }
    let length = writeDecimal(value, endingAt: base + 20)
    return String(
      decoding: UnsafeBufferPointer(start: base + 20 - length, count: length), as: UTF8.self)
  }
}

/// The length of `value`'s decimal text: its digits, and a `-` when it is negative.
package func decimalLength(_ value: Int64) -> Int {
  var magnitude = value.magnitude
  var length = value < 0 ? 1 : 0
  // Four digits a step, then the rest by comparison (no division for most ids).
  while magnitude >= 10_000 {
    magnitude /= 10_000
    length += 4
  }
  return length + (magnitude >= 1_000 ? 4 : magnitude >= 100 ? 3 : magnitude >= 10 ? 2 : 1)
}

/// Writes `value`'s decimal text so that it ends just before `end` (at most 20 bytes: 19 digits
/// and a sign), and returns its length.
@discardableResult
package func writeDecimal(_ value: Int64, endingAt end: UnsafeMutablePointer<UInt8>) -> Int {
  var magnitude = value.magnitude
  var at = end
  repeat {
    at -= 1
    at.pointee = UInt8(truncatingIfNeeded: magnitude % 10) &+ UInt8(ascii: "0")
    magnitude /= 10
  } while magnitude > 0
  if value < 0 {
    at -= 1
    at.pointee = UInt8(ascii: "-")
  }
  return end - at
}

/// One logged change of ``PendingChanges``: an index into its upserted models or its deleted ids.
/// (Not nested in the generic class, so that appending one needs no generic metadata.)
package enum PendingEntry {
  case upsert(Int)
  case delete(Int)
}

/// ``PendingChanges`` without its model type, so a context holds those of every type together.
package protocol AnyPendingChanges: AnyObject {
  var isEmpty: Bool { get }
  var count: Int { get }
  var hasDeletions: Bool { get }
  func truncate(to count: Int)
  func clear()
  func write(
    to db: StoreConnection, schema: ModelSchema, storedDeletions: Set<DatabaseValue>,
    encoder makeEncoder: (StoreStatement) -> RowEncoder
  ) throws -> ChangeSet.ModelChanges
}

/// The SQL the context runs, built from a model's schema.
package enum StoreSQL {
  /// The upsert of one row: an insert that updates the stored row with the same id, or (when
  /// the model declares unique attributes) with the same unique values, which keeps its id.
  package static func upsert(_ schema: ModelSchema, engine: any StoreEngine) -> String {
    schema.upsertSQL(for: engine)
  }

  /// Columns of an index or conflict target. String columns compare as the predicate
  /// translation compares strings (Swift's `==` and `<`, ``SQLDialect/swiftStringComparable(_:)``),
  /// so its comparisons use the index.
  package static func indexedColumns(
    _ schema: ModelSchema, _ columns: [Int], dialect: any SQLDialect
  )
    -> String
  {
    indexedColumns(schema.columns, columns, dialect: dialect)
  }

  package static func indexedColumns(
    _ all: [ColumnSchema], _ columns: [Int], dialect: any SQLDialect
  )
    -> String
  {
    columns.map { index in
      let column = all[index]
      let name = quoteIdentifier(column.name)
      guard column.valueType == String.self else { return name }
      return dialect.swiftStringComparable(name) ?? name
    }.joined(separator: ", ")
  }

  package static func select(_ schema: ModelSchema) -> String { schema.selectSQL }

  package static func selectByID(_ schema: ModelSchema) -> String { schema.selectByIDSQL }
}
