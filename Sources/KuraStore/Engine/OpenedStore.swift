import Foundation
import KuraBase
import KuraSQLite

/// A store an engine opened (``StoreEngine``): where it is, its connections, and what the
/// engine found there, as the store's examination judged it before anything was written.
///
/// An engine's opening takes what the engine needs — a file or a server's location, whether the
/// store only reads, the engine's settings — and a ``StoreExaminer`` from the store above, which
/// it runs on a connection that changes nothing; what the examination decides (refusing a
/// damaged, foreign or newer store, or a migration that would lose data) stays above the seam.
package struct OpenedStore {
  /// The store's file, or a PostgreSQL store's password-free URL; `nil` in memory.
  package var url: URL?
  /// The store's connections.
  package var pool: any StorePool
  /// What opening the store takes now: create it, nothing, or changes in one write transaction.
  package var finding: StoreFinding

  /// Creates the value from each of its stored properties.
  package init(url: URL?, pool: any StorePool, finding: StoreFinding) {
    self.url = url
    self.pool = pool
    self.finding = finding
  }
}

/// What an engine found where a store should be (see ``OpenedStore``).
package enum StoreFinding: Equatable, Sendable {
  /// No store yet: it is created.
  case new
  /// The store matches the models: opening writes nothing.
  case current
  /// The store needs its metadata, tables or indexes changed (in one write transaction).
  case needsChanges
}

/// The store's look at an existing database before anything is written: it reads through the
/// connection an engine gives it (one that changes nothing) and returns what opening takes, or
/// throws the refusal.
package typealias StoreExaminer = (any StoreConnection) throws -> StoreFinding
