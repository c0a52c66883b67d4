import Foundation
import KuraBase
import Synchronization

/// A store kept by an engine outside the embedded layers (PostgreSQL, in `KuraPostgreSQL`): what
/// the container, the inspector and migration need to open it. The engine's module makes the
/// configuration (`ModelConfiguration.postgres(_:)`), so the store names no engine type.
package protocol ExternalStore: Sendable {
  /// The engine's name as the inspector reports it (`postgresql`).
  var engineName: String { get }
  /// How errors and configurations name the store: a URL without any secret.
  var passwordFreeURL: URL { get }
  /// How messages name the store (its database and server, never a password).
  var storeName: String { get }
  /// Where the store is, as the inspector prints it.
  var locationDescription: String { get }
  /// Opens the store for a container, examined by `examine` before anything is written;
  /// `settings` is the configuration's ``ModelConfiguration/engineSettings`` value.
  func open(readOnly: Bool, settings: (any Sendable)?, examine: StoreExaminer) throws
    -> OpenedStore
  /// Opens the store for migrating it, after `check` refused what is not a current Kura store.
  func openForMigration(check: (any StoreConnection) throws -> Void) throws -> any StorePool
  /// A connection that reads the store as found and can't write.
  func openForInspection() throws -> any StoreConnection
}

/// An ``ExternalStore`` inside a ``ModelConfiguration``: configurations are equal when they
/// name the same store (its password-free URL).
package struct ExternalStoreReference: Sendable, Hashable {
  package let store: any ExternalStore

  package init(_ store: any ExternalStore) {
    self.store = store
    StoreLabels.remember(store.passwordFreeURL, as: store.storeName)
  }

  package static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.store.passwordFreeURL == rhs.store.passwordFreeURL
  }

  package func hash(into hasher: inout Hasher) { hasher.combine(store.passwordFreeURL) }
}

/// An engine's own settings inside a ``ModelConfiguration`` (such as PostgreSQL's connection
/// limits), compared by their description.
package struct EngineSettingsSlot: Sendable, Hashable {
  package var value: (any Sendable)?

  package init(_ value: (any Sendable)? = nil) { self.value = value }

  private var key: String { value.map { String(describing: $0) } ?? "" }

  package static func == (lhs: Self, rhs: Self) -> Bool { lhs.key == rhs.key }

  package func hash(into hasher: inout Hasher) { hasher.combine(key) }
}

/// How messages name external stores, by their password-free URL.
package enum StoreLabels {
  private static let names = Mutex<[URL: String]>([:])

  /// Remembers how to name the store at `url`.
  package static func remember(_ url: URL, as name: String) {
    names.withLock { $0[url] = name }
  }

  /// The name remembered for `url`, if any.
  package static func name(for url: URL) -> String? { names.withLock { $0[url] } }
}

/// An engine's error that knows how to become a ``StoreError`` (PostgreSQL's, whose connection
/// failures, lost connections and unknown commit outcomes have codes of their own).
package protocol StoreWrappableError: Error {
  /// The store error for this failure while doing `action` on the store at `url`.
  func storeError(url: URL?, doing action: String) -> StoreError
}

extension URL {
  /// Whether the URL's scheme names PostgreSQL (`postgresql:` or `postgres:`).
  package var isPostgresURL: Bool {
    let scheme = scheme?.lowercased()
    return scheme == "postgresql" || scheme == "postgres"
  }
}
