import Dispatch
import Foundation
import KuraBase
import KuraSQLite
import Synchronization

/// Tells a container's live queries and change-feed readers about saves, from this process
/// (``didSave()``) and from others (the pool's cross-process change counter).
///
/// On each wake-up it reads the history rows after the last one it saw, once for all
/// subscribers, and calls a subscriber only when a save changed one of its models. Subscribers
/// are called one at a time, on the hub's queue, in save order.
///
/// It never skips: history trimmed before it was read is reported to change-feed readers
/// (``StoreError/Code/historyTrimmed``) and makes live queries fetch again; a read that fails
/// is retried with back-off (live queries are told, so ``LiveQuery/error`` shows it until a
/// read succeeds); rows committed above the horizon (PostgreSQL: a writer with a smaller
/// transaction id still runs, see ``StoreEngine/historyHorizonSQL``) are read again with
/// back-off until they can be delivered in order.
package final class ChangeHub: Sendable {
  private struct Subscriber {
    /// The model names the subscriber depends on; `nil` for every change set (the feed, which
    /// alone is given the change sets; live queries get an empty list).
    let models: Set<String>?
    let onChange: @Sendable (Result<[ChangeSet], StoreError>) -> Void
  }

  private struct State {
    var token: HistoryToken?
    var subscribers: [Int: Subscriber] = [:]
    var nextID = 0
    var observation: ChangeObservation?
    var isScheduled = false
    /// The delay of the next read again (after a failure, or rows above the horizon), or `nil`
    /// when none is due.
    var retryDelay: Double?
    /// Whether the last read failed (live queries were told; the next success tells them again).
    var isFailing = false
  }

  /// The first and the longest wait before reading again after a failed read.
  package static let failureDelays = (first: 0.05, longest: 5.0)
  /// The first and the longest wait before reading again rows committed above the horizon.
  package static let horizonDelays = (first: 0.005, longest: 1.0)

  private let pool: StorePool
  private let url: URL?
  private let queue = DispatchQueue(label: "Kura.ChangeHub")
  private let state = Mutex(State())

  package init(pool: StorePool, url: URL?) {
    self.pool = pool
    self.url = url
  }

  /// Calls `onChange` after each save that changes one of `models` (every save when `nil`),
  /// with the change sets since the previous call, until the observation is cancelled; with a
  /// failure when history was trimmed before it was read (change-feed readers) or a read
  /// failed (live queries; the read is retried).
  package func subscribe(
    models: Set<String>?,
    onChange: @escaping @Sendable (Result<[ChangeSet], StoreError>) -> Void
  ) throws -> ChangeObservation {
    let needsStart = state.withLock { $0.token == nil }
    if needsStart {
      let token = try readHistory { try ChangeHistory.latestToken($0) }
      let observation = pool.observeChanges { [weak self] _ in self?.schedule() }
      state.withLock { state in
        if state.token == nil {
          state.token = token
          state.observation = observation
        }
      }
    }
    let id = state.withLock { state -> Int in
      state.nextID += 1
      state.subscribers[state.nextID] = Subscriber(models: models, onChange: onChange)
      return state.nextID
    }
    return ChangeObservation { [weak self] in
      _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
  }

  /// A save of this process committed: wake the subscribers now.
  package func didSave() {
    let hasSubscribers = state.withLock { !$0.subscribers.isEmpty }
    if hasSubscribers { schedule() }
  }

  /// Waits until every wake-up scheduled so far has been handled (tests and benchmarks).
  package func drain() { queue.sync {} }

  private func schedule() {
    let shouldEnqueue = state.withLock { state -> Bool in
      if state.isScheduled { return false }
      state.isScheduled = true
      return true
    }
    if shouldEnqueue { queue.async { [weak self] in self?.poll() } }
  }

  /// Reads again after `delays.first`, doubling the wait each time up to `delays.longest`,
  /// until ``poll()`` finds nothing left to read again (a wake-up meanwhile reads at once).
  private func scheduleRetry(_ delays: (first: Double, longest: Double)) {
    let delay = state.withLock { state -> Double in
      let delay = min(state.retryDelay.map { $0 * 2 } ?? delays.first, delays.longest)
      state.retryDelay = delay
      return delay
    }
    queue.asyncAfter(deadline: .now() + delay) { [weak self] in self?.schedule() }
  }

  /// What one read of the history found.
  private struct Reading {
    var changeSets: [ChangeSet] = []
    var changed: Set<String> = []
    var latest: HistoryToken
    /// Whether saves after the token were trimmed before they were read.
    var trimmed = false
    /// Whether rows after `latest` committed above the horizon (read again later).
    var pending = false
  }

  private func poll() {
    let (token, subscribers) = state.withLock { state -> (HistoryToken?, [Subscriber]) in
      state.isScheduled = false
      return (state.token, Array(state.subscribers.sorted { $0.key < $1.key }.map(\.value)))
    }
    guard let token, !subscribers.isEmpty else { return }
    // Live queries only need the names of the changed models; decode the change sets (their
    // id lists) only when a change-feed reader is subscribed.
    let wantsChangeSets = subscribers.contains { $0.models == nil }
    let reading: Reading
    do {
      reading = try readHistory { db in
        let horizon = try ChangeHistory.horizon(db)  // before the snapshot the reads share
        return try db.transaction(.read) {
          try Self.read(after: token, below: horizon, changeSets: wantsChangeSets, db)
        }
      }
    } catch {
      let failure =
        error as? StoreError
        ?? StoreError(
          .engine, url: url, underlying: error,
          message: "Can't read the history of store \(storeLabel(url)): \(error).")
      state.withLock { $0.isFailing = true }
      for subscriber in subscribers where subscriber.models != nil {
        subscriber.onChange(.failure(failure))
      }
      scheduleRetry(Self.failureDelays)
      return
    }
    let recovered = state.withLock { state -> Bool in
      if let current = state.token, current < reading.latest { state.token = reading.latest }
      state.retryDelay = nil
      defer { state.isFailing = false }
      return state.isFailing
    }
    if reading.pending { scheduleRetry(Self.horizonDelays) }
    for subscriber in subscribers {
      if let models = subscriber.models {
        guard recovered || reading.trimmed || !models.isDisjoint(with: reading.changed) else {
          continue
        }
        subscriber.onChange(
          .success(reading.changeSets.filter { !models.isDisjoint(with: $0.changes.keys) }))
      } else if reading.trimmed {
        subscriber.onChange(.failure(trimmedError(after: token)))
      } else if !reading.changeSets.isEmpty {
        subscriber.onChange(.success(reading.changeSets))
      }
    }
  }

  /// Reads the history after `token` in one snapshot: the change sets (when `changeSets`) or
  /// only the changed model names, whether saves after `token` were trimmed, and whether rows
  /// are waiting above the horizon.
  private static func read(
    after token: HistoryToken, below horizon: Int64?, changeSets: Bool, _ db: StoreConnection
  ) throws -> Reading {
    var reading = Reading(latest: token)
    reading.trimmed = try !ChangeHistory.isKept(after: token, in: db)
    if changeSets, !reading.trimmed {
      reading.changeSets = try ChangeHistory.changeSets(since: token, below: horizon, in: db)
      reading.changed = Set(
        reading.changeSets.flatMap { $0.changes.filter { !$0.value.isEmpty }.keys })
      reading.latest = reading.changeSets.last?.token ?? token
    } else {
      // Trimmed saves may have changed any model (`changedModels` then names every model).
      let (models, latest) = try ChangeHistory.changedModels(since: token, below: horizon, in: db)
      reading.changed = models
      reading.latest = latest
    }
    reading.pending = try ChangeHistory.hasRowsAboveHorizon(
      after: reading.latest, horizon: horizon, in: db)
    return reading
  }

  /// The error a change-feed reader at `token` gets when saves after it were trimmed unread.
  private func trimmedError(after token: HistoryToken) -> StoreError {
    let file = storeLabel(url)
    return StoreError(
      .historyTrimmed, url: url,
      message:
        "Can't deliver the change sets of store \(file) after token \(token): saves after it "
        + "were trimmed before this reader got to them (see "
        + "`ModelConfiguration.historyRetention`). Fetch the models again and read the change "
        + "sets again with `changeSets()`, or keep more history.")
  }

  private func readHistory<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
    do {
      return try pool.read(body)
    } catch {
      throw StoreError.wrapping(error, url: url, doing: "read the history of")
    }
  }
}
