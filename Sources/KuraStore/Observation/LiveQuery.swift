import Foundation
import KuraBase
import KuraSQLite
import Observation
import Synchronization

/// The results of a fetch descriptor, kept up to date: after every save that changes the
/// descriptor's model type — from any context of the container, or from another process using
/// the same store file — the query fetches again and its ``models`` change.
///
/// It is `Observable` (SwiftUI views and `withObservationTracking` see ``models`` change) and
/// offers the same results as an asynchronous sequence (``changes``). A save that changes only
/// other model types does not run the fetch again. Results are read from the store: unsaved
/// changes of a context are not part of them.
///
/// For example:
///
/// ```swift
/// let recent = try LiveQuery(
///   FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.createdAt, order: .reverse)]),
///   in: container)
/// for await trips in recent.changes {
///   print(trips.map(\.name))
/// }
/// ```
public final class LiveQuery<Model: PersistentModel>: Observable, Sendable {
  private struct State {
    var models: [Model] = []
    var error: StoreError?
    var fetchCount = 0
    /// How many fetches have started; a fetch publishes only when it is the newest to finish.
    var started = 0
    var published = 0
    var nextListener = 0
    var listeners: [Int: Weak<ChangeStream<[Model]>>] = [:]
  }

  /// What the query fetches.
  public let descriptor: FetchDescriptor<Model>
  /// The container it reads.
  public let container: ModelContainer
  private let registrar = ObservationRegistrar()
  private let state = Mutex(State())
  private let observation = Mutex<ChangeObservation?>(nil)
  /// Held from the start of a fetch until its result is published, so results are published in
  /// the order the fetches saw the store (commit order). Recursive: an observer may call
  /// ``refresh()`` while being told of a change.
  private let fetching = NSRecursiveLock()

  /// Fetches the descriptor's results and starts keeping them up to date.
  ///
  /// For example:
  ///
  /// ```swift
  /// let trips = try LiveQuery(FetchDescriptor<Trip>(), in: container)
  /// print(trips.models.count)
  /// ```
  ///
  /// - Parameters:
  ///   - descriptor: The fetch: predicate, sort, limit and offset.
  ///   - container: The store.
  /// - Throws: ``StoreError`` when the first fetch fails (such as
  ///   ``StoreError/Code/modelNotInContainer``) or the store cannot be watched.
  public init(_ descriptor: FetchDescriptor<Model>, in container: ModelContainer) throws {
    self.descriptor = descriptor
    self.container = container
    let modelName = try container.schema(for: Model.self).storedName
    let subscription = try container.hub.subscribe(models: [modelName]) { [weak self] result in
      switch result {
      case .success: self?.refreshAfterSave()
      case .failure(let error): self?.catchUpFailed(error)
      }
    }
    observation.withLock { $0 = subscription }
    try refresh()
  }

  deinit {
    cancel()
  }

  /// The latest results.
  ///
  /// For example: `for trip in recent.models { print(trip.name) }`.
  public var models: [Model] {
    registrar.access(self, keyPath: \.models)
    return state.withLock { $0.models }
  }

  /// The error of the last fetch, or of the last read of the store's change history when it
  /// failed (read again with back-off until it succeeds), or `nil` (the previous ``models`` stay).
  ///
  /// For example: `if let error = recent.error { print(error) }`.
  public var error: StoreError? {
    registrar.access(self, keyPath: \.error)
    return state.withLock { $0.error }
  }

  /// How many times the query has fetched (the first fetch counts): a save that cannot change
  /// the results leaves it unchanged.
  ///
  /// For example: `print(recent.fetchCount)`.
  public var fetchCount: Int { state.withLock { $0.fetchCount } }

  /// The results now and after every save that can change them, as an asynchronous sequence.
  /// Coalescing: a reader that falls behind gets the newest results, never an older one after a
  /// newer one. The sequence ends when the query is cancelled or the reading task is; a failed
  /// fetch is reported in ``error``, not by the sequence.
  ///
  /// For example:
  ///
  /// ```swift
  /// for await trips in recent.changes { render(trips) }
  /// ```
  public var changes: AsyncStream<[Model]> {
    let changes = ChangeStream<[Model]>()
    let id = state.withLock { state -> Int? in
      guard observation.withLock({ $0 != nil }) else { return nil }
      state.nextListener += 1
      state.listeners[state.nextListener] = Weak(changes)
      // Under the state lock, so no newer result can be sent before this one.
      changes.send(state.models)
      return state.nextListener
    }
    guard let id else {
      changes.finish()
      return changes.stream
    }
    changes.onTermination { [weak self] in
      _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
    }
    return changes.stream
  }

  /// Fetches again now (saves through the container do this by themselves). Fetches run one at
  /// a time and publish in the order they ran, so ``models`` never goes back to an older result.
  ///
  /// For example: `try recent.refresh()`.
  ///
  /// - Throws: ``StoreError`` when the fetch fails.
  public func refresh() throws {
    fetching.lock()
    defer { fetching.unlock() }
    if let failure = fetchAndPublish() { throw failure }
  }

  /// A save changed the model type: fetch again, unless a fetch that started after the save
  /// already ran (it saw the save).
  private func refreshAfterSave() {
    let startedBefore = state.withLock { $0.started }
    fetching.lock()
    defer { fetching.unlock() }
    guard state.withLock({ $0.started == startedBefore }) else { return }
    // A failure is published in `error` (and counted by `fetchCount`), where the app sees it;
    // the next save or change signal fetches again.
    fetchAndPublish()
  }

  /// Reading the store's history after a change signal failed (the hub reads it again with
  /// back-off, and the next read that succeeds fetches again): shown in ``error`` until then.
  private func catchUpFailed(_ error: StoreError) {
    registrar.withMutation(of: self, keyPath: \.error) { state.withLock { $0.error = error } }
  }

  /// Fetches and publishes the models, or the error in ``error``, which it also returns; the
  /// caller holds `fetching`.
  @discardableResult
  private func fetchAndPublish() -> StoreError? {
    let fetch = state.withLock { state -> Int in
      state.started += 1
      return state.started
    }
    do {
      let models = try ModelContext(container).fetch(descriptor)
      registrar.withMutation(of: self, keyPath: \.models) {
        state.withLock { state in
          // A re-entrant refresh (from an observer) may have published a newer result.
          guard fetch > state.published else { return }
          state.published = fetch
          state.models = models
          state.fetchCount += 1
          // Sent under the lock: readers get results in the order they were published.
          for listener in state.listeners.values { listener.object?.send(models) }
        }
      }
      if state.withLock({ $0.error != nil }) {
        registrar.withMutation(of: self, keyPath: \.error) { state.withLock { $0.error = nil } }
      }
      return nil
    } catch {
      // An engine's error (a lost connection…) is wrapped as every store operation wraps it.
      let wrapped = StoreError.wrapping(
        error, url: container.storeURL, doing: "refresh a live query on")
      // Not an engine's error: thrown while the fetch ran in memory (a predicate's evaluation).
      let storeError =
        wrapped as? StoreError
        ?? StoreError(
          .unsupportedQuery, url: container.storeURL, underlying: error,
          message:
            "Can't refresh a live query of `\(Model.self)`: its fetch threw \(error). Fix the "
            + "predicate or sort that throws; the next change fetches again.")
      registrar.withMutation(of: self, keyPath: \.error) {
        state.withLock {
          $0.error = storeError
          $0.fetchCount += 1
        }
      }
      return storeError
    }
  }

  /// Stops updating; ``changes`` sequences end.
  ///
  /// For example: `recent.cancel()`.
  public func cancel() {
    observation.withLock { observation in
      observation?.cancel()
      observation = nil
    }
    let listeners = state.withLock { state in
      defer { state.listeners.removeAll() }
      return state.listeners.values.compactMap(\.object)
    }
    for listener in listeners { listener.finish() }
  }
}

extension ModelContainer {
  /// The results of a fetch descriptor now and after every save that can change them, from any
  /// context or process, as an asynchronous sequence (see ``LiveQuery``).
  ///
  /// For example:
  ///
  /// ```swift
  /// for await trips in try container.results(of: FetchDescriptor<Trip>()) {
  ///   print(trips.count)
  /// }
  /// ```
  ///
  /// - Parameter descriptor: The fetch.
  /// - Returns: The sequence; it ends when the reading task is cancelled.
  /// - Throws: ``StoreError`` when the first fetch fails or the store cannot be watched.
  public func results<Model: PersistentModel>(of descriptor: FetchDescriptor<Model>) throws
    -> AsyncStream<[Model]>
  {
    let query = try LiveQuery(descriptor, in: self)
    let changes = ChangeStream<[Model]>()
    let task = Task { [weak changes] in
      for await models in query.changes { changes?.send(models) }
      changes?.finish()
    }
    changes.onTermination {
      task.cancel()
      query.cancel()
    }
    return changes.stream
  }
}
