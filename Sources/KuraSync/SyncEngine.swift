import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore
import Observation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends a local store's saves to its sync server and brings in the other devices' saves, in
/// the background, while the store keeps working offline.
///
/// Every save of a container whose configuration has ``ModelConfiguration/sync`` settings
/// records its changed properties, stamped, in an outbox — in the save's own transaction. The
/// engine pushes the outbox, pulls what others saved, and applies it through the store, so
/// live queries and the change feed see it like a local save (and it is not sent back). It
/// exchanges after each local save, every ``SyncSettings/pollInterval`` otherwise, and backs
/// off (up to 30 seconds) while the server can't be reached.
///
/// For example:
///
/// ```swift
/// let sync = try SyncEngine(container: container)
/// try context.insert(Trip(name: "Kyoto"))
/// try context.save()
/// try await sync.syncNow()  // the server has the trip
/// print(sync.status.pending)  // 0
/// ```
///
/// The engine is `Observable`: a SwiftUI view (or `withObservationTracking`) that reads
/// ``status`` is updated each time it changes — the phase (idle, syncing, offline,
/// failing with the reason), the pending count and the last successful exchange.
public final class SyncEngine: Observable, Sendable {
  package let container: ModelContainer
  package let settings: SyncSettings
  private let transport: SyncTransport
  private let wake = SyncWakeUp()
  private let shared = Mutex(Shared())
  private let worker = Mutex<Task<Void, Never>?>(nil)
  private let observation = Mutex<ChangeObservation?>(nil)
  private let registrar = ObservationRegistrar()
  private let lastSuccess = SyncLastSuccess()

  private struct Shared {
    var status = SyncStatus(phase: .idle, pending: 0, lastSuccess: nil)
    var waiters: [CheckedContinuation<Void, any Error>] = []
    var watchers: [UUID: AsyncStream<SyncStatus>.Continuation] = [:]
    var stopped = false
  }

  /// Starts syncing a container's store in the background.
  ///
  /// Rows the store holds from before sync was turned on (saved with no sync settings) are
  /// stamped now and added to the outbox, once: a later engine finds them synced.
  ///
  /// For example: `let sync = try SyncEngine(container: container)`.
  ///
  /// - Parameter container: A container of an SQLite store whose configuration has
  ///   ``ModelConfiguration/sync`` settings.
  /// - Throws: ``SyncError`` with ``SyncError/Code/unsupportedStore`` for a container without
  ///   sync settings, of a PostgreSQL or in-memory store, or opened read-only.
  public init(container: ModelContainer) throws {
    guard let settings = container.configuration.sync else {
      throw SyncError(
        .unsupportedStore,
        message:
          "Can't sync this container: its configuration has no sync settings. Set "
          + "`configuration.sync = SyncSettings(server:space:token:)` before opening it.")
    }
    guard container.pool.engine is SQLiteStoreEngine, container.configuration.allowsSave else {
      throw SyncError(
        .unsupportedStore,
        message:
          "Can't sync this container: only a writable SQLite store syncs (a PostgreSQL store "
          + "is shared already). Open an SQLite store file with `allowsSave` true.")
    }
    self.container = container
    self.settings = settings
    transport = SyncTransport(container: container, settings: settings)
    // The bookkeeping tables and the replica id were made when the container opened
    // (SyncSettings.prepare).
    let lastSuccess = self.lastSuccess
    let (pending, last, quarantined) = try container.pool.write { db in
      // Saves made since the last recording first (stamped at their time), then the rows saved
      // before sync was on.
      try SyncLocalStore.recordLocalSaves(container: container, db: db)
      try SyncLocalStore.uploadRowsSavedBeforeSync(container: container, db: db)
      return (
        try SyncLocalStore.pendingCount(db), try lastSuccess.load(db),
        try SyncQuarantine.count(db)
      )
    }
    shared.withLock {
      $0.status.pending = pending
      $0.status.lastSuccess = last
      $0.status.quarantined = quarantined
    }
    try SyncVersions.materializeNewProperties(container: container)
    try SyncQuarantine.readmit(container: container)
    // After the kept values are in the tables: a migration's default is not an edit.
    if try container.pool.write({
      try SyncLocalStore.enqueueEditsMadeWithSyncOff(container: container, db: $0)
    }) {
      shared.withLock { $0.status.pending += 1 }
    }
    let wake = self.wake
    observation.withLock {
      // A save made here (or by another process on this store) is in the outbox, and starts an
      // exchange. The hub also reports the pulled saves the engine itself applied: those leave
      // the outbox as it was, and an exchange they started would be one more pull, answered
      // empty, after every page received.
      $0 = try? container.hub.subscribe(models: nil) { [weak self] _ in
        guard let self, let pending = self.outboxCount() else { return wake.fire() }
        self.update { $0.pending = pending }
        if pending > 0 { wake.fire() }
      }
    }
    // The loop holds the engine only while it exchanges, so an engine no one holds stops.
    worker.withLock {
      $0 = Task.detached { [weak self] in
        var backOff = Duration.milliseconds(250)
        var waiting = SyncPullWaiting()
        while !Task.isCancelled {
          guard let (delay, exchanged) = await self?.exchangeOnce(backOff: &backOff) else {
            return
          }
          // Caught up: wait on the server for others' saves (SyncPullWaiting; it holds no
          // reference to the engine), or poll.
          var next = SyncPullWaiting.Outcome.pollLater
          if exchanged, let transport = self?.transport {
            repeat { next = await waiting.wait(transport, wake: wake) } while next == .caughtUp
          }
          if next == .pollLater { await wake.wait(upTo: delay) }
        }
      }
    }
  }

  deinit { stop() }

  /// Stops syncing (the outbox stays in the store for the next engine); a ``syncNow()`` under
  /// way throws `CancellationError`.
  ///
  /// For example: `sync.stop()`.
  public func stop() {
    observation.withLock {
      $0?.cancel()
      $0 = nil
    }
    let (waiters, watchers) = shared.withLock { shared in
      shared.stopped = true
      defer {
        shared.waiters = []
        shared.watchers = [:]
      }
      return (shared.waiters, shared.watchers)
    }
    for waiter in waiters { waiter.resume(throwing: CancellationError()) }
    for watcher in watchers.values { watcher.finish() }
    // Not `worker.cancel()`: cancelling a task whose URLSession request is finishing deadlocks
    // FoundationNetworking on Linux (the task's status lock against the session's queue, seen
    // in a full test run). The loop sees `stopped` after its exchange (requests time out after
    // 30 seconds) or at once when it is waiting.
    wake.fire()
  }

  /// Stops syncing (``stop()``) and returns once the background loop has ended: an exchange
  /// under way when it was called is over, so the engine reads and sends nothing more.
  ///
  /// For example: `await sync.stopAndWait()` before a test saves on a replica that is away.
  package func stopAndWait() async {
    stop()
    await worker.withLock { $0 }?.value
  }

  /// Where the engine stands now; observable (a view reading it is updated when it changes).
  /// Its ``SyncStatus/pending`` count is read from the outbox at the call, so a save that
  /// returned is counted before any exchange.
  ///
  /// For example: `if sync.status.pending > 0 { showSpinner() }`.
  public var status: SyncStatus {
    registrar.access(self, keyPath: \.status)
    var status = shared.withLock { $0.status }
    status.pending = outboxCount() ?? status.pending
    return status
  }

  /// The status now, then each time it changes (the latest one when several come at once).
  ///
  /// For example:
  ///
  /// ```swift
  /// for await status in sync.statusUpdates() { print(status.phase, status.pending) }
  /// ```
  ///
  /// - Returns: A sequence that ends when the engine stops.
  public func statusUpdates() -> AsyncStream<SyncStatus> {
    let (stream, continuation) = AsyncStream<SyncStatus>.makeStream(
      bufferingPolicy: .bufferingNewest(1))
    let id = UUID()
    var (current, stopped) = shared.withLock { shared in
      if !shared.stopped { shared.watchers[id] = continuation }
      return (shared.status, shared.stopped)
    }
    current.pending = outboxCount() ?? current.pending
    continuation.yield(current)
    if stopped { continuation.finish() }
    continuation.onTermination = { [weak self] _ in
      self?.shared.withLock { _ = $0.watchers.removeValue(forKey: id) }
    }
    return stream
  }

  /// Exchanges with the server now and returns when the server has every local save made
  /// before the call and this store has every save the server had.
  ///
  /// For example:
  ///
  /// ```swift
  /// try context.save()
  /// try await sync.syncNow()
  /// ```
  ///
  /// - Throws: ``SyncError`` when the exchange fails (the saves stay in the outbox and the
  ///   engine tries again in the background); `CancellationError` when the engine stops.
  public func syncNow() async throws {
    try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
      let stopped = shared.withLock { shared in
        if !shared.stopped { shared.waiters.append(waiter) }
        return shared.stopped
      }
      if stopped { waiter.resume(throwing: CancellationError()) } else { wake.fire() }
    }
  }

  /// The local values this store lost to other devices' later values before the server had
  /// them, oldest first (kept in the store until ``clearConflicts()``).
  ///
  /// For example: `let lost = try sync.conflicts()`.
  ///
  /// - Returns: The conflicts.
  /// - Throws: ``StoreError`` when the store can't be read.
  public func conflicts() throws -> [SyncConflict] {
    try container.pool.read { db in
      try db.query(
        "SELECT model, id, property, lost, date, kind, existing, kept FROM kura_sync_conflicts "
          + "ORDER BY number"
      ) { row in
        let kind: SyncConflict.Kind? = .init(rawValue: row.isNull(at: 5) ? "" : row.string(at: 5))
        return SyncConflict(
          kind: kind ?? .laterValue,
          existingID: row.isNull(at: 6) ? nil : row.string(at: 6),
          keptValues: row.isNull(at: 7) ? nil : row.string(at: 7),
          model: row.string(at: 0), id: row.string(at: 1),
          property: row.isNull(at: 2) ? nil : row.string(at: 2), lostValue: row.string(at: 3),
          date: Date(timeIntervalSince1970: row.double(at: 4)))
      }
    }
  }

  /// Forgets the conflicts ``conflicts()`` lists.
  ///
  /// For example: `try sync.clearConflicts()`.
  ///
  /// - Throws: ``StoreError`` when the store can't be written.
  public func clearConflicts() throws {
    try container.pool.write { db in
      try db.run("DELETE FROM kura_sync_conflicts")
    }
  }

  // MARK: The background loop

  /// One exchange, with the status and waiters updated; returns how long to wait before the
  /// next one and whether it succeeded (`nil` once the engine stopped).
  private func exchangeOnce(backOff: inout Duration) async -> (Duration, Bool)? {
    if shared.withLock({ $0.stopped }) { return nil }
    let waiters = shared.withLock { shared in
      defer { shared.waiters = [] }
      return shared.waiters
    }
    update { $0.phase = .syncing }
    let outcome: Result<Void, SyncError>
    do {
      try await exchange()
      outcome = .success(())
    } catch let error as SyncError {
      outcome = .failure(error)
    } catch {
      outcome = .failure(
        SyncError(
          .serverError, message: "Sync failed: \(error). It is tried again.", underlying: error))
    }
    let (pending, quarantined) =
      (try? container.pool.read {
        (try SyncLocalStore.pendingCount($0), try SyncQuarantine.count($0))
      }) ?? (0, shared.withLock { $0.status.quarantined })
    var delay = settings.pollInterval
    switch outcome {
    case .success:
      backOff = .milliseconds(250)
      let now = Date()
      lastSuccess.keep(now, in: container)
      update {
        $0.phase = .idle
        $0.pending = pending
        $0.quarantined = quarantined
        $0.lastSuccess = now
        $0.failure = nil
      }
      for waiter in waiters { waiter.resume() }
    case .failure(let error):
      update {
        $0.phase = error.code == .offline ? .offline : .failing(error.message)
        $0.pending = pending
        $0.quarantined = quarantined
        $0.failure = error
      }
      for waiter in waiters { waiter.resume(throwing: error) }
      delay = backOff
      backOff = min(backOff * 2, .seconds(30))
    }
    if shared.withLock({ $0.stopped }) { return nil }
    if case .success = outcome { return (delay, true) }
    return (delay, false)
  }

  /// Changes the status; observers and ``statusUpdates()`` hear of it when it differs.
  package func update(_ change: (inout SyncStatus) -> Void) {
    var next = shared.withLock { $0.status }
    change(&next)
    guard next != shared.withLock({ $0.status }) else { return }
    let watchers = registrar.withMutation(of: self, keyPath: \.status) {
      shared.withLock { shared in
        change(&shared.status)
        return Array(shared.watchers.values)
      }
    }
    let status = shared.withLock { $0.status }
    for watcher in watchers { watcher.yield(status) }
  }

  /// ``exchangeRound()``, once more when the server answered 410 `rebaseRequired` (the
  /// second round rebases from the snapshot before it pushes).
  private func exchange() async throws {
    do {
      try await exchangeRound()
    } catch let error as SyncError where error.status == 410 {
      try await exchangeRound()
    }
  }

  /// Pushes the whole outbox, then pulls until the store has the server's head.
  private func exchangeRound() async throws {
    try await SyncInitialSync.runIfNeeded(container: container) { [transport] endpoint, query in
      try await transport.send("GET", path: endpoint, query: query)
    }
    try await pushOutbox()
    let settled = try container.pool.read { try SyncInitialSync.settledQuery($0) }
    while true {
      let cursor = try container.pool.read { try SyncLocalStore.cursor($0) }
      let data = try await send(
        "GET", path: "changes",
        query: "after=\(cursor)&limit=\(SyncPullResponse.maximumSaves)&\(settled)")
      guard let page = try? SyncJSONReader.decodePage(data) else {
        throw SyncError.notAnAnswer(to: "pull", from: settings.server)
      }
      guard !page.saves.isEmpty else { break }
      let container = self.container
      let changes = try container.pool.write { db in
        try SyncLocalStore.applyPulled(page.saves, container: container, db: db)
      }
      if !changes.isEmpty { container.hub.didSave() }
      if let last = page.saves.last, last.position >= page.head { break }
    }
  }

  package func send(_ method: String, path: String, query: String? = nil, body: Data? = nil)
    async throws -> Data
  {
    try await transport.send(method, path: path, query: query, body: body)
  }
}

/// Wakes the sync loop: a local save, ``SyncEngine/syncNow()`` or ``SyncEngine/stop()``; a
/// wake-up while the loop is busy is kept for its next wait.
package final class SyncWakeUp: Sendable {
  private struct State {
    var pending = false
    var waiter: CheckedContinuation<Void, Never>?
  }
  private let state = Mutex(State())

  package func fire() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard let waiter = state.waiter else {
        state.pending = true
        return nil
      }
      state.waiter = nil
      return waiter
    }
    waiter?.resume()
  }

  /// Whether a wake-up came while the loop was busy (forgetting it): the loop then goes on
  /// without waiting.
  package func takePending() -> Bool {
    state.withLock { state in
      defer { state.pending = false }
      return state.pending
    }
  }

  /// Returns at the next wake-up (or at once for one that came while busy), or after `delay`.
  package func wait(upTo delay: Duration) async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.waitForFire() }
      group.addTask { try? await Task.sleep(for: delay) }
      await group.next()
      group.cancelAll()
    }
  }

  private func waitForFire() async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
        let now = state.withLock { state -> Bool in
          if state.pending || Task.isCancelled {
            state.pending = false
            return true
          }
          state.waiter = waiter
          return false
        }
        if now { waiter.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
        defer { state.waiter = nil }
        return state.waiter
      }
      waiter?.resume()
    }
  }
}
