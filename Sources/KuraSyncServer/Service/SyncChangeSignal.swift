import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CLibPQ)
  import Foundation
  import Synchronization

  /// A pull that found nothing past its cursor and may wait for the space's next push: what the
  /// transport parks (see ``SyncChangeSignal/park(_:limit:suspend:resume:)``).
  ///
  /// For example:
  ///
  /// ```swift
  /// if let wait = response.wait { _ = service.changeSignal.park(wait, limit: 200, …) }
  /// ```
  package struct SyncPullWait: Sendable {
    /// The space pulled.
    package var space: String
    /// The space's notices counted before the pull read the log (a later notice wakes it).
    package var mark: SyncChangeSignal.Mark
    /// When the pull is answered (with an empty page) if no push came.
    package var deadline: ContinuousClock.Instant
  }

  /// How a sync server learns that a space has new saves — from PostgreSQL, not from its own
  /// memory, so a push through one server process wakes the pulls waiting on another.
  ///
  /// A push sends `NOTIFY kura_sync` with the space in its transaction (delivered when it
  /// commits); each server process listens on the channel on a connection of its own, on a
  /// thread of its own, and wakes the pulls of that space parked with it. A pull reads the
  /// space's ``Mark`` before it reads the log, so a push that commits between the read and the
  /// parking is seen (the park finds the mark moved). When the listening connection broke and
  /// came back, notices may have been lost: every parked pull is woken and reads again.
  package final class SyncChangeSignal: Sendable {
    /// The channel pushes notify.
    package static let channel = "kura_sync"

    /// A space's count of notices (and of reconnections, which count for every space).
    package struct Mark: Sendable, Hashable {
      package var epoch: UInt64
      package var notices: UInt64
    }

    /// What became of a pull handed to ``park(_:limit:suspend:resume:)``.
    package enum Outcome: Sendable {
      /// Parked: `resume` is called at the next push, the deadline or the server's stop.
      case parked
      /// A push came already (or the signal stopped): answer now, nothing was suspended.
      case changed
      /// `limit` pulls are parked already: answer 503, nothing was suspended.
      case full
    }

    private struct Parked {
      var deadline: ContinuousClock.Instant
      var resume: @Sendable () -> Void
    }

    private struct State {
      var epoch: UInt64 = 0
      var notices: [String: UInt64] = [:]
      var parked: [String: [UInt64: Parked]] = [:]
      var count = 0
      var nextID: UInt64 = 0
      var listening = false
      var stopped = false
      var started = false
    }

    private let location: PostgresLocation
    private let state = Mutex(State())
    private let listener = Mutex<PostgresListener?>(nil)

    package init(location: PostgresLocation) {
      self.location = location
    }

    /// Whether pulls may wait now: the signal listens (a stopped or never started one doesn't).
    package var isListening: Bool { state.withLock { $0.listening && !$0.stopped } }

    /// The space's mark now.
    package func mark(_ space: String) -> Mark {
      state.withLock { Mark(epoch: $0.epoch, notices: $0.notices[Self.key(space)] ?? 0) }
    }

    /// The notice's payload for a space: the space itself, or its digest for one too long for
    /// a notice (PostgreSQL takes under 8,000 bytes).
    package static func key(_ space: String) -> String {
      space.utf8.count < 1_000 ? space : "#" + SHA256.hexDigest(space)
    }

    /// Starts listening, on a thread of its own (once; later calls do nothing).
    ///
    /// - Throws: `PostgresError` when the listening connection can't be made (pulls then
    ///   don't wait).
    package func start() throws {
      guard
        state.withLock({ state -> Bool in
          defer { state.started = true }
          return !state.started && !state.stopped
        })
      else { return }
      let listener = try PostgresListener(location: location)
      try listener.listen(Self.channel)
      self.listener.withLock { $0 = listener }
      state.withLock { $0.listening = true }
      let thread = Thread { [self] in run(listener) }
      thread.name = "kura-sync-signal"
      thread.start()
    }

    /// Stops listening and resumes every parked pull (before the transport stops: a suspended
    /// libmicrohttpd connection must be resumed first).
    package func stop() {
      let resumes = state.withLock { state -> [@Sendable () -> Void] in
        state.stopped = true
        state.listening = false
        return takeAll(&state)
      }
      for resume in resumes { resume() }
      listener.withLock { $0?.wakeUp() }
    }

    /// Parks a pull until the space's next push, its deadline or the stop: `suspend` is called
    /// (under the signal's lock, so `resume` can't run before it) when it parks.
    ///
    /// - Parameters:
    ///   - wait: The pull.
    ///   - limit: The most pulls parked at once.
    ///   - suspend: Suspends the request (called once, when the pull is parked).
    ///   - resume: Resumes it (called once, later, on the signal's thread or the stopping one).
    /// - Returns: Whether it parked, or why not.
    package func park(
      _ wait: SyncPullWait, limit: Int, suspend: () -> Void,
      resume: @escaping @Sendable () -> Void
    ) -> Outcome {
      let woken = state.withLock { state -> Outcome in
        let key = Self.key(wait.space)
        guard state.listening, !state.stopped,
          wait.mark == Mark(epoch: state.epoch, notices: state.notices[key] ?? 0)
        else { return .changed }
        guard state.count < limit else { return .full }
        suspend()
        state.nextID += 1
        state.parked[key, default: [:]][state.nextID] = Parked(
          deadline: wait.deadline, resume: resume)
        state.count += 1
        return .parked
      }
      if case .parked = woken { listener.withLock { $0?.wakeUp() } }
      return woken
    }

    /// How many pulls are parked now.
    package var parkedCount: Int { state.withLock { $0.count } }

    private func takeAll(_ state: inout State) -> [@Sendable () -> Void] {
      let resumes = state.parked.values.flatMap { $0.values.map(\.resume) }
      state.parked = [:]
      state.count = 0
      return resumes
    }

    private func run(_ listener: PostgresListener) {
      let clock = ContinuousClock()
      while true {
        let pause = state.withLock { state -> Duration? in
          if state.stopped { return nil }
          let next = state.parked.values.lazy.flatMap { $0.values.lazy.map(\.deadline) }.min()
          let pause = next.map { clock.now.duration(to: $0) } ?? .seconds(1)
          return max(min(pause, .seconds(1)), .milliseconds(1))
        }
        guard let pause else { return }
        let event: PostgresListener.Event
        do {
          event = try listener.wait(timeout: pause)
        } catch {
          // Connecting again failed until the timeout: the parked pulls read again (a notice
          // may have been lost) and new ones don't wait until the listener is back.
          let resumes = state.withLock { state -> [@Sendable () -> Void] in
            state.listening = false
            state.epoch += 1
            return takeAll(&state)
          }
          for resume in resumes { resume() }
          continue
        }
        let now = clock.now
        let resumes = state.withLock { state -> [@Sendable () -> Void] in
          var resumes: [@Sendable () -> Void] = []
          if event.reconnected {
            state.epoch += 1
            state.listening = true
            resumes += takeAll(&state)
          }
          for notice in event.notifications where notice.channel == Self.channel {
            state.notices[notice.payload, default: 0] += 1
            if let parked = state.parked.removeValue(forKey: notice.payload) {
              resumes += parked.values.map(\.resume)
              state.count -= parked.count
            }
          }
          for (key, parked) in state.parked {
            let due = parked.filter { $0.value.deadline <= now }
            guard !due.isEmpty else { continue }
            resumes += due.values.map(\.resume)
            state.count -= due.count
            let kept = parked.filter { $0.value.deadline > now }
            state.parked[key] = kept.isEmpty ? nil : kept
          }
          return resumes
        }
        for resume in resumes { resume() }
      }
    }
  }
#endif
