import Foundation
import KuraBase
import KuraSQLite

/// A property that reads and writes one preference, like SwiftUI's `@AppStorage`; usable in any
/// struct or class.
///
/// For example:
///
/// ```swift
/// let shared = try Preferences(suite: "group.iOS17.M_Kaku")
///
/// struct Fields {
///   @Preference(.basket) var basket                // the standard suite
///   @Preference(.fruits, store: shared) var fruits  // the App Group suite
/// }
/// ```
///
/// Reading the property inside `withObservationTracking` (or a SwiftUI body) observes that key.
/// A failed write is reported as ``Preferences/lastWriteError``; use ``Preferences/set(_:for:)``
/// to handle errors where they happen.
@propertyWrapper
public struct Preference<Value: Sendable>: Sendable {
  /// The key.
  public let key: Preferences.Key<Value>
  /// The suite the value lives in.
  public let store: Preferences

  /// Binds a property to a key.
  ///
  /// For example: `@Preference(.sortOption) var sortOption`.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - store: The suite; ``Preferences/standard`` by default.
  public init(_ key: Preferences.Key<Value>, store: Preferences = .standard) {
    self.key = key
    self.store = store
  }

  /// The key's current value; setting it stores the value.
  public var wrappedValue: Value {
    get { store[key] }
    nonmutating set { store[key] = newValue }
  }

  /// The property wrapper itself, for `$sortOption.store` or `$sortOption.changes`.
  public var projectedValue: Preference<Value> { self }

  /// The key's values as an `AsyncSequence`, the current one first, then the newest value after
  /// changes (coalesced; see ``Preferences/changes(of:)``).
  ///
  /// For example: `for await option in $sortOption.changes { … }`.
  public var changes: AsyncStream<Value> { store.changes(of: key) }
}
