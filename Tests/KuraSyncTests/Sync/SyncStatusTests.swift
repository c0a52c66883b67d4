#if canImport(CLibPQ)
  import Foundation
  import Observation
  import Synchronization
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraSync

  import KuraSyncCore

  import KuraSyncServer

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  /// `SyncEngine.status` as Observation (and SwiftUI) sees it, and what it says when the server
  /// refuses a token.
  @Suite("Sync status")
  struct SyncStatusTests {
    /// Counts the changes `withObservationTracking` reports for `sync.status`, tracking again
    /// after each one (as SwiftUI does).
    private final class StatusObserver: Sendable {
      let changes = Mutex(0)
      let sync: SyncEngine

      init(_ sync: SyncEngine) {
        self.sync = sync
        track()
      }

      private func track() {
        withObservationTracking {
          _ = sync.status
        } onChange: { [weak self] in
          self?.changes.withLock { $0 += 1 }
          // onChange runs before the change is stored: track again once it is.
          Task { self?.track() }
        }
      }
    }

    @Test func observationSeesAPendingSaveAndTheExchangeThatSendsIt() async throws {
      let world = try SyncWorld()
      let (a, sync) = try world.replica("a")
      defer { sync.stop() }
      try await sync.syncNow()
      let observer = StatusObserver(sync)
      let seen = observer.changes.withLock { $0 }
      let context = ModelContext(a)
      try context.insert(SyncTrip(id: UUID(), name: "Kyoto", budget: 1, rating: 1))
      try context.save()
      try await sync.syncNow()
      // Syncing, then idle with a new last success: at least one change reported.
      #expect(observer.changes.withLock { $0 } > seen)
      let status = sync.status
      #expect(status.phase == .idle)
      #expect(status.pending == 0)
      #expect(status.failure == nil)
      #expect(try world.loggedSaves() == 1)
    }

    /// A token revoked (its line removed from the tokens file) gets 401: the status is failing
    /// with an `unauthorized` failure, the save stays in the outbox and nothing reaches the
    /// server; the line put back, the save is sent.
    @Test func aRevokedTokenFailsUnauthorizedAndKeepsTheOutbox() async throws {
      let world = try SyncWorld()
      let (a, sync) = try world.replica("a")
      defer { sync.stop() }
      try await sync.syncNow()
      try world.writeTokens([world.work])
      let context = ModelContext(a)
      try context.insert(SyncTrip(id: UUID(), name: "Kyoto", budget: 1, rating: 1))
      try context.save()
      do {
        try await sync.syncNow()
        Issue.record("synced with a revoked token")
      } catch let error as SyncError {
        #expect(error.code == .unauthorized)
        #expect(error.status == 401)
      }
      let status = sync.status
      guard case .failing(let reason) = status.phase else {
        Issue.record("status \(status.phase)")
        return
      }
      #expect(reason.contains("not known to this server (or was revoked)"))
      #expect(status.failure?.code == .unauthorized)
      #expect(status.pending == 1)
      #expect(try world.loggedSaves() == 0)
      try world.writeTokens([world.family, world.work])
      try await sync.syncNow()
      #expect(sync.status.pending == 0)
      #expect(sync.status.failure == nil)
      #expect(try world.loggedSaves() == 1)
    }

    /// A save in the outbox corrupted by hand in the SQLite file is not sent (nor anything after
    /// it: the server takes a replica's saves in order); the status is failing with a reason
    /// naming the save, and both saves stay pending.
    @Test func aDamagedOutboxRowIsReportedAndNotSent() async throws {
      let world = try SyncWorld()
      let (a, sync) = try world.replica("a")
      defer { sync.stop() }
      let context = ModelContext(a)
      try context.insert(SyncTrip(id: UUID(), name: "Kyoto", budget: 1, rating: 1))
      try context.save()
      try context.insert(SyncTrip(id: UUID(), name: "Nara", budget: 2, rating: 2))
      try context.save()
      // Recorded in the outbox (as a push records them first), then the first one damaged.
      try a.pool.write { _ = try SyncLocalStore.recordLocalSaves(container: a, db: $0) }
      try Connection(path: world.directory.file("a.store").path).execute(
        #"UPDATE kura_sync_outbox SET changes = '[{"model": 7' WHERE sequence = 1"#)
      do {
        try await sync.syncNow()
        Issue.record("a damaged outbox was sent")
      } catch let error as SyncError {
        #expect(error.code == .damagedOutbox)
      }
      let status = sync.status
      guard case .failing(let reason) = status.phase else {
        Issue.record("status \(status.phase)")
        return
      }
      #expect(reason.contains("Can't send save 1 of the sync outbox: it is damaged"))
      #expect(status.failure?.code == .damagedOutbox)
      #expect(status.pending == 2)
      #expect(try world.loggedSaves() == 0)
    }
  }
#endif
