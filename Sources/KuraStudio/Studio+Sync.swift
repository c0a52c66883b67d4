import Foundation
import Kura
import KuraPostgreSQL
import KuraSyncCore
import KuraSyncServer

// Sync, read-only: on a synced store, its sync state, pending outbox, conflicts, rejections and
// quarantine (the `kura_sync_*` tables the sync client keeps beside the models); on a sync
// server (`kura studio --sync-server`), its spaces, replicas, heads and compaction state.

extension Studio {
  struct SyncAnswer: Encodable {
    struct Table: Encodable {
      var count: Int
      var columns: [String]
      var rows: [[String?]]
    }
    var synced: Bool
    var state: [String: String]
    var outbox: Table?
    var conflicts: Table?
    var rejections: Table?
    var quarantine: Table?
    var parked: Int?
  }

  /// The most rows of each sync table the page lists.
  static let syncRowLimit = 100

  /// `GET /api/sync`: the store's sync tables, or `synced: false`.
  func syncStatus() throws -> StudioResponse {
    let inspector = try inspector()
    guard try inspector.tableExists("kura_sync_outbox") else {
      return .json(SyncAnswer(synced: false, state: [:]))
    }
    let connection = inspector.connection
    func table(_ name: String, _ columns: [String], order: String) throws -> SyncAnswer.Table? {
      guard try inspector.tableExists(name) else { return nil }
      let count =
        try connection.queryFirst("SELECT count(*) FROM \(name)") { $0.int64(at: 0) } ?? 0
      let rows = try connection.query(
        "SELECT \(columns.joined(separator: ", ")) FROM \(name) ORDER BY \(order) LIMIT "
          + "\(Self.syncRowLimit)"
      ) { row in
        columns.indices.map { index -> String? in
          let value = row.value(at: index)
          if columns[index] == "changes", let shown = Self.shownChanges(value) { return shown }
          switch value {
          case .null: return nil
          case .text(let text): return text.count > 2_000 ? String(text.prefix(2_000)) + "…" : text
          case .integer(let number): return String(number)
          case .real(let number):
            // Dates of these tables are seconds since 1970.
            return columns[index] == "date"
              ? StudioCell.iso(number - Date.timeIntervalBetween1970AndReferenceDate)
              : String(number)
          case .blob(let data): return "\(data.count) bytes"
          }
        }
      }
      return SyncAnswer.Table(count: Int(count), columns: columns, rows: rows)
    }
    var state: [String: String] = [:]
    if try inspector.tableExists("kura_sync_state") {
      let pairs = try connection.query("SELECT key, value FROM kura_sync_state") {
        ($0.string(at: 0), $0.string(at: 1))
      }
      for (key, value) in pairs {
        // Long values (the schema the replica admitted, model lists) are cut.
        state[key] = value.count > 300 ? String(value.prefix(300)) + "…" : value
      }
    }
    let parked =
      try inspector.tableExists("kura_sync_parked")
      ? Int(
        try connection.queryFirst("SELECT count(*) FROM kura_sync_parked") { $0.int64(at: 0) } ?? 0)
      : nil
    // Saves are recorded for sync from the history when sync next sends (KuraSync's
    // SyncLocalStore+SyncOffEdits.swift): those after the recorded token wait too, listed after
    // the outbox with what the history says of them (their values are read when recorded).
    var outbox = try table("kura_sync_outbox", ["sequence", "changes"], order: "sequence")
    if let recorded = state[Self.recordedTokenKey].flatMap({ Int64($0) }) {
      let waiting = try ChangeHistory.changeSets(
        since: HistoryToken(rawValue: recorded), below: try ChangeHistory.horizon(connection),
        in: connection)
      if !waiting.isEmpty, var listed = outbox {
        listed.count += waiting.count
        let room = max(0, Self.syncRowLimit - listed.rows.count)
        listed.rows += waiting.prefix(room).map { [nil, Self.shownHistorySave($0)] }
        outbox = listed
      }
    }
    return .json(
      SyncAnswer(
        synced: true, state: state,
        outbox: outbox,
        conflicts: try table(
          "kura_sync_conflicts",
          ["number", "kind", "model", "id", "property", "lost", "winner", "date"],
          order: "number DESC"),
        rejections: try table(
          "kura_sync_rejections", ["sequence", "code", "status", "reason", "changes", "date"],
          order: "sequence DESC"),
        quarantine: try table(
          "kura_sync_quarantine",
          ["number", "model", "id", "property", "replica", "waiting", "reason", "value", "date"],
          order: "number DESC"),
        parked: parked))
  }

  /// The `kura_sync_state` key of the last history token sync recorded (KuraSync's
  /// `SyncLocalStore.recordedTokenKey`).
  static let recordedTokenKey = "syncOffChecked"

  /// A save the history holds and sync has not recorded yet, as a person reads it: `Trip 2:
  /// saved; Trip 3 deleted (recorded when sync next sends)`.
  static func shownHistorySave(_ save: ChangeSet) -> String {
    var parts: [String] = []
    for (model, changes) in save.changes.sorted(by: { $0.key < $1.key }) {
      for id in changes.inserted + changes.updated { parts.append("\(model) \(id): saved") }
      for id in changes.deleted { parts.append("\(model) \(id): deleted") }
    }
    let text = parts.joined(separator: "; ") + " (recorded when sync next sends)"
    return text.count > 2_000 ? String(text.prefix(2_000)) + "…" : text
  }

  /// A save's changes as a person reads them: `Trip 2: name = "Nara", budget = 10; Trip 3
  /// deleted` (the compact form saves write, or the JSON of earlier versions).
  static func shownChanges(_ value: DatabaseValue) -> String? {
    let changes: [SyncChange]?
    switch value {
    case .blob(let data): changes = data.withUnsafeBytes { SyncChange.changes(compact: $0) }
    case .text(let text): changes = try? SyncJSONReader.decodeChanges(Data(text.utf8))
    default: changes = nil
    }
    guard let changes else { return nil }
    var parts: [(String, [String])] = []
    for change in changes {
      let row = "\(change.model) \(change.id)"
      let what: String
      if change.deleted {
        what = "deleted"
      } else if let property = change.property {
        let shown: String
        switch change.value ?? .null {
        case .null: shown = "nil"
        case .integer(let number): shown = String(number)
        case .real(let number): shown = String(number)
        case .text(let text): shown = "\"" + (text.count > 80 ? text.prefix(80) + "…" : text) + "\""
        case .blob(let data): shown = "\(data.count) bytes"
        }
        what = "\(property) = \(shown)"
      } else {
        what = "inserted"
      }
      if let index = parts.firstIndex(where: { $0.0 == row }) {
        parts[index].1.append(what)
      } else {
        parts.append((row, [what]))
      }
    }
    let text = parts.map { "\($0.0): " + $0.1.joined(separator: ", ") }.joined(separator: "; ")
    return text.count > 2_000 ? String(text.prefix(2_000)) + "…" : text
  }
}

/// A sync server's database, for `kura studio --sync-server`: its name and what reads it.
package struct SyncServerSource: Sendable {
  /// How the page names it (never a password).
  package var name: String
  /// Reads its spaces and replicas.
  package var read: @Sendable () throws -> SyncServerOverview

  #if canImport(CLibPQ)
    /// The sync server's database at `location`, read on read-only transactions.
    package init(_ location: PostgresLocation) {
      name = location.description
      read = { try SyncServerOverview.read(location) }
    }
  #endif
}
