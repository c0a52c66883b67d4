import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CLibPQ)
  import Foundation

  /// The server's enforcement of `.deny` delete rules, inside the push transaction (which holds
  /// the space's lock, so pushes are decided in commit order).
  ///
  /// Each push names the `.deny` references of the models its saves change
  /// (`SyncDenyReference`); the server keeps, per space, which live model refers to which
  /// target through one (`kura_sync_deny_refs`). A save that deletes a model some live model
  /// still refers to that way — other than one the save deletes or points elsewhere itself —
  /// is denied its deletes: none of them is published (the others were the delete's cascades,
  /// made with it), its other changes are, and the answer lists each deleted id as a
  /// `SyncUniqueConflict` of kind `denied` with the server's values of it, so its device
  /// restores it and lists the save in its rejections. A referring model that arrives after the
  /// delete was accepted can't undo it: the replicas settle it by the rule
  /// (SyncLocalStore+DeleteRules.swift).
  extension SyncService {
    package static let denySchemaSQL = """
      CREATE TABLE IF NOT EXISTS kura_sync_deny_refs (
        space text COLLATE "C" NOT NULL, model text COLLATE "C" NOT NULL,
        id text COLLATE "C" NOT NULL, property text COLLATE "C" NOT NULL,
        target_model text COLLATE "C" NOT NULL, target_id text COLLATE "C" NOT NULL,
        PRIMARY KEY (space, model, id, property));
      CREATE INDEX IF NOT EXISTS kura_sync_deny_refs_by_target
        ON kura_sync_deny_refs (space, target_model, target_id)
      """

    /// Decides the save's unique values (SyncService+Uniques.swift), then its `.deny`
    /// references: the changes to log and what lost or was denied.
    package func arbitrate(_ save: SyncSave, space: String, _ connection: PostgresConnection) throws
      -> (published: [SyncChange], conflicts: [SyncUniqueConflict])
    {
      let unique = try arbitrateUniques(save, space: space, connection)
      let denied = try enforceDeny(save, published: unique.published, space: space, connection)
      return (denied.published, unique.conflicts + denied.conflicts)
    }

    private func enforceDeny(
      _ save: SyncSave, published: [SyncChange], space: String, _ connection: PostgresConnection
    ) throws -> (published: [SyncChange], conflicts: [SyncUniqueConflict]) {
      var properties: [String: [String: String]] = [:]  // model → deny property → target
      for reference in save.deny ?? [] {
        properties[reference.model, default: [:]][reference.property] = reference.target
      }
      let deletes = published.filter(\.deleted)
      let deleted = Set(deletes.map { SyncMergeState.Key(model: $0.model, id: $0.id) })
      // Where the save points each deny property it sets (nil: nowhere).
      var pointers: [String: String?] = [:]
      for change in published where !change.deleted {
        guard let property = change.property, let target = properties[change.model]?[property]
        else { continue }
        let value = change.value ?? .null
        pointers["\(change.model)\u{0}\(change.id)\u{0}\(property)"] =
          value == .null ? nil : "\(target)\u{0}\(idText(value))"
      }
      var referrers: [SyncMergeState.Key: (model: String, id: String)] = [:]
      for change in deletes {
        let rows = try connection.query(
          "SELECT model, id, property FROM kura_sync_deny_refs WHERE space = ? "
            + "AND target_model = ? AND target_id = ? ORDER BY model, id, property",
          [.text(space), .text(change.model), .text(change.id)]
        ) { ($0.string(at: 0), $0.string(at: 1), $0.string(at: 2)) }
        let target = "\(change.model)\u{0}\(change.id)"
        let holding = rows.first { model, id, property in
          guard !deleted.contains(SyncMergeState.Key(model: model, id: id)) else { return false }
          guard let pointer = pointers["\(model)\u{0}\(id)\u{0}\(property)"] else { return true }
          return pointer == target
        }
        if let holding {
          referrers[SyncMergeState.Key(model: change.model, id: change.id)] = (
            holding.0, holding.1
          )
        }
      }
      let denied = !referrers.isEmpty
      let kept = denied ? published.filter { !$0.deleted } : published
      for change in kept {
        if change.deleted {
          try connection.run(
            "DELETE FROM kura_sync_deny_refs WHERE space = ? AND model = ? AND id = ?",
            [.text(space), .text(change.model), .text(change.id)])
          continue
        }
        guard let property = change.property, properties[change.model]?[property] != nil
        else { continue }
        let pointer = pointers["\(change.model)\u{0}\(change.id)\u{0}\(property)"] ?? nil
        let parts = pointer?.split(separator: "\u{0}", maxSplits: 1).map(String.init) ?? []
        if parts.count == 2 {
          try connection.run(
            "INSERT INTO kura_sync_deny_refs (space, model, id, property, target_model, "
              + "target_id) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (space, model, id, property) "
              + "DO UPDATE SET target_model = excluded.target_model, "
              + "target_id = excluded.target_id",
            [
              .text(space), .text(change.model), .text(change.id), .text(property),
              .text(parts[0]), .text(parts[1]),
            ])
        } else {
          try connection.run(
            "DELETE FROM kura_sync_deny_refs WHERE space = ? AND model = ? AND id = ? "
              + "AND property = ?",
            [.text(space), .text(change.model), .text(change.id), .text(property)])
        }
      }
      guard denied else { return (published, []) }
      var conflicts: [SyncUniqueConflict] = []
      for change in deletes {
        let key = SyncMergeState.Key(model: change.model, id: change.id)
        let state = try serverState(key, space: space, connection)
        let restored = state.properties.sorted { $0.key < $1.key }.map { property, register in
          SyncChange.set(
            key.model, id: key.id, incarnation: state.incarnation, property: property,
            to: register.value, stamp: register.stamp)
        }
        var conflict = SyncUniqueConflict(
          sequence: save.sequence, model: key.model, id: key.id,
          incarnation: change.incarnation, properties: [], values: [],
          existingID: referrers[key]?.id ?? "", restored: restored)
        conflict.kind = "denied"
        conflict.referrer = referrers[key]?.model
        conflicts.append(conflict)
      }
      return (kept, conflicts)
    }

    /// The merged state of one id as the server holds it: the folded state, then every logged
    /// save after it that names the id (a deny is rare; the log is read for the id's text).
    private func serverState(
      _ key: SyncMergeState.Key, space: String, _ connection: PostgresConnection
    ) throws -> SyncRecordState {
      var state = try foldedState(space: space, key, connection)
      // The id as the log's JSON spells it (a `/` is escaped, for one).
      let spelled = String(decoding: try JSONEncoder().encode(key.id), as: UTF8.self)
      let logged = try connection.query(
        "SELECT l.changes FROM kura_sync_log l JOIN kura_sync_spaces s ON s.space = l.space "
          + "WHERE l.space = ? AND l.position > s.compacted AND strpos(l.changes, ?) > 0 "
          + "ORDER BY l.position",
        [.text(space), .text(spelled)]
      ) { $0.string(at: 0) }
      for text in logged {
        for change in try SyncJSONReader.decodeChanges(text)
        where change.model == key.model && change.id == key.id {
          _ = state.apply(change)
        }
      }
      return state
    }
  }
#endif
