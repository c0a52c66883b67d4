import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// Pushing the outbox: saves in sequence order with their models' unique attributes, the
/// server's answer taken in (acknowledged saves dropped, lost unique values settled), and a save
/// the server refuses for good set aside so it never blocks the saves behind it.
extension SyncEngine {
  /// The most saves one push carries.
  package static let pushBatch = 200

  /// Pushes the whole outbox.
  ///
  /// A refusal that retrying can't change (HTTP 400, or 413 for a save too large to send) of a
  /// push of several saves is narrowed down by pushing the oldest alone; that save, refused on
  /// its own, moves to the rejections list (``rejections()``) and its place in the outbox is
  /// taken by an empty save of the same number, so the server's sequence has no gap. Anything
  /// else (offline, 5xx, 401/403, a clock ahead) throws and leaves the outbox as it is.
  package func pushOutbox() async throws {
    var batch = Self.pushBatch
    let container = self.container
    // The local saves the history holds are recorded (stamped, in the outbox) first.
    if try container.pool.read({ try SyncLocalStore.hasUnrecordedSaves($0) }) {
      try container.pool.write {
        _ = try SyncLocalStore.recordLocalSaves(container: container, db: $0)
      }
    }
    while true {
      let saves = try container.pool.read { try SyncLocalStore.outbox(limit: batch, $0) }
      guard let first = saves.first else { return }
      let replica = try container.pool.read { try SyncLocalStore.replica($0) }
      let pushed = saves.map { save in
        var save = save
        let unique = SyncLocalStore.uniqueConstraints(for: save.changes, container: container)
        save.unique = unique.isEmpty ? nil : unique
        let deny = SyncLocalStore.denyReferences(for: save.changes, container: container)
        save.deny = deny.isEmpty ? nil : deny
        return save
      }
      let body = try JSONEncoder().encode(
        SyncPushRequest(
          replica: SyncStamp.hex(replica), saves: pushed,
          schema: SyncModelDeclaration.declarations(of: container)))
      let data: Data
      do {
        data = try await send("POST", path: "push", body: body)
      } catch let error as SyncError where error.isRefusalOfTheChanges {
        if saves.count > 1 {
          batch = 1
          continue
        }
        guard !first.changes.isEmpty else { throw error }
        try container.pool.write { db in try SyncLocalStore.reject(first, error, db) }
        batch = Self.pushBatch
        continue
      }
      guard let answer = try? JSONDecoder().decode(SyncPushResponse.self, from: data) else {
        throw SyncError.notAnAnswer(to: "push", from: settings.server)
      }
      let latest = saves.filter { $0.sequence <= answer.acknowledged }
        .flatMap(\.changes).map(\.stamp).max()
      let (changes, pending) = try container.pool.write { db in
        // Saves made since are recorded before the answer changes rows (settle).
        try SyncLocalStore.recordLocalSaves(container: container, db: db)
        try SyncLocalStore.acknowledge(through: answer.acknowledged, latest: latest, db)
        var changes = try SyncLocalStore.settle(
          answer.conflicts ?? [], container: container, db: db)
        try SyncLocalStore.recordHistory(changes, container: container, db: db)
        if !changes.isEmpty {
          // Pulled models parked behind a local row the server refused now take its place.
          changes.merge(
            try SyncLocalStore.applyPulled([], container: container, db: db),
            uniquingKeysWith: { first, _ in first })
        }
        return (changes, try SyncLocalStore.pendingCount(db))
      }
      if !changes.isEmpty { container.hub.didSave() }
      update { $0.pending = pending }
      batch = Self.pushBatch
    }
  }
}

extension SyncError {
  /// Whether the server refused the pushed changes themselves, for a reason sending them again
  /// can't change (a malformed or oversized save), as opposed to the token, the clock, the
  /// sequence, the app's declared models (`schemaConflict`: every save would be refused until
  /// the app is fixed, so none is set aside) or the server's health.
  package var isRefusalOfTheChanges: Bool {
    code == .rejected && (status == 400 || status == 413) && serverCode != "schemaConflict"
  }
}

extension SyncEngine {
  /// The saves in the outbox now (`nil` when the store can't be read).
  package func outboxCount() -> Int? {
    try? container.pool.read { try SyncLocalStore.pendingCount($0) }
  }
}
