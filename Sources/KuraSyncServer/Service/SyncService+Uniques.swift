import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CLibPQ)
  import Foundation

  /// The server's arbitration of unique attributes, inside the push transaction (which holds
  /// the space's lock, so claims are decided in commit order).
  ///
  /// Per space it keeps each id's incarnation (and whether it is deleted, or refused: set
  /// aside on its device), the merged value and stamp of each unique property, and the claims:
  /// which id holds each value of each unique attribute. A save first releases the values its
  /// ids no longer hold (a changed value, a delete), then claims the new ones; the first save
  /// to commit a claim wins, and a later one loses it (`SyncUniqueConflict`).
  extension SyncService {
    package static let uniqueSchemaSQL = """
      CREATE TABLE IF NOT EXISTS kura_sync_unique_records (
        space text COLLATE "C" NOT NULL, model text COLLATE "C" NOT NULL,
        id text COLLATE "C" NOT NULL, incarnation bigint NOT NULL, deleted text,
        refused smallint NOT NULL DEFAULT 0,
        PRIMARY KEY (space, model, id));
      CREATE TABLE IF NOT EXISTS kura_sync_unique_registers (
        space text COLLATE "C" NOT NULL, model text COLLATE "C" NOT NULL,
        id text COLLATE "C" NOT NULL, property text COLLATE "C" NOT NULL,
        value text NOT NULL, stamp text COLLATE "C" NOT NULL,
        PRIMARY KEY (space, model, id, property));
      CREATE TABLE IF NOT EXISTS kura_sync_unique_claims (
        space text COLLATE "C" NOT NULL, model text COLLATE "C" NOT NULL,
        constraint_name text COLLATE "C" NOT NULL, value text COLLATE "C" NOT NULL,
        id text COLLATE "C" NOT NULL,
        PRIMARY KEY (space, model, constraint_name, value));
      CREATE INDEX IF NOT EXISTS kura_sync_unique_claims_by_id
        ON kura_sync_unique_claims (space, model, id);
      CREATE TABLE IF NOT EXISTS kura_sync_outcomes (
        space text COLLATE "C" NOT NULL, replica text COLLATE "C" NOT NULL,
        sequence bigint NOT NULL, original text NOT NULL, conflicts text NOT NULL,
        PRIMARY KEY (space, replica, sequence));
      """ + denySchemaSQL

    /// One id of a save under arbitration.
    private struct Arbitrated {
      var key: SyncMergeState.Key
      var before: SyncRecordState
      var after: SyncRecordState
      var refused: Bool
      var refusedBefore: Bool
    }

    /// Decides the save's unique values: returns the changes to log (the save's, less those
    /// that lost) and what lost.
    package func arbitrateUniques(
      _ save: SyncSave, space: String, _ connection: PostgresConnection
    ) throws -> (published: [SyncChange], conflicts: [SyncUniqueConflict]) {
      var constraints: [String: [SyncUniqueConstraint]] = [:]
      for constraint in save.unique ?? [] where !constraint.properties.isEmpty {
        constraints[constraint.model, default: []].append(constraint)
      }
      guard !constraints.isEmpty else { return (save.changes, []) }
      let uniqueProperties = constraints.mapValues { Set($0.flatMap(\.properties)) }
      // Each id of a model with unique attributes: its state before and after the save.
      var ids: [SyncMergeState.Key: Arbitrated] = [:]
      var order: [SyncMergeState.Key] = []
      for change in save.changes {
        guard let properties = uniqueProperties[change.model] else { continue }
        let key = SyncMergeState.Key(model: change.model, id: change.id)
        if ids[key] == nil {
          let (state, refused) = try uniqueRecord(key, space: space, connection)
          ids[key] = Arbitrated(
            key: key, before: state, after: state, refused: refused, refusedBefore: refused)
          order.append(key)
        }
        guard var entry = ids[key] else { continue }
        if change.incarnation > entry.after.incarnation {
          entry.after = SyncRecordState(incarnation: change.incarnation)
          entry.refused = false
        }
        if !entry.refused, change.deleted || properties.contains(change.property ?? "") {
          entry.after.apply(change)
        }
        ids[key] = entry
      }
      // Release what the ids no longer hold, then claim what they now hold.
      var wanted: [(SyncMergeState.Key, SyncUniqueConstraint, [DatabaseValue])] = []
      for key in order {
        guard let entry = ids[key] else { continue }
        for constraint in constraints[key.model] ?? [] {
          let old = try heldClaim(key, constraint, space: space, connection)
          let new = entry.refused ? nil : Self.values(of: constraint, in: entry.after)
          if old != nil, old != new?.claimKey {
            try connection.run(
              "DELETE FROM kura_sync_unique_claims WHERE space = ? AND model = ? "
                + "AND constraint_name = ? AND id = ?",
              [.text(space), .text(key.model), .text(constraint.name), .text(key.id)])
          }
          if let new, old != new.claimKey { wanted.append((key, constraint, new)) }
        }
      }
      var conflicts: [SyncUniqueConflict] = []
      var droppedIDs: Set<SyncMergeState.Key> = []
      var newlyRefused: Set<SyncMergeState.Key> = []
      var droppedProperties: [SyncMergeState.Key: Set<String>] = [:]
      for (key, constraint, values) in wanted {
        guard var entry = ids[key], !entry.refused else { continue }
        try connection.run(
          "INSERT INTO kura_sync_unique_claims (space, model, constraint_name, value, id) "
            + "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
          [
            .text(space), .text(key.model), .text(constraint.name), .text(values.claimKey),
            .text(key.id),
          ])
        guard connection.changes == 0 else { continue }
        let holder =
          try connection.queryFirst(
            "SELECT id FROM kura_sync_unique_claims WHERE space = ? AND model = ? "
              + "AND constraint_name = ? AND value = ?",
            [.text(space), .text(key.model), .text(constraint.name), .text(values.claimKey)]
          ) { $0.string(at: 0) } ?? ""
        var conflict = SyncUniqueConflict(
          sequence: save.sequence, model: key.model, id: key.id,
          incarnation: entry.after.incarnation, properties: constraint.properties,
          values: values, existingID: holder, restored: nil)
        let kept = constraint.properties.compactMap { entry.before.properties[$0] }
        if entry.before.isLive, entry.before.incarnation == entry.after.incarnation,
          kept.count == constraint.properties.count
        {
          // Accepted before with other values: those stay, and the save's new ones are dropped.
          var restored: [SyncChange] = []
          for property in constraint.properties {
            guard let register = entry.before.properties[property] else { continue }
            entry.after.properties[property] = register
            restored.append(
              .set(
                key.model, id: key.id, incarnation: entry.after.incarnation,
                property: property, to: register.value, stamp: register.stamp))
          }
          conflict.restored = restored
          droppedProperties[key, default: []].formUnion(constraint.properties)
          let previous = Self.values(of: constraint, in: entry.before)?.claimKey ?? ""
          try connection.run(
            "INSERT INTO kura_sync_unique_claims (space, model, constraint_name, value, id) "
              + "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [
              .text(space), .text(key.model), .text(constraint.name), .text(previous),
              .text(key.id),
            ])
        } else {
          // Never accepted: the whole incarnation is refused, and gives up what it claimed.
          entry.refused = true
          droppedIDs.insert(key)
          newlyRefused.insert(key)
          try connection.run(
            "DELETE FROM kura_sync_unique_claims WHERE space = ? AND model = ? AND id = ?",
            [.text(space), .text(key.model), .text(key.id)])
        }
        ids[key] = entry
        conflicts.append(conflict)
      }
      // A later save of an id refused before: refused again, without a second claim.
      for key in order {
        guard let entry = ids[key], entry.refusedBefore, entry.refused,
          !droppedIDs.contains(key), let constraint = constraints[key.model]?.first
        else { continue }
        droppedIDs.insert(key)
        conflicts.append(
          SyncUniqueConflict(
            sequence: save.sequence, model: key.model, id: key.id,
            incarnation: entry.after.incarnation, properties: constraint.properties,
            values: [], existingID: "", restored: nil))
      }
      for key in order {
        guard let entry = ids[key] else { continue }
        try storeUniqueRecord(entry.after, refused: entry.refused, key, space: space, connection)
      }
      var published = save.changes.filter { change in
        let key = SyncMergeState.Key(model: change.model, id: change.id)
        if droppedIDs.contains(key) { return false }
        guard let properties = droppedProperties[key] else { return true }
        return change.deleted || !properties.contains(change.property ?? "")
      }
      published += Self.tombstones(of: newlyRefused, in: save)
      return (published, conflicts)
    }

    /// A delete of each id refused by this save, in place of its changes: to the other
    /// replicas the set-aside model is gone, so a model referring to it (which the server
    /// accepted, knowing no references) is settled by its delete rule there instead of waiting
    /// for it forever. Stamped with the id's latest stamp in the save.
    private static func tombstones(of refused: Set<SyncMergeState.Key>, in save: SyncSave)
      -> [SyncChange]
    {
      var latest: [SyncMergeState.Key: (incarnation: Int64, stamp: SyncStamp)] = [:]
      for change in save.changes {
        let key = SyncMergeState.Key(model: change.model, id: change.id)
        guard refused.contains(key) else { continue }
        if let found = latest[key],
          (found.incarnation, found.stamp) >= (change.incarnation, change.stamp)
        {
          continue
        }
        latest[key] = (change.incarnation, change.stamp)
      }
      return latest.sorted { $0.key < $1.key }.map { key, last in
        .delete(key.model, id: key.id, incarnation: last.incarnation, stamp: last.stamp)
      }
    }

    /// The constraint's values in a state, when the id is live and holds all of them non-null.
    private static func values(of constraint: SyncUniqueConstraint, in state: SyncRecordState)
      -> [DatabaseValue]?
    {
      guard state.isLive else { return nil }
      var values: [DatabaseValue] = []
      for property in constraint.properties {
        guard let value = state.properties[property]?.value, value != .null else { return nil }
        values.append(value)
      }
      return values
    }

    private func heldClaim(
      _ key: SyncMergeState.Key, _ constraint: SyncUniqueConstraint, space: String,
      _ connection: PostgresConnection
    ) throws -> String? {
      try connection.queryFirst(
        "SELECT value FROM kura_sync_unique_claims WHERE space = ? AND model = ? "
          + "AND constraint_name = ? AND id = ?",
        [.text(space), .text(key.model), .text(constraint.name), .text(key.id)]
      ) { $0.string(at: 0) }
    }

    private func uniqueRecord(
      _ key: SyncMergeState.Key, space: String, _ connection: PostgresConnection
    ) throws -> (SyncRecordState, refused: Bool) {
      var state = SyncRecordState()
      var refused = false
      if let row = try connection.queryFirst(
        "SELECT incarnation, deleted, refused FROM kura_sync_unique_records "
          + "WHERE space = ? AND model = ? AND id = ?",
        [.text(space), .text(key.model), .text(key.id)],
        row: { ($0.int64(at: 0), $0.isNull(at: 1) ? nil : $0.string(at: 1), $0.int64(at: 2) != 0) })
      {
        state.incarnation = row.0
        state.deleted = row.1.flatMap(SyncStamp.init(text:))
        refused = row.2
      }
      let decoder = JSONDecoder()
      let registers = try connection.query(
        "SELECT property, value, stamp FROM kura_sync_unique_registers "
          + "WHERE space = ? AND model = ? AND id = ?",
        [.text(space), .text(key.model), .text(key.id)]
      ) { ($0.string(at: 0), $0.string(at: 1), $0.string(at: 2)) }
      for (property, valueText, stampText) in registers {
        guard let stamp = SyncStamp(text: stampText),
          let value = try? decoder.decode(DatabaseValue.self, from: Data(valueText.utf8))
        else { continue }
        state.properties[property] = .init(value: value, stamp: stamp)
      }
      return (state, refused)
    }

    private func storeUniqueRecord(
      _ state: SyncRecordState, refused: Bool, _ key: SyncMergeState.Key, space: String,
      _ connection: PostgresConnection
    ) throws {
      try connection.run(
        "INSERT INTO kura_sync_unique_records (space, model, id, incarnation, deleted, refused) "
          + "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (space, model, id) DO UPDATE SET "
          + "incarnation = excluded.incarnation, deleted = excluded.deleted, "
          + "refused = excluded.refused",
        [
          .text(space), .text(key.model), .text(key.id), .integer(state.incarnation),
          state.deleted.map { .text($0.text) } ?? .null, .integer(refused ? 1 : 0),
        ])
      try connection.run(
        "DELETE FROM kura_sync_unique_registers WHERE space = ? AND model = ? AND id = ?",
        [.text(space), .text(key.model), .text(key.id)])
      guard !refused else { return }
      let encoder = JSONEncoder()
      for (property, register) in state.properties.sorted(by: { $0.key < $1.key }) {
        try connection.run(
          "INSERT INTO kura_sync_unique_registers (space, model, id, property, value, stamp) "
            + "VALUES (?, ?, ?, ?, ?, ?)",
          [
            .text(space), .text(key.model), .text(key.id), .text(property),
            .text(String(decoding: try encoder.encode(register.value), as: UTF8.self)),
            .text(register.stamp.text),
          ])
      }
    }

    /// Keeps what a save's original changes were and what they lost, for a save that lost a
    /// unique value or was withdrawn (its log entry, if any, holds what was published), so a
    /// resend is recognised and answered the same.
    package func recordOutcome(
      _ save: SyncSave, _ changes: String, _ conflicts: [SyncUniqueConflict], replica: String,
      space: String, _ connection: PostgresConnection
    ) throws {
      guard !conflicts.isEmpty || save.changes.isEmpty else { return }
      let encoder = JSONEncoder()
      encoder.outputFormatting = .sortedKeys
      try connection.run(
        "INSERT INTO kura_sync_outcomes (space, replica, sequence, original, conflicts) "
          + "VALUES (?, ?, ?, ?, ?)",
        [
          .text(space), .text(replica), .integer(save.sequence), .text(changes),
          .text(String(decoding: try encoder.encode(conflicts), as: UTF8.self)),
        ])
    }

    /// A save applied before: its changes as pushed (`nil` when unknown) and what it lost.
    package func storedSave(
      _ sequence: Int64, replica: String, space: String, _ connection: PostgresConnection
    ) throws -> (changes: String?, conflicts: [SyncUniqueConflict]) {
      let arguments: [DatabaseValue] = [.text(space), .text(replica), .integer(sequence)]
      if let outcome = try connection.queryFirst(
        "SELECT original, conflicts FROM kura_sync_outcomes "
          + "WHERE space = ? AND replica = ? AND sequence = ?", arguments,
        row: { ($0.string(at: 0), $0.string(at: 1)) })
      {
        let conflicts = try JSONDecoder().decode(
          [SyncUniqueConflict].self, from: Data(outcome.1.utf8))
        return (outcome.0, conflicts)
      }
      let logged = try connection.queryFirst(
        "SELECT changes FROM kura_sync_log WHERE space = ? AND replica = ? AND sequence = ?",
        arguments
      ) { $0.string(at: 0) }
      return (logged, [])
    }
  }
#endif
