import Foundation
import KuraBase
import KuraSQLite

/// The connections of one SQLite store (the SQLite engine's ``StorePool``): the driver's
/// ``DatabasePool`` (one writer, idle readers, the change signal of the file), each connection
/// handed to the store as its ``SQLiteStoreConnection``.
///
/// A class, as the seam's conformers all are: the store holds it as `any StorePool`, which a
/// class reference fills without the value-witness copies a struct's existential costs.
package final class SQLiteStorePool: StorePool {
  /// The driver's pool.
  package let pool: DatabasePool

  package init(pool: DatabasePool) { self.pool = pool }

  package var engine: any StoreEngine { SQLiteStoreEngine() }

  package var isReadOnly: Bool { pool.isReadOnly }

  package var isInMemory: Bool { pool.isInMemory }

  package func read<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result {
    try pool.read { try body(SQLiteStoreConnection.of($0)) }
  }

  package func readSnapshot<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result
  {
    try pool.readSnapshot { try body(SQLiteStoreConnection.of($0)) }
  }

  package func write<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result {
    try pool.write { try body(SQLiteStoreConnection.of($0)) }
  }

  /// Any SQLite write transaction waits for every other (`BEGIN IMMEDIATE`).
  package func writeSerialized<Result>(_ body: (any StoreConnection) throws -> Result) throws
    -> Result
  {
    try write(body)
  }

  /// `PRAGMA foreign_keys` is off around the transaction (it can't change inside one).
  package func writeSchemaChanges<Result>(_ body: (any StoreConnection) throws -> Result) throws
    -> Result
  {
    try pool.writeWithoutTransaction { connection in
      try connection.execute("PRAGMA foreign_keys = OFF")
      defer { try? connection.execute("PRAGMA foreign_keys = ON") }
      return try connection.transaction(.immediate) {
        try body(SQLiteStoreConnection.of(connection))
      }
    }
  }

  package var changeCount: UInt64 { pool.changeCount }

  package func observeChanges(_ handler: @escaping @Sendable (UInt64) -> Void) -> ChangeObservation
  {
    pool.observeChanges(handler)
  }
}
