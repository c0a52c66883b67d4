import Foundation

/// The connections of one SQLite store (the SQLite engine's ``StorePool``): the driver's
/// ``DatabasePool`` (one writer, idle readers, the change signal of the file), each connection
/// handed to the store as an ``SQLiteStoreConnection``.
struct SQLiteStorePool: StorePool {
  /// The driver's pool.
  let pool: DatabasePool

  var engine: any StoreEngine { SQLiteStoreEngine() }

  var isReadOnly: Bool { pool.isReadOnly }

  var isInMemory: Bool { pool.isInMemory }

  func read<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result {
    try pool.read { try body(SQLiteStoreConnection(connection: $0)) }
  }

  func readSnapshot<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result {
    try pool.readSnapshot { try body(SQLiteStoreConnection(connection: $0)) }
  }

  func write<Result>(_ body: (any StoreConnection) throws -> Result) throws -> Result {
    try pool.write { try body(SQLiteStoreConnection(connection: $0)) }
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
        try body(SQLiteStoreConnection(connection: connection))
      }
    }
  }

  var changeCount: UInt64 { pool.changeCount }

  func observeChanges(_ handler: @escaping @Sendable (UInt64) -> Void) -> ChangeObservation {
    pool.observeChanges(handler)
  }
}
