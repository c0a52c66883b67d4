import KuraBase
import KuraSQLite
import Observation
import Synchronization

/// The observation point of one key: reading the key registers interest here, and a change to
/// the key (by this process or another) fires it. One slot per key name, so observing one key is
/// never disturbed by changes to another.
package final class PreferenceSlot: Observable, Sendable {
  private let registrar = ObservationRegistrar()
  private struct Listeners {
    var nextToken = 0
    var handlers: [Int: @Sendable () -> Void] = [:]
  }
  private let listeners = Mutex(Listeners())

  /// The observed property; its value carries no meaning (changes are announced, not stored).
  package var generation: Int { 0 }
  // Safety: a key path is immutable once created; it is only shared for reading.
  nonisolated(unsafe) private static let generationPath: KeyPath<PreferenceSlot, Int> =
    \.generation

  /// Registers the current observation tracking's interest in this key.
  @inline(__always)
  package func access() { registrar.access(self, keyPath: Self.generationPath) }

  /// Announces a change to observers and listeners.
  package func changed() {
    registrar.withMutation(of: self, keyPath: Self.generationPath) {}
    let handlers = listeners.withLock { Array($0.handlers.values) }
    for handler in handlers { handler() }
  }

  /// Calls `handler` after each change until the returned token is removed.
  package func addListener(_ handler: @escaping @Sendable () -> Void) -> Int {
    listeners.withLock { listeners in
      listeners.nextToken += 1
      listeners.handlers[listeners.nextToken] = handler
      return listeners.nextToken
    }
  }

  /// Stops calls to a listener.
  package func removeListener(_ token: Int) {
    _ = listeners.withLock { $0.handlers.removeValue(forKey: token) }
  }
}
