import Synchronization

/// The one asynchronous-sequence shape of every layer: an `AsyncStream` that keeps at most one
/// pending element, merging a new element into it while the reader is busy — the newest value
/// replaces an older one; sets of changed names are united — so a slow reader skips intermediate
/// states but always ends on the latest, and a writer never waits for a reader.
///
/// The stream ends when ``finish()`` is called (the source closed or was cancelled) or when the
/// reading task is cancelled; ``onTermination`` then runs once (unregistering from the source),
/// also when the stream is released without being read to the end.
package final class ChangeStream<Element: Sendable>: Sendable {
  private struct State {
    var pending: Element?
    var waiter: CheckedContinuation<Element?, Never>?
    var finished = false
    var onTermination: (@Sendable () -> Void)?
  }

  private let state = Mutex(State())
  private let merge: @Sendable (Element, Element) -> Element

  /// A stream whose pending element is replaced by each newer one.
  package init() { merge = { _, newer in newer } }

  /// A stream whose pending element absorbs each newer one through `merge`.
  package init(merging merge: @escaping @Sendable (Element, Element) -> Element) {
    self.merge = merge
  }

  deinit { finish() }

  /// Runs once when the stream ends, however it ends.
  package func onTermination(_ action: @escaping @Sendable () -> Void) {
    let runNow = state.withLock { state -> Bool in
      guard !state.finished else { return true }
      state.onTermination = action
      return false
    }
    if runNow { action() }
  }

  /// Hands an element to the reader, or merges it into the pending one.
  package func send(_ element: Element) {
    let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
      guard !state.finished else { return nil }
      if let waiter = state.waiter {
        state.waiter = nil
        return waiter
      }
      state.pending = state.pending.map { merge($0, element) } ?? element
      return nil
    }
    waiter?.resume(returning: element)
  }

  /// Ends the stream (after the pending element, if any, has been read).
  package func finish() {
    let (waiter, action) = state.withLock {
      state -> (CheckedContinuation<Element?, Never>?, (@Sendable () -> Void)?) in
      guard !state.finished else { return (nil, nil) }
      state.finished = true
      defer {
        state.waiter = nil
        state.onTermination = nil
      }
      return (state.waiter, state.onTermination)
    }
    waiter?.resume(returning: nil)
    action?()
  }

  private func next() async -> Element? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
        let ready = state.withLock { state -> (Element?, Bool)? in
          if let pending = state.pending {
            state.pending = nil
            return (pending, true)
          }
          if state.finished || Task.isCancelled { return (nil, true) }
          state.waiter = continuation
          return nil
        }
        if let (element, _) = ready { continuation.resume(returning: element) }
      }
    } onCancel: {
      finish()
    }
  }

  /// The reader's side.
  package var stream: AsyncStream<Element> {
    AsyncStream(unfolding: { [self] in await self.next() }, onCancel: { [self] in self.finish() })
  }
}
