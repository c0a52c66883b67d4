import Foundation

/// The connections of one SQLite store (the SQLite engine's ``StorePool``): the driver's
/// ``DatabasePool`` (one writer, idle readers, the change signal of the file), each connection
/// handed to the store as its ``SQLiteStoreConnection``.
///
/// A class, as the seam's conformers all are: the store holds it as `any StorePool`, which a
/// class reference fills without the value-witness copies a struct's existential costs.
final class SQLiteStorePool: StorePool {
  /// The driver's pool.
  let pool: DatabasePool

  init(pool: DatabasePool) { self.pool = pool }

  var engine: any StoreEngine { SQLiteStoreEngine() }

  var isReadOnly: Bool { pool.isReadOnly }

  var isInMemory: Bool { pool.isInMemory }

  func read<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result {
    try pool.read { try body(SQLiteStoreConnection.of($0)) }
  }

  func readSnapshot<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result {
    try pool.readSnapshot { try body(SQLiteStoreConnection.of($0)) }
  }

  func write<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result {
    try pool.write { try body(SQLiteStoreConnection.of($0)) }
  }

  /// Any SQLite write transaction waits for every other (`BEGIN IMMEDIATE`).
  func writeSerialized<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result {
    try write(body)
  }

  /// `PRAGMA foreign_keys` is off around the transaction (it can't change inside one).
  func writeSchemaChanges<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result {
    try pool.writeWithoutTransaction { connection in
      try connection.execute("PRAGMA foreign_keys = OFF")
      defer { try? connection.execute("PRAGMA foreign_keys = ON") }
      return try connection.transaction(.immediate) {
        try body(SQLiteStoreConnection.of(connection))
      }
    }
  }

  var changeCount: UInt64 { pool.changeCount }

  func observeChanges(_ handler: @escaping @Sendable (UInt64) -> Void) -> ChangeObservation {
    pool.observeChanges(handler)
  }
}
