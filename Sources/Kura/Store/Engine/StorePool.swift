import Foundation

/// The connections of one store (see ``StoreEngine``): reads, write transactions and the signal
/// that another process committed.
///
/// The methods keep ``DatabasePool``'s names. Each hands its body a ``StoreConnection`` for the
/// length of the call; a body must not keep it (nor statements prepared on it).
enum StorePool: Sendable {
  case sqlite(DatabasePool)
  #if canImport(CLibPQ)
    case postgres(PostgresStorePool)
  #endif

  /// The engine of this store.
  var engine: StoreEngine {
    switch self {
    case .sqlite: return .sqlite
    #if canImport(CLibPQ)
      case .postgres: return .postgres
    #endif
    }
  }

  /// Whether the store only reads (a file or folder that can't be written, opened for reading).
  var isReadOnly: Bool {
    switch self {
    case .sqlite(let pool): return pool.isReadOnly
    #if canImport(CLibPQ)
      case .postgres(let pool): return pool.isReadOnly
    #endif
    }
  }

  /// Whether the store lives in memory (one connection serves reads and writes).
  var isInMemory: Bool {
    switch self {
    case .sqlite(let pool): return pool.isInMemory
    #if canImport(CLibPQ)
      case .postgres: return false
    #endif
    }
  }

  /// Runs `body` on a reader connection; each statement sees the last committed state.
  func read<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
    switch self {
    case .sqlite(let pool): return try pool.read { try body(.sqlite($0)) }
    #if canImport(CLibPQ)
      case .postgres(let pool): return try pool.read(body)
    #endif
    }
  }

  /// Runs `body` on a reader connection inside one read transaction (one committed state).
  func readSnapshot<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
    switch self {
    case .sqlite(let pool): return try pool.readSnapshot { try body(.sqlite($0)) }
    #if canImport(CLibPQ)
      case .postgres(let pool): return try pool.readSnapshot(body)
    #endif
    }
  }

  /// Runs `body` on the writer inside one write transaction, committed when it returns and
  /// rolled back when it throws. On SQLite writers are serialized, across processes too; on
  /// PostgreSQL they run in parallel, and `body` runs again when it conflicted with another
  /// writer (so it must be Kura's own statements: a save, a trim).
  func write<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
    switch self {
    case .sqlite(let pool): return try pool.write { try body(.sqlite($0)) }
    #if canImport(CLibPQ)
      case .postgres(let pool): return try pool.write(body)
    #endif
    }
  }

  /// Runs `body` once in a write transaction that every other such transaction waits for,
  /// across processes too (``ModelContainer/write(_:)``): on SQLite any write transaction, on
  /// PostgreSQL ``PostgresStorePool/writeSerialized(_:)``.
  func writeSerialized<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
    switch self {
    case .sqlite(let pool): return try pool.write { try body(.sqlite($0)) }
    #if canImport(CLibPQ)
      case .postgres(let pool): return try pool.writeSerialized(body)
    #endif
    }
  }

  /// Runs `body` on the writer without opening a transaction.
  func writeWithoutTransaction<Result>(_ body: (StoreConnection) throws -> Result) throws
    -> Result
  {
    switch self {
    case .sqlite(let pool): return try pool.writeWithoutTransaction { try body(.sqlite($0)) }
    #if canImport(CLibPQ)
      case .postgres(let pool): return try pool.writeWithoutTransaction(body)
    #endif
    }
  }

  /// Runs `body` in one write transaction in which tables may be dropped and rebuilt without
  /// running their foreign-key actions (SQLite: `PRAGMA foreign_keys` is off around it). The
  /// body checks ``StoreConnection/foreignKeyViolations()`` before it returns when it rebuilt
  /// tables.
  func writeSchemaChanges<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
    switch self {
    case .sqlite(let pool):
      return try pool.writeWithoutTransaction { connection in
        try connection.execute("PRAGMA foreign_keys = OFF")
        defer { try? connection.execute("PRAGMA foreign_keys = ON") }
        return try connection.transaction(.immediate) { try body(.sqlite(connection)) }
      }
    #if canImport(CLibPQ)
      case .postgres(let pool): return try pool.writeSchemaChanges(body)
    #endif
    }
  }

  /// A number that changes with every commit to the store, by any process; compare two readings
  /// for equality.
  var changeCount: UInt64 {
    switch self {
    case .sqlite(let pool): return pool.changeCount
    #if canImport(CLibPQ)
      case .postgres(let pool): return pool.changeCount
    #endif
    }
  }

  /// Calls `handler` after commits to the store by any process, until the returned observation
  /// is cancelled or released (several quick commits may be reported once).
  func observeChanges(_ handler: @escaping @Sendable (UInt64) -> Void) -> ChangeObservation {
    switch self {
    case .sqlite(let pool): return pool.observeChanges(handler)
    #if canImport(CLibPQ)
      case .postgres(let pool): return pool.observeChanges(handler)
    #endif
    }
  }
}
