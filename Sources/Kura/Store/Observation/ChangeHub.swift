import Dispatch
import Foundation
import Synchronization

/// Tells a container's live queries and change-feed readers about saves, from this process
/// (``didSave()``) and from others (the pool's cross-process change counter).
///
/// On each wake-up it reads the history rows after the last one it saw, once for all
/// subscribers, and calls a subscriber only when a save changed one of its models. Subscribers
/// are called one at a time, on the hub's queue, in save order.
final class ChangeHub: Sendable {
  private struct Subscriber {
    /// The model names the subscriber depends on; `nil` for every change set (the feed, which
    /// alone is given the change sets; live queries get an empty list).
    let models: Set<String>?
    let onChange: @Sendable ([ChangeSet]) -> Void
  }

  private struct State {
    var token: HistoryToken?
    var subscribers: [Int: Subscriber] = [:]
    var nextID = 0
    var observation: ChangeObservation?
    var isScheduled = false
  }

  private let pool: StorePool
  private let url: URL?
  private let queue = DispatchQueue(label: "Kura.ChangeHub")
  private let state = Mutex(State())

  init(pool: StorePool, url: URL?) {
    self.pool = pool
    self.url = url
  }

  /// Calls `onChange` after each save that changes one of `models` (every save when `nil`),
  /// with the change sets since the previous call, until the observation is cancelled.
  func subscribe(
    models: Set<String>?, onChange: @escaping @Sendable ([ChangeSet]) -> Void
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
  func didSave() {
    let hasSubscribers = state.withLock { !$0.subscribers.isEmpty }
    if hasSubscribers { schedule() }
  }

  /// Waits until every wake-up scheduled so far has been handled (tests and benchmarks).
  func drain() { queue.sync {} }

  private func schedule() {
    let shouldEnqueue = state.withLock { state -> Bool in
      if state.isScheduled { return false }
      state.isScheduled = true
      return true
    }
    if shouldEnqueue { queue.async { [weak self] in self?.poll() } }
  }

  private func poll() {
    let (token, subscribers) = state.withLock { state -> (HistoryToken?, [Subscriber]) in
      state.isScheduled = false
      return (state.token, Array(state.subscribers.sorted { $0.key < $1.key }.map(\.value)))
    }
    guard let token, !subscribers.isEmpty else { return }
    // Live queries only need the names of the changed models; decode the change sets (their
    // id lists) only when a change-feed reader is subscribed.
    let changeSets: [ChangeSet]
    let changed: Set<String>
    let latest: HistoryToken
    if subscribers.contains(where: { $0.models == nil }) {
      guard
        let sets = try? readHistory({ try ChangeHistory.changeSets(since: token, in: $0) }),
        let last = sets.last?.token
      else { return }
      changeSets = sets
      changed = Set(sets.flatMap { $0.changes.filter { !$0.value.isEmpty }.keys })
      latest = last
    } else {
      guard
        let (models, last) = try? readHistory({
          try ChangeHistory.changedModels(since: token, in: $0)
        }), last > token
      else { return }
      changeSets = []
      changed = models
      latest = last
    }
    state.withLock { state in
      if let current = state.token, current < latest { state.token = latest }
    }
    for subscriber in subscribers {
      if let models = subscriber.models {
        guard !models.isDisjoint(with: changed) else { continue }
        subscriber.onChange(changeSets.filter { !models.isDisjoint(with: $0.changes.keys) })
      } else {
        subscriber.onChange(changeSets)
      }
    }
  }

  private func readHistory<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
    do {
      return try pool.read(body)
    } catch {
      throw StoreError.wrapping(error, url: url, doing: "read the history of")
    }
  }
}
