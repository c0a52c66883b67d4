import Dispatch
import Foundation
import Kura
import KuraPostgreSQL
import KuraSyncCore
import KuraSyncServer
import Synchronization

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
    /// The database, for `LISTEN` on the channel the sync service notifies at each push.
    package var location: PostgresLocation?

    /// The sync server's database at `location`, read on read-only transactions.
    package init(_ location: PostgresLocation) {
      name = location.description
      read = { try SyncServerOverview.read(location) }
      self.location = location
    }
  #endif
}

extension Studio {
  /// How often a sync server's page is read again without a notice: a replica's pull or a
  /// compaction changes what it shows without notifying.
  static let syncServerInterval: Duration = .seconds(2)

  /// `GET /api/sync-server-events`: a `server` event with what `GET /api/sync-server`
  /// answers, at once and each time it changed — read again at each push the sync service
  /// announces (`LISTEN` on its channel: at once) and every ``syncServerInterval`` for the
  /// changes no notice announces.
  func syncServerEvents() -> StudioResponse {
    guard let syncServer else {
      return .error(404, "This studio shows a store, not a sync server (--sync-server).")
    }
    return .eventStream { send in
      let watcher = SyncServerWatcher(source: syncServer, send: send)
      let thread = Thread { watcher.run() }
      thread.name = "kura.studio.sync-server-events"
      thread.start()
      return { watcher.stop() }
    }
  }
}

/// Reads a sync server's overview for one stream of `server` events, on a thread of its own,
/// until the client goes.
final class SyncServerWatcher: Sendable {
  private let source: SyncServerSource
  private let send: @Sendable (String, String) -> Bool
  private let stopped = Atomic(false)
  /// Ends a wait without a listener early (at the stop).
  private let wake = DispatchSemaphore(value: 0)
  #if canImport(CLibPQ)
    private let listener = Mutex<PostgresListener?>(nil)
  #endif

  init(source: SyncServerSource, send: @escaping @Sendable (String, String) -> Bool) {
    self.source = source
    self.send = send
  }

  /// Stops the reading (from any thread).
  func stop() {
    stopped.store(true, ordering: .releasing)
    wake.signal()
    #if canImport(CLibPQ)
      listener.withLock { $0?.wakeUp() }
    #endif
  }

  private var isStopped: Bool { stopped.load(ordering: .acquiring) }

  /// Reads, sends what changed, and waits for a notice or the interval; until stopped or the
  /// client is gone.
  func run() {
    #if canImport(CLibPQ)
      // Listening before the first read: a push that commits after it is noticed.
      var listening: PostgresListener?
      if let location = source.location,
        let opened = try? PostgresListener(location: location)
      {
        if (try? opened.listen(SyncChangeSignal.channel)) != nil { listening = opened }
      }
      listener.withLock { $0 = listening }
      defer { listener.withLock { $0 = nil } }
    #endif
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    var sent: (name: String, data: String)?
    while !isStopped {
      let event: (name: String, data: String)
      do {
        let data = try encoder.encode(try source.read())
        event = ("server", String(decoding: data, as: UTF8.self))
      } catch {
        event = (
          "failure",
          "{\"error\":\(Studio.jsonString("Can't read the sync server's database: \(error)"))}"
        )
      }
      if sent.map({ $0 != event }) ?? true {
        guard send(event.name, event.data) else { return }
        sent = event
      }
      guard !isStopped else { return }
      #if canImport(CLibPQ)
        if let listening {
          // A notice, the interval, a reconnection (notices may have been lost: read) or the
          // stop's wake-up all end the wait; a failed reconnection waits out the interval.
          do {
            _ = try listening.wait(timeout: Studio.syncServerInterval)
            continue
          } catch {}
        }
      #endif
      _ = wake.wait(
        timeout: .now() + .milliseconds(Int(Studio.syncServerInterval.components.seconds * 1000)))
    }
  }
}
