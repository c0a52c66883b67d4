import Foundation
import KuraBase
import KuraSQLite

/// The connections of one store (see ``StoreEngine``): reads, write transactions and the signal
/// that another process committed.
///
/// Each method hands its body a ``StoreConnection`` for the length of the call; a body must not
/// keep it (nor statements prepared on it). Conformers are classes (see ``StoreConnection``).
package protocol StorePool: AnyObject, Sendable {
  /// The engine of this store.
  var engine: any StoreEngine { get }

  /// Whether the store only reads (a file or folder that can't be written, opened for reading).
  var isReadOnly: Bool { get }

  /// Whether the store lives in memory (one connection serves reads and writes).
  var isInMemory: Bool { get }

  /// Runs `body` on a reader connection; each statement sees the last committed state.
  func read<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result

  /// Runs `body` on a reader connection inside one read transaction (one committed state).
  func readSnapshot<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result

  /// Runs `body` on the writer inside one write transaction, committed when it returns and
  /// rolled back when it throws. On SQLite writers are serialized, across processes too; on
  /// PostgreSQL they run in parallel, and `body` runs again when it conflicted with another
  /// writer (so it must be Kura's own statements: a save, a trim).
  func write<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result

  /// Runs `body` once in a write transaction that every other such transaction waits for,
  /// across processes too (``ModelContainer/write(_:)``): on SQLite any write transaction, on
  /// PostgreSQL one that locks the store's metadata table.
  func writeSerialized<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result

  /// Runs `body` in one write transaction in which tables may be dropped and rebuilt without
  /// running their foreign-key actions (SQLite: `PRAGMA foreign_keys` is off around it). The
  /// body checks ``StoreConnection/foreignKeyViolations()`` before it returns when it rebuilt
  /// tables.
  func writeSchemaChanges<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result

  /// A number that changes with every commit to the store, by any process; compare two readings
  /// for equality.
  var changeCount: UInt64 { get }

  /// Calls `handler` after commits to the store by any process, until the returned observation
  /// is cancelled or released (several quick commits may be reported once).
  func observeChanges(_ handler: @escaping @Sendable (UInt64) -> Void) -> ChangeObservation
}
