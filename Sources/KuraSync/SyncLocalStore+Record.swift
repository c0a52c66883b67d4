import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// Recording a local save with sync on: runs inside every save of such a container (through
/// ``SaveParticipant``), so it is written for its cost — each statement from the connection's
/// cache, the replica, clock and outbox number read in one query and written back in one, an
/// id's record and all of its registers read in one lookup and written (only when something
/// changed) in one row (``SyncRecordState/compactRegisters(_:)``; a register holding a higher
/// stamp than the save keeps its value, as the merge rule says), and the outbox entry in its
/// compact form (``SyncChange/compactEncoding(of:)``).
extension SyncLocalStore {
  /// The statements of the save-recording path.
  private enum RecordSQL {
    // Two lookups in one step (an `IN` list would build a temporary index each time).
    static let head =
      "SELECT (SELECT value FROM kura_sync_state WHERE key = 'clock'), "
      + "(SELECT value FROM kura_sync_state WHERE key = 'nextSequence')"
    static let record =
      "SELECT incarnation, deleted, registers FROM kura_sync_records WHERE model = ? AND id = ?"
    static let storeRecord =
      "INSERT INTO kura_sync_records (model, id, incarnation, deleted, registers) "
      + "VALUES (?, ?, ?, ?, ?) ON CONFLICT (model, id) DO UPDATE SET "
      + "incarnation = excluded.incarnation, deleted = excluded.deleted, "
      + "registers = excluded.registers"
    static let outbox = "INSERT INTO kura_sync_outbox (sequence, changes) VALUES (?, ?)"
    static let setClock =
      "INSERT INTO kura_sync_state (key, value) VALUES ('clock', ?) "
      + "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
    static let setClockAndSequence =
      "INSERT INTO kura_sync_state (key, value) VALUES ('clock', ?), ('nextSequence', ?) "
      + "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
  }

  /// Stamps what a save changed and adds it to the outbox, inside the save's transaction.
  ///
  /// Each saved row is compared with the registers: only properties whose value differs get the
  /// save's stamp (an unchanged save adds nothing); a deleted id gets a tombstone; inserting an
  /// id whose last state is deleted starts its next incarnation. Models, ids and properties go
  /// into the outbox in order (by name, by id text, by property name).
  ///
  /// `date` is when the save was made (a save recorded from the history, later: its stamp's wall
  /// time is the history row's, or the clock's latest when that is later); `nil`: now.
  package static func recordSave(
    _ changeSet: ChangeSet, container: ModelContainer, db: StoreConnection, at date: Date? = nil
  )
    throws
  {
    guard !changeSet.isEmpty else { return }
    var (clock, sequence) = try recordingHead(db, at: date)
    let stamp = clock.now()
    var changes: [SyncChange] = []
    let byModel = changeSet.changes
    for model in byModel.count == 1 ? Array(byModel.keys) : byModel.keys.sorted() {
      guard let modelChanges = byModel[model],
        let schema = container.schemas.values.first(where: { $0.storedName == model })
      else { continue }
      var written = modelChanges.inserted + modelChanges.updated
      if written.count > 1 { written.sort() }
      var previous: String?
      for id in written where id != previous {
        previous = id
        try recordWrite(
          of: id, model: model, schema: schema, stamp: stamp, changes: &changes, db)
      }
      var deleted = modelChanges.deleted
      if deleted.count > 1 { deleted.sort() }
      previous = nil
      for id in deleted where id != previous {
        previous = id
        try recordDelete(
          of: id, model: model, stamp: stamp, changes: &changes, db)
      }
    }
    let clockText = SyncStamp(
      wall: clock.latest.wall, counter: clock.latest.counter, replica: clock.replica
    ).text
    guard !changes.isEmpty else {
      let setClock = try db.cachedStatementToRebind(RecordSQL.setClock)
      try setClock.bind(clockText, at: 1)
      try setClock.execute()
      return
    }
    let outbox = try db.cachedStatementToRebind(RecordSQL.outbox)
    try outbox.bind(sequence, at: 1)
    try outbox.bind(Data(SyncChange.compactEncoding(of: changes)), at: 2)
    try outbox.execute()
    let setState = try db.cachedStatementToRebind(RecordSQL.setClockAndSequence)
    try setState.bind(clockText, at: 1)
    try setState.bind(String(sequence + 1), at: 2)
    try setState.execute()
  }

  /// The replica's clock and the number of the next outbox entry, in one query (the replica is
  /// the clock's; a replica that never saved reads it).
  private static func recordingHead(_ db: StoreConnection, at date: Date?) throws -> (
    HybridLogicalClock, Int64
  ) {
    let wallClock: @Sendable () -> UInt64
    if let date {
      let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1_000))
      wallClock = { milliseconds }
    } else {
      wallClock = Self.wallClock
    }
    let head = try db.cachedStatement(RecordSQL.head)
    defer { head.rewind() }
    guard try head.step() else { return (try clock(db, wallClock: wallClock), 1) }
    let latest = head.isNull(at: 0) ? nil : SyncStamp(text: head.string(at: 0))
    let sequence = head.isNull(at: 1) ? 1 : Int64(head.string(at: 1)) ?? 1
    let clock = HybridLogicalClock(
      replica: try latest?.replica ?? replica(db),
      latest: latest.map { ($0.wall, $0.counter) } ?? (0, 0), wallClock: wallClock)
    return (clock, sequence)
  }

  /// The wall clock of local saves' stamps.
  private static let wallClock = HybridLogicalClock.systemWallClock

  /// The incarnation, delete stamp text and registers `kura_sync_records` holds for an id
  /// (incarnation 0, `nil` and none when it holds none).
  private static func recordRow(_ model: String, _ id: String, _ db: StoreConnection) throws
    -> (incarnation: Int64, deleted: String?, registers: Data?)
  {
    let statement = try db.cachedStatementToRebind(RecordSQL.record)
    defer { statement.rewind() }
    try statement.bind(model, at: 1)
    try statement.bind(id, at: 2)
    guard try statement.step() else { return (0, nil, nil) }
    return (
      statement.int64(at: 0), statement.isNull(at: 1) ? nil : statement.string(at: 1),
      statement.isNull(at: 2) ? nil : statement.data(at: 2)
    )
  }

  /// Stamps the properties of an inserted or updated row that differ from its registers.
  private static func recordWrite(
    of id: String, model: String, schema: ModelSchema, stamp: SyncStamp,
    changes: inout [SyncChange], _ db: StoreConnection
  ) throws {
    guard let key = keyValue(id, kind: schema.primaryKey.kind) else { return }
    // The schema's own text of the statement (the cache finds it by pointer), its columns in
    // the schema's order.
    let select = try db.cachedStatementToRebind(schema.selectByIDSQL)
    try select.bind(key, at: 1)
    guard try select.step() else {
      select.rewind()
      return
    }
    var values: [(property: String, value: DatabaseValue)] = []
    values.reserveCapacity(schema.columnNames.count)
    for (index, column) in schema.columnNames.enumerated() where index != schema.primaryKeyIndex {
      values.append((column, select.value(at: index)))
    }
    select.rewind()
    values.sort { $0.property < $1.property }
    let row = try recordRow(model, id, db)
    let live = row.incarnation > 0 && row.deleted == nil
    // Saturating: a pull admits no incarnation near the top (SyncAdmission), but a store an
    // earlier version filled may hold one, and re-creating the id must not trap.
    let incarnation = live || row.incarnation == .max ? row.incarnation : row.incarnation + 1
    // A deleted incarnation keeps no registers: a new one starts from none.
    var registers =
      live ? try SyncRecordState.registers(stored: row.registers, model: model, id: id) : []
    if !live {
      try SyncRebase.noteCreated(model, id: id, incarnation: incarnation, stamp: stamp, db)
    }
    var changed = !live
    var added = false
    for (property, value) in values {
      if let index = registers.firstIndex(where: { $0.property == property }) {
        if registers[index].register.value == value { continue }
        // A register stamped later than this save (only a clock that was not kept could have
        // issued it) keeps its value; the save still lists the change.
        if stamp > registers[index].register.stamp {
          registers[index].register = .init(value: value, stamp: stamp)
        }
      } else {
        registers.append((property, .init(value: value, stamp: stamp)))
        added = true
      }
      changed = true
      changes.append(
        .set(model, id: id, incarnation: incarnation, property: property, to: value, stamp: stamp))
    }
    guard changed else { return }
    if added, live { registers.sort { $0.property < $1.property } }
    try writeRecord(
      model, id, incarnation: incarnation, deleted: nil,
      registers: SyncRecordState.compactRegisters(registers), db)
  }

  /// Adds the tombstone of a deleted id (none when it is deleted already, or was never
  /// recorded: made and deleted between two recordings, no one else knows it).
  private static func recordDelete(
    of id: String, model: String, stamp: SyncStamp, changes: inout [SyncChange],
    _ db: StoreConnection
  ) throws {
    let row = try recordRow(model, id, db)
    guard row.deleted == nil, row.incarnation > 0 else { return }
    let incarnation = max(row.incarnation, 1)
    try writeRecord(model, id, incarnation: incarnation, deleted: stamp.text, registers: nil, db)
    changes.append(.delete(model, id: id, incarnation: incarnation, stamp: stamp))
  }

  /// Writes an id's record: its incarnation, its delete's stamp text (`nil`: live) and its
  /// registers' compact form (`nil`: none).
  private static func writeRecord(
    _ model: String, _ id: String, incarnation: Int64, deleted: String?, registers: [UInt8]?,
    _ db: StoreConnection
  ) throws {
    let store = try db.cachedStatementToRebind(RecordSQL.storeRecord)
    try store.bind(model, at: 1)
    try store.bind(id, at: 2)
    try store.bind(incarnation, at: 3)
    if let deleted { try store.bind(deleted, at: 4) } else { try store.bindNull(at: 4) }
    if let registers { try store.bind(Data(registers), at: 5) } else { try store.bindNull(at: 5) }
    try store.execute()
  }
}
