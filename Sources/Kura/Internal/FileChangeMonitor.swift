import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Cancels a change subscription when cancelled or released.
///
/// For example:
///
/// ```swift
/// let observation = try pool.observeChanges { _ in print("changed") }
/// observation.cancel()
/// ```
public final class ChangeObservation: Sendable {
  private let onCancel: Mutex<(@Sendable () -> Void)?>

  init(_ onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = Mutex(onCancel)
  }

  /// Stops the calls. Calling it again does nothing.
  ///
  /// For example: `observation.cancel()`.
  public func cancel() {
    let action = onCancel.withLock { action -> (@Sendable () -> Void)? in
      defer { action = nil }
      return action
    }
    action?()
  }

  deinit { cancel() }
}

/// Watches a ``SharedCounter`` and calls subscribers when its value changes.
///
/// On Linux a background thread blocks on inotify for the counter file (each increment touches
/// it); elsewhere it checks the counter every 20 ms. A change is delivered once per new value
/// seen; several quick increments may be delivered as one.
final class FileChangeMonitor: Sendable {
  private let counter: SharedCounter
  private struct State {
    var nextToken = 0
    var handlers: [Int: @Sendable (UInt64) -> Void] = [:]
    var lastSeen: UInt64
    var running = false
    /// Bumped each time a thread starts, so a thread from an earlier run stops.
    var generation = 0
  }
  private let state: Mutex<State>
  private let wakeFD: Int32
  private let watchFD: Int32

  init(counter: SharedCounter) throws {
    self.counter = counter
    self.state = Mutex(State(lastSeen: counter.value))
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else {
      throw SQLiteError(
        code: .cannotOpen, extendedCode: 14,
        message: "can't watch `\(counter.path)`: \(String(cString: strerror(errno)))", sql: nil)
    }
    wakeFD = fds[1]
    watchFD = fds[0]
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
  }

  deinit {
    close(wakeFD)
    close(watchFD)
  }

  func subscribe(_ handler: @escaping @Sendable (UInt64) -> Void) -> ChangeObservation {
    let (token, generation) = state.withLock { state -> (Int, Int?) in
      state.nextToken += 1
      state.handlers[state.nextToken] = handler
      guard !state.running else { return (state.nextToken, nil) }
      state.running = true
      state.generation += 1
      return (state.nextToken, state.generation)
    }
    if let generation { startThread(generation) }
    return ChangeObservation { [weak self] in
      guard let self else { return }
      let stop = self.state.withLock { state -> Bool in
        state.handlers[token] = nil
        if state.handlers.isEmpty && state.running {
          state.running = false
          return true
        }
        return false
      }
      if stop {
        var byte: UInt8 = 1
        _ = write(self.wakeFD, &byte, 1)
      }
    }
  }

  private func deliverIfChanged() {
    let value = counter.value
    let handlers = state.withLock { state -> [@Sendable (UInt64) -> Void] in
      guard value != state.lastSeen else { return [] }
      state.lastSeen = value
      return Array(state.handlers.values)
    }
    for handler in handlers { handler(value) }
  }

  private func startThread(_ generation: Int) {
    let thread = Thread { [self] in self.run(generation) }
    thread.name = "kura.change-monitor"
    thread.start()
  }

  private func run(_ generation: Int) {
    #if os(Linux)
      let inotify = inotify_init1(Int32(IN_CLOEXEC))
      let watch =
        inotify >= 0
        ? inotify_add_watch(inotify, counter.path, UInt32(IN_ATTRIB | IN_MODIFY)) : -1
      defer { if inotify >= 0 { close(inotify) } }
    #else
      let inotify: Int32 = -1
      let watch: Int32 = -1
    #endif
    var buffer = [UInt8](repeating: 0, count: 4096)
    while state.withLock({ $0.running && $0.generation == generation }) {
      deliverIfChanged()
      var fds = [pollfd(fd: watchFD, events: Int16(POLLIN), revents: 0)]
      if watch >= 0 { fds.append(pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)) }
      // With inotify the timeout is only a safety net; without it, it is the polling period.
      let ready = poll(&fds, nfds_t(fds.count), watch >= 0 ? 1000 : 20)
      if ready > 0 {
        if fds[0].revents != 0 { _ = read(watchFD, &buffer, buffer.count) }
        if fds.count > 1 && fds[1].revents != 0 { _ = read(inotify, &buffer, buffer.count) }
      }
    }
  }
}
