import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// The sync bookkeeping inside a replica's SQLite store, written in the same transactions as
/// the models: the replica's id and clock, each id's incarnation with each of its synced
/// properties' value and stamp (the registers, one row per id), the outbox of unacknowledged saves, the pull cursor, and
/// the conflicts this replica lost.
///
/// Two entry points: ``recordSave(_:container:db:)`` runs inside every save of a container
/// with sync on (stamping what changed and adding an outbox entry), and
/// ``applyPulled(_:head:container:db:)`` merges pulled saves and writes the winners into the
/// model tables, with a history entry, so live queries and the change feed see them.
package enum SyncLocalStore {
  /// The sync tables. The ones every save writes are `WITHOUT ROWID` (a row in its primary
  /// key's B-tree only, not in a table and an index: fewer pages for each save to write); a
  /// store whose tables an earlier version made keeps them as they are, and works the same.
  package static let schemaSQL = """
    CREATE TABLE IF NOT EXISTS kura_sync_state (key TEXT PRIMARY KEY, value TEXT NOT NULL)
      WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS kura_sync_records (
      model TEXT NOT NULL, id TEXT NOT NULL, incarnation INTEGER NOT NULL, deleted TEXT,
      registers BLOB, PRIMARY KEY (model, id)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS kura_sync_outbox (sequence INTEGER PRIMARY KEY, changes TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS kura_sync_conflicts (
      number INTEGER PRIMARY KEY, model TEXT NOT NULL, id TEXT NOT NULL, property TEXT,
      lost TEXT, winner TEXT NOT NULL, date REAL NOT NULL, kind TEXT, existing TEXT, kept TEXT);
    CREATE TABLE IF NOT EXISTS kura_sync_parked (
      model TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (model, id));
    CREATE TABLE IF NOT EXISTS kura_sync_rejections (
      sequence INTEGER PRIMARY KEY, changes TEXT NOT NULL, code TEXT NOT NULL,
      status INTEGER NOT NULL, reason TEXT NOT NULL, date REAL NOT NULL);
    """ + SyncRebase.schemaSQL + SyncQuarantine.schemaSQL

  // MARK: State

  package static func state(_ key: String, _ db: StoreConnection) throws -> String? {
    try db.queryFirst("SELECT value FROM kura_sync_state WHERE key = ?", [.text(key)]) {
      $0.string(at: 0)
    }
  }

  package static func setState(_ key: String, _ value: String, _ db: StoreConnection) throws {
    try db.run(
      "INSERT INTO kura_sync_state (key, value) VALUES (?, ?) "
        + "ON CONFLICT (key) DO UPDATE SET value = excluded.value", [.text(key), .text(value)])
  }

  /// The replica's id, made (and kept) the first time.
  package static func replica(_ db: StoreConnection) throws -> UUID {
    if let text = try state("replica", db), let replica = SyncStamp.uuid(hex: text) {
      return replica
    }
    let replica = UUID()
    try setState("replica", SyncStamp.hex(replica), db)
    return replica
  }

  /// The replica's clock, continuing from its persisted high-water mark.
  package static func clock(_ db: StoreConnection, wallClock: @escaping @Sendable () -> UInt64)
    throws -> HybridLogicalClock
  {
    let replica = try replica(db)
    let latest = try state("clock", db).flatMap(SyncStamp.init(text:))
    return HybridLogicalClock(
      replica: replica, latest: latest.map { ($0.wall, $0.counter) } ?? (0, 0),
      wallClock: wallClock)
  }

  package static func saveClock(_ clock: HybridLogicalClock, _ db: StoreConnection) throws {
    let stamp = SyncStamp(
      wall: clock.latest.wall, counter: clock.latest.counter, replica: clock.replica)
    try setState("clock", stamp.text, db)
  }

  /// What the replica knows of one id.
  package static func record(_ key: SyncMergeState.Key, _ db: StoreConnection) throws
    -> SyncRecordState
  {
    var record = SyncRecordState()
    guard
      let row = try db.queryFirst(
        "SELECT incarnation, deleted, registers FROM kura_sync_records WHERE model = ? AND id = ?",
        [.text(key.model), .text(key.id)],
        row: { ($0.int64(at: 0), $0.value(at: 1), $0.isNull(at: 2) ? nil : $0.data(at: 2)) })
    else { return record }
    record.incarnation = row.0
    if case .text(let text) = row.1 { record.deleted = SyncStamp(text: text) }
    for (property, register) in try SyncRecordState.registers(
      stored: row.2, model: key.model, id: key.id)
    {
      record.properties[property] = register
    }
    return record
  }

  /// Made once: a connection's statement cache finds a text it has seen by its storage, and
  /// one concatenated at each call was hashed at each call (a pull stores a record per row).
  private static let storeRecordSQL =
    "INSERT INTO kura_sync_records (model, id, incarnation, deleted, registers) "
    + "VALUES (?, ?, ?, ?, ?) ON CONFLICT (model, id) DO UPDATE SET "
    + "incarnation = excluded.incarnation, deleted = excluded.deleted, "
    + "registers = excluded.registers"

  package static func storeRecord(
    _ record: SyncRecordState, _ key: SyncMergeState.Key, _ db: StoreConnection
  ) throws {
    let registers = record.properties.sorted { $0.key < $1.key }.map {
      (property: $0.key, register: $0.value)
    }
    try db.run(
      storeRecordSQL,
      [
        .text(key.model), .text(key.id), .integer(record.incarnation),
        record.deleted.map { .text($0.text) } ?? .null,
        registers.isEmpty ? .null : .blob(Data(SyncRecordState.compactRegisters(registers))),
      ])
  }

  // MARK: Local saves (recordSave: SyncLocalStore+Record.swift)

  /// The stored key of the id text the history writes (the inverse of `idText`).
  package static func keyValue(_ id: String, kind: ColumnKind) -> DatabaseValue? {
    switch kind {
    case .integer, .bool: return Int64(id).map { .integer($0) }
    case .real, .date: return Double(id).map { .real($0) }
    case .blob: return Data(base64Encoded: id).map { .blob($0) }
    default: return .text(id)
    }
  }

  // MARK: Outbox

  /// The oldest unacknowledged saves, at most `limit`.
  package static func outbox(limit: Int, _ db: StoreConnection) throws -> [SyncSave] {
    let rows = try db.query(
      "SELECT sequence, changes FROM kura_sync_outbox ORDER BY sequence LIMIT ?",
      [.integer(Int64(limit))]
    ) { ($0.int64(at: 0), $0.value(at: 1)) }
    return try rows.map { row in
      // The compact form saves write (a BLOB), or the JSON earlier versions wrote (a TEXT).
      let changes: [SyncChange]?
      switch row.1 {
      case .blob(let data): changes = data.withUnsafeBytes { SyncChange.changes(compact: $0) }
      case .text(let text): changes = try? SyncJSONReader.decodeChanges(text)
      default: changes = nil
      }
      guard let changes else {
        throw SyncError(
          .damagedOutbox,
          message:
            "Can't send save \(row.0) of the sync outbox: it is damaged (not the changes Kura "
            + "wrote). Nothing was sent; the save stays in the outbox. Restore the store from a "
            + "backup, or report it.")
      }
      return SyncSave(sequence: row.0, changes: changes)
    }
  }

  /// The saves waiting to be sent: the outbox's, and the history's not recorded yet (see
  /// ``recordLocalSaves(container:db:)``; each becomes at most one outbox entry).
  package static func pendingCount(_ db: StoreConnection) throws -> Int {
    try outboxCount(db) + unrecordedSaveCount(db)
  }

  /// The saves in the outbox table.
  package static func outboxCount(_ db: StoreConnection) throws -> Int {
    Int(try db.queryFirst("SELECT count(*) FROM kura_sync_outbox") { $0.int64(at: 0) } ?? 0)
  }

  /// Drops the saves the server acknowledged from the outbox; `latest` is the highest stamp
  /// among them.
  package static func acknowledge(
    through sequence: Int64, latest: SyncStamp?, _ db: StoreConnection
  )
    throws
  {
    try db.run("DELETE FROM kura_sync_outbox WHERE sequence <= ?", [.integer(sequence)])
    if let latest {
      try setState("acknowledgedStamp", latest.text, db)
      try SyncRebase.forgetCreated(through: latest, db)
    }
  }

  // MARK: Pulled saves

  /// Merges pulled saves into the registers and writes the winners into the model tables (with
  /// a history entry), then moves the cursor past them; inside one write transaction, so a
  /// reader sees all of a page or none of it.
  ///
  /// - Returns: The change set recorded in the history (empty when nothing visible changed).
  @discardableResult
  package static func applyPulled(
    _ saves: [SyncLoggedSave], container: ModelContainer, db: StoreConnection
  ) throws -> ChangeSet.ModelChangesByModel {
    // Local saves not recorded yet are, first: the merge compares pulled values with theirs.
    try recordLocalSaves(container: container, db: db)
    var clock = try clock(db, wallClock: HybridLogicalClock.systemWallClock)
    var records: [SyncMergeState.Key: SyncRecordState] = [:]
    var order: [SyncMergeState.Key] = []
    var conflicts: [(SyncChange, SyncRecordState.Register)] = []
    // A local value the server had not acknowledged yet, beaten by a pulled one: a conflict
    // this replica lost (one it had acknowledged was seen by others: a later edit, not one).
    let acknowledged =
      try state("acknowledgedStamp", db).flatMap(SyncStamp.init(text:))
      ?? SyncStamp(wall: 0, counter: 0, replica: clock.replica)
    // Each change is admitted against this app's schema first: one that doesn't fit goes to
    // the quarantine, and the rest of the page applies (SyncAdmission, SyncQuarantine).
    var admission = SyncAdmission(container: container)
    var held = try SyncQuarantine.Held(db)
    for save in saves {
      for change in save.changes {
        if let reason = admission.refusal(of: change) {
          let sender = save.replica.isEmpty ? SyncStamp.hex(change.stamp.replica) : save.replica
          try SyncQuarantine.refuse(change, sender: sender, reason: reason, db)
          held.refused.insert(SyncMergeState.Key(model: change.model, id: change.id))
          continue
        }
        clock.receive(change.stamp)
        let key = SyncMergeState.Key(model: change.model, id: change.id)
        if records[key] == nil {
          records[key] = try record(key, db)
          order.append(key)
        }
        guard var record = records[key] else { continue }
        let before = record
        let changed = record.apply(change)
        if changed, let property = change.property,
          let lost = before.properties[property], lost.stamp.replica == clock.replica,
          lost.stamp > acknowledged, before.incarnation == record.incarnation
        {
          conflicts.append((change, lost))
        }
        if changed, held.refused.contains(key) {
          try SyncQuarantine.supersede(
            key, property: change.deleted ? nil : change.property, db)
        }
        records[key] = record
      }
    }
    // Models parked by an earlier pull (a reference to a model not known yet), tried again.
    let parked = Set(try parked(db))
    for key in parked.sorted() where records[key] == nil {
      records[key] = try record(key, db)
      order.append(key)
    }
    var effects = RuleEffects()
    var changes: ChangeSet.ModelChangesByModel = [:]
    // A pulled model holding a unique value a local row holds: tried after the page's other
    // rows first, which may move the local row off the value, then parked (see below).
    var queue = ArraySlice(order)
    var tried: Set<SyncMergeState.Key> = []
    var pulledRowSQL: [String: PulledRowSQL] = [:]
    while let key = queue.popFirst() {
      guard let record = records[key] else { continue }
      try storeRecord(record, key, db)
      guard let schema = container.schemas.values.first(where: { $0.storedName == key.model }),
        let id = keyValue(key.id, kind: schema.primaryKey.kind)
      else { continue }  // a model this app doesn't have: kept in the registers only
      var sql = pulledRowSQL[key.model] ?? PulledRowSQL(schema)
      defer { pulledRowSQL[key.model] = sql }
      let existed = try db.queryFirst(schema.existsByIDSQL, [id]) { _ in true } ?? false
      if parked.contains(key) { try setParked(key, false, db) }
      if !record.isLive {
        if held.waiting.contains(key) { try SyncQuarantine.release(key, db) }
        guard existed else { continue }
        try applyDeleteRules(
          deleting: id, of: schema, container: container, db: db, effects: &effects)
        try db.run(schema.deleteByIDSQL, [id])
        changes[key.model, default: .init()].deleted.append(key.id)
        continue
      }
      // Only the columns the table has (a newer app's properties stay in the registers).
      // A new row gets the defaults of what an older app version's row has no value of.
      // A new row lacking a property that is neither optional nor defaulted waits in the
      // quarantine until a later change sets it.
      let (defaults, missing) =
        existed
        ? ([:], [])
        : SyncVersions.defaults(schema, missingFrom: record, container: container)
      if !missing.isEmpty {
        try SyncQuarantine.hold(
          key, record: record,
          reasons: missing.map { ($0, SyncVersions.missingReason(schema, id: key.id, $0)) }, db)
        continue
      }
      if held.waiting.contains(key) { try SyncQuarantine.release(key, db) }
      let columns = sql.columnNames.filter {
        record.properties[$0] != nil || defaults[$0] != nil
      }
      guard !columns.isEmpty else { continue }
      if !schema.uniqueConstraints.isEmpty {
        let colliding = try collidingRows(schema, id: id, record: record, db)
        if !colliding.isEmpty, tried.insert(key).inserted, queue.count > 0 {
          queue.append(key)
          continue
        }
        if !colliding.isEmpty {
          // The local row is removed only when the server says it refused it (settle, in a
          // push's answer), never on a pull's word: the server may have accepted it. The pulled
          // model waits parked, in its registers, and is tried again then.
          try setParked(key, true, db)
          continue
        }
      }
      var cleared: [String] = []
      switch try checkReferences(
        schema, record: record, records: records, container: container, db: db)
      {
      case .write: break
      case .nullifying(let columns):
        cleared = columns
        effects.updated[key.model, default: []].append(key.id)
      case .park:
        try setParked(key, true, db)
        continue
      case .delete(let deny, let target):
        if deny, existed {
          try addConflict(
            kind: "targetDeleted", model: key.model, id: key.id, properties: [], lost: [],
            existingID: target, kept: record.properties.mapValues(\.value), db)
        }
        if existed {
          try applyDeleteRules(
            deleting: id, of: schema, container: container, db: db, effects: &effects)
          try db.run(schema.deleteByIDSQL, [id])
          changes[key.model, default: .init()].deleted.append(key.id)
        }
        effects.deleted[key.model, default: []].append(key.id)
        continue
      }
      do {
        try db.run(
          sql.upsert(columns),
          [id]
            + columns.compactMap {
              cleared.contains($0)
                ? .null : record.properties[$0]?.value ?? defaults[$0]
            })
      } catch let error where EngineFailure(of: error) == .constraintViolation {
        // A row its table refuses (a check the admission doesn't know): the statement wrote
        // nothing; the model waits, as one missing a property does.
        try SyncQuarantine.hold(
          key, record: record,
          reasons: [(nil, SyncVersions.refusedReason(schema, id: key.id, error))], db)
        continue
      }
      if existed {
        changes[key.model, default: .init()].updated.append(key.id)
      } else {
        changes[key.model, default: .init()].inserted.append(key.id)
      }
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let now = Date().timeIntervalSince1970
    for (winner, lost) in conflicts {
      try db.run(
        "INSERT INTO kura_sync_conflicts (model, id, property, lost, winner, date) "
          + "VALUES (?, ?, ?, ?, ?, ?)",
        [
          .text(winner.model), .text(winner.id), winner.property.map { .text($0) } ?? .null,
          .text(String(decoding: try encoder.encode(lost.value), as: UTF8.self)),
          .text(winner.stamp.text), .real(now),
        ])
    }
    try saveClock(clock, db)
    try recordRuleEffects(effects, records: records, container: container, db: db)
    for (model, ids) in effects.deleted {
      let shown = Set(changes[model]?.deleted ?? [])
      changes[model, default: .init()].deleted += ids.filter { !shown.contains($0) }
    }
    for (model, ids) in effects.updated {
      let shown = Set((changes[model]?.updated ?? []) + (changes[model]?.inserted ?? []))
      changes[model, default: .init()].updated += ids.filter { !shown.contains($0) }
    }
    if let last = saves.last { try setState("cursor", String(last.position), db) }
    try recordHistory(changes, container: container, db: db)
    return changes
  }

  /// The position of the last pulled save.
  package static func cursor(_ db: StoreConnection) throws -> Int64 {
    return Int64(try state("cursor", db) ?? "0") ?? 0
  }
}

extension ChangeSet {
  /// Changes by model name, as the history records them.
  package typealias ModelChangesByModel = [String: ModelChanges]
}

/// The upserts a pull writes a model's rows with, made once per model and set of columns in a
/// pull (the existence check and the delete are the schema's own texts): a connection's
/// statement cache finds a text it has seen by its storage, and texts made again for every row
/// were built and hashed for every row.
package struct PulledRowSQL {
  /// The table's columns but the id, in the schema's order.
  package let columnNames: [String]
  private let table: String
  private let primaryKey: String
  private var upserts: [[String]: String] = [:]

  package init(_ schema: ModelSchema) {
    table = schema.quotedTable
    primaryKey = quoteIdentifier(schema.primaryKey.name)
    columnNames = schema.columnNames.filter { $0 != schema.primaryKey.name }
  }

  /// The insert of a row with these columns (after the id), or the update of the columns of
  /// the row with its id.
  package mutating func upsert(_ columns: [String]) -> String {
    if let known = upserts[columns] { return known }
    let quoted = columns.map(quoteIdentifier)
    let text =
      "INSERT INTO \(table) (\(primaryKey), \(quoted.joined(separator: ", "))) VALUES (?"
      + String(repeating: ", ?", count: columns.count)
      + ") ON CONFLICT (\(primaryKey)) DO UPDATE SET "
      + quoted.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    upserts[columns] = text
    return text
  }
}
