import Foundation

extension DocumentStore {
  /// The values the document takes from now on: one element after each change saved by this
  /// store or loaded from another process. The sequence ends when the store is closed.
  ///
  /// For example:
  ///
  /// ```swift
  /// for await entries in store.changes() {
  ///   print("now \(entries.count) entries")
  /// }
  /// ```
  ///
  /// - Returns: An asynchronous sequence of values (the newest is kept when a reader is slow).
  public func changes() -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Value.self, bufferingPolicy: .bufferingNewest(1))
    let token = state.withLock { state -> Int? in
      guard !state.isClosed else { return nil }
      state.nextContinuation += 1
      state.continuations[state.nextContinuation] = continuation
      return state.nextContinuation
    }
    guard let token else {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.continuations.removeValue(forKey: token) }
    }
    return stream
  }
}
