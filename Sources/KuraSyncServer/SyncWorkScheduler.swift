import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CMicroHTTPD)
  import Foundation

  /// The threads that do the sync server's database work, off the HTTP threads, fairly between
  /// spaces: each space's requests wait in a queue of their own, the spaces with work take
  /// turns, and one space runs at most `perSpace` requests at once — so a space flooded with
  /// large pushes (which its row lock serializes anyway) leaves the other workers to the
  /// other spaces.
  ///
  /// For example:
  ///
  /// ```swift
  /// let scheduler = SyncWorkScheduler(workers: 8, perSpace: 2)
  /// scheduler.submit(space: "family") { print("on a worker") }
  /// ```
  // Safety: all mutable state is guarded by `condition` (an NSCondition, for its wait).
  package final class SyncWorkScheduler: @unchecked Sendable {
    private let condition = NSCondition()
    private let perSpace: Int
    /// The most requests of one space that wait at once.
    package let maximumQueued: Int
    private var queues: [String: [@Sendable () -> Void]] = [:]
    private var running: [String: Int] = [:]
    /// The spaces whose next request may start, in turn.
    private var ready: [String] = []
    private var isReady: Set<String> = []
    private var stopped = false
    private var threads: [Thread] = []

    /// Starts `workers` threads; a space runs at most `perSpace` requests at once, and holds
    /// at most `maximumQueued` waiting.
    package init(workers: Int, perSpace: Int, maximumQueued: Int = 1_000) {
      self.perSpace = max(1, perSpace)
      self.maximumQueued = max(1, maximumQueued)
      for index in 0..<max(1, workers) {
        let thread = Thread { [self] in work() }
        thread.name = "kura-sync-worker-\(index)"
        threads.append(thread)
        thread.start()
      }
    }

    /// Queues `work` for `space`; it runs on a worker thread in the space's turn.
    ///
    /// - Returns: `false` when the space has ``maximumQueued`` requests waiting already
    ///   (`work` is dropped: answer the request busy).
    @discardableResult
    package func submit(space: String, _ work: @escaping @Sendable () -> Void) -> Bool {
      condition.lock()
      defer { condition.unlock() }
      guard !stopped else {
        DispatchQueue.global().async(execute: work)
        return true
      }
      guard queues[space, default: []].count < maximumQueued else { return false }
      queues[space, default: []].append(work)
      makeReady(space)
      condition.signal()
      return true
    }

    /// How many requests wait (not yet running), over all spaces.
    package var waiting: Int {
      condition.lock()
      defer { condition.unlock() }
      return queues.values.reduce(0) { $0 + $1.count }
    }

    /// Lets the workers end once the queued work is done (later work runs on Dispatch).
    package func stop() {
      condition.lock()
      stopped = true
      condition.broadcast()
      condition.unlock()
    }

    deinit { stop() }

    private func makeReady(_ space: String) {
      guard !isReady.contains(space), running[space, default: 0] < perSpace,
        !(queues[space]?.isEmpty ?? true)
      else { return }
      isReady.insert(space)
      ready.append(space)
    }

    private func work() {
      condition.lock()
      while true {
        while ready.isEmpty && !(stopped && queues.isEmpty) { condition.wait() }
        if ready.isEmpty { break }
        let space = ready.removeFirst()
        isReady.remove(space)
        var queue = queues[space] ?? []
        let job = queue.removeFirst()
        queues[space] = queue.isEmpty ? nil : queue
        running[space, default: 0] += 1
        makeReady(space)
        if !ready.isEmpty { condition.signal() }
        condition.unlock()
        job()
        condition.lock()
        running[space, default: 1] -= 1
        if running[space] == 0 { running[space] = nil }
        makeReady(space)
        if !ready.isEmpty { condition.signal() }
      }
      condition.unlock()
    }
  }
#endif
