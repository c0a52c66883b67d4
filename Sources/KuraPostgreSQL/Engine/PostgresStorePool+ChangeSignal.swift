import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  import Synchronization

  extension PostgresStorePool {
    // MARK: Change signal

    /// A number that changes with every commit of this pool and every notification received.
    package var changeCount: UInt64 { changes.load(ordering: .relaxed) }

    /// Calls `handler` after commits by any process (each notification on the store's channel)
    /// and after the listener connected again, until the observation is cancelled.
    package func observeChanges(_ handler: @escaping @Sendable (UInt64) -> Void)
      -> ChangeObservation
    {
      observers.add(handler) {
        let loop = ListenLoop(
          location: location, channel: channel, heartbeat: settings.listenerHeartbeat
        ) { [weak self] in
          self?.deliver()
        }
        loop.start()
        return ChangeObservation { loop.stop() }
      }
    }

    /// Calls every handler.
    private func deliver() {
      let count = changes.add(1, ordering: .relaxed).newValue
      for handler in observers.handlers { handler(count) }
    }
  }

  /// The thread that listens on a store's channel and calls `onChange` for each batch of
  /// notifications and after each reconnection.
  package final class ListenLoop: @unchecked Sendable {
    private let location: PostgresLocation
    private let channel: String
    private let heartbeat: Duration
    private let onChange: @Sendable () -> Void
    private let stopped = Atomic<Bool>(false)
    private let listener = Mutex<PostgresListener?>(nil)
    /// Signalled when the first `LISTEN` is in place (or failed), so a save right after
    /// `observeChanges` returns is not missed.
    private let ready = DispatchSemaphore(value: 0)

    package init(
      location: PostgresLocation, channel: String, heartbeat: Duration,
      onChange: @escaping @Sendable () -> Void
    ) {
      self.location = location
      self.channel = channel
      self.heartbeat = heartbeat
      self.onChange = onChange
    }

    /// Starts the thread and waits (a few seconds at most) until it listens.
    package func start() {
      let thread = Thread { [self] in run() }
      thread.name = "Kura.PostgresListener"
      thread.start()
      _ = ready.wait(timeout: .now() + 5)
    }

    /// Stops the thread (it ends at its next wake-up, which this causes).
    package func stop() {
      stopped.store(true, ordering: .releasing)
      listener.withLock { $0?.wakeUp() }
    }

    /// Waits on the listener until stopped. Connecting, and connecting again after a failure
    /// (with growing pauses), is ``PostgresListener/wait(timeout:)``'s: the first wait only
    /// tries once, so ``start()`` is not held up by a server that can't be reached.
    private func run() {
      var signalled = false
      defer { if !signalled { ready.signal() } }
      // Whether the handlers were called for the failure under way: the server can't be reached,
      // so their catch-up read fails and says so (``LiveQuery/error``), and is retried with
      // back-off until it reads again — once per failure, not per attempt to connect.
      var toldOfFailure = false
      while !stopped.load(ordering: .acquiring) {
        var current = listener.withLock { $0 }
        do {
          if current == nil {
            let created = try PostgresListener(connectingLater: location, heartbeat: heartbeat)
            try created.listen(channel)
            listener.withLock { $0 = created }
            current = created
            if stopped.load(ordering: .acquiring) { break }
          }
          guard let current else { break }
          // At most a heartbeat: a server that can't be reached is told to the handlers within
          // one, not after a long wait.
          let event = try current.wait(timeout: signalled ? heartbeat : .zero)
          if stopped.load(ordering: .acquiring) { break }
          if !signalled {
            // The first connection, listening: a save after `observeChanges` is not missed.
            signalled = true
            ready.signal()
            if event.reconnected { continue }
          }
          // Listening again after a failure: catch up.
          if event.reconnected { toldOfFailure = false }
          // A heartbeat of silence reads the history too: a save notifies after its commit
          // (``notifySQL``), so a notification lost between the two (its process killed)
          // delays the other processes by one heartbeat at most, never until the next save.
          if !event.notifications.isEmpty || event.reconnected || !event.wasWokenUp {
            onChange()
          }
        } catch {
          if !signalled {
            signalled = true
            ready.signal()
          } else if !toldOfFailure, !stopped.load(ordering: .acquiring) {
            toldOfFailure = true
            onChange()
          }
          // A moment before the next wait (which retries connecting at growing intervals).
          if let current { _ = current.waitForWakeUp(.milliseconds(50)) } else { usleep(50_000) }
        }
      }
      listener.withLock { $0 = nil }
    }
  }
#endif
