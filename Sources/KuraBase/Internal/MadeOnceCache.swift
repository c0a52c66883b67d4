import Synchronization

/// Objects made once per key and kept for the owner's lifetime, for a lower layer that holds what
/// a higher one derives from it without naming its type (a model schema keeps the store's row
/// plans: ``ModelSchema/rowPlans``). A key whose making gave `nil` stays `nil`.
package final class MadeOnceCache: Sendable {
  private let entries = Mutex<[ObjectIdentifier: (any AnyObject & Sendable)?]>([:])

  /// An empty cache.
  package init() {}

  /// The object for `key`, made by `make` on first use (two threads may both make it; the
  /// last one made is kept, and each caller gets one it can use).
  package func object(
    for key: ObjectIdentifier, make: () -> (any AnyObject & Sendable)?
  ) -> (any AnyObject & Sendable)? {
    if let known = entries.withLock({ $0[key] }) { return known }
    let made = make()
    entries.withLock { $0[key] = .some(made) }
    return made
  }
}
