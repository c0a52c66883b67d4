import Foundation
import KuraBase
import KuraSQLite

/// One connection of an SQLite store (the SQLite engine's ``StoreConnection``): the driver's
/// ``Connection``, with the engine's introspection, history, migration and search steps
/// (``SQLiteStoreEngine``, ``SQLiteSearchIndex``, ``SQLiteFormatUpgrade``).
///
/// A pooled connection keeps its one adapter (``of(_:)``), so handing it to the store allocates
/// nothing, and the store's `any StoreConnection` is a class reference (copied with a retain,
/// not through a struct's value witnesses).
// Safety: a Connection is used by one thread at a time (see Connection), and so is its adapter.
package final class SQLiteStoreConnection: IntrospectedConnection, ConnectionCompanion,
  @unchecked Sendable
{
  package typealias Introspection = SQLiteStoreEngine

  /// The driver's connection. A pooled connection owns its adapter (``Connection/companion``),
  /// so the adapter refers back without keeping it alive; a body that kept the adapter beyond
  /// its pool operation (which ``StorePool`` forbids) stops at the first use after the
  /// connection closed (the connection says so when it goes: ``connectionClosed()``).
  @inline(__always)
  package var connection: Connection {
    precondition(
      isOpen,
      "A store connection was used after its pool operation ended; use the connection only "
        + "inside the closure the store's pool passes it to.")
    return rawConnection
  }
  // Unowned without reference counting (a checked `unowned` reference costs a retain and a
  // release per use, about 40 instructions, several times a save): `isOpen` guards it instead.
  private unowned(unsafe) let rawConnection: Connection
  /// Whether the connection is still open (it calls ``connectionClosed()`` when it goes).
  @exclusivity(unchecked) private var isOpen = true
  /// The connection when this adapter is its only owner (``standalone(_:)``), else `nil`.
  private let owned: Connection?

  private init(_ connection: Connection, owning: Bool) {
    self.rawConnection = connection
    self.owned = owning ? connection : nil
  }

  /// Called by the connection when it closes: every later use stops with a message.
  package func connectionClosed() { isOpen = false }

  /// The adapter of a pooled `connection`, made on its first use and kept by the connection.
  @inline(__always)
  package static func of(_ connection: Connection) -> SQLiteStoreConnection {
    // Safety: only this function sets a connection's companion, always to its adapter.
    if let made = connection.companion { return unsafeDowncast(made, to: Self.self) }
    let made = SQLiteStoreConnection(connection, owning: false)
    connection.companion = made
    return made
  }

  /// An adapter that owns `connection` (one opened outside any pool: inspecting a file); the
  /// connection closes when the adapter goes.
  package static func standalone(_ connection: Connection) -> SQLiteStoreConnection {
    SQLiteStoreConnection(connection, owning: true)
  }

  package var engine: any StoreEngine { SQLiteStoreEngine() }

  // MARK: Running SQL

  package func execute(_ sql: String) throws { try connection.execute(sql) }

  package func prepare(_ sql: String) throws -> any StoreStatement { try connection.prepare(sql) }

  @inline(__always)
  package func cachedStatement(_ sql: String) throws -> any StoreStatement {
    try connection.cachedStatement(sql)
  }

  @inline(__always)
  package func cachedStatementToRebind(_ sql: String) throws -> any StoreStatement {
    try connection.cachedStatementToRebind(sql)
  }

  package func run(_ sql: String, _ arguments: [DatabaseValue]) throws {
    try connection.run(sql, arguments)
  }

  package func query<Row>(
    _ sql: String, _ arguments: [DatabaseValue], row: (any StoreStatement) throws -> Row
  ) throws -> [Row] {
    try connection.query(sql, arguments) { try row($0) }
  }

  package func queryFirst<Row>(
    _ sql: String, _ arguments: [DatabaseValue], row: (any StoreStatement) throws -> Row
  ) throws -> Row? {
    try connection.queryFirst(sql, arguments) { try row($0) }
  }

  // MARK: State

  package var changes: Int { connection.changes }

  package var totalChanges: Int64 { connection.totalChanges }

  package var isInTransaction: Bool { connection.isInTransaction }

  // MARK: Transactions

  /// `.write` is `BEGIN IMMEDIATE` (the write lock at once), `.read` `BEGIN DEFERRED`.
  package func transaction<Result>(_ kind: StoreTransactionKind, _ body: () throws -> Result) throws
    -> Result
  {
    try connection.transaction(kind == .write ? .immediate : .deferred, body)
  }

  package func savepoint<Result>(_ body: () throws -> Result) throws -> Result {
    try connection.savepoint(body)
  }

  // MARK: Introspection: IntrospectedConnection, over SQLiteStoreEngine's reads

  package var hasForeignKeyViolations: Bool { connection.hasForeignKeyViolations }

  package func integrityProblems() throws -> [String] {
    try SQLiteStoreEngine.integrityProblems(connection)
  }

  package func recordedColumnsText(table: String, model: String) throws -> String? {
    try SQLiteStoreEngine.recordedColumnsText(table: table, model: model, connection)
  }

  package func textKeyComparesLikeSwift(table: String) throws -> Bool {
    try SQLiteFormatUpgrade.primaryKeyCollation(table, connection) == SwiftStringSQL.collation
  }

  package func equivalentTextKeys(table: String, key: String) throws -> [String] {
    try SQLiteFormatUpgrade.equivalentKeys(table: table, key: key, connection)
  }

  // MARK: Saves

  package func trackingRowChanges<Result>(
    in table: String, _ body: (any StoreRowTracker) throws -> Result
  ) throws -> Result {
    try connection.trackingRowChanges(in: table) { try body($0) }
  }

  /// An integer key is the rowid the tracker saw; any other key is read by that rowid.
  package func storedKey(ofLastChangeIn schema: ModelSchema, tracker: any StoreRowTracker) throws
    -> DatabaseValue?
  {
    if schema.primaryKey.kind == .integer { return .integer(tracker.lastIntegerKey) }
    return try connection.queryFirst(
      "SELECT \(quoteIdentifier(schema.primaryKey.name)) FROM \(schema.quotedTable) "
        + "WHERE rowid = ?", [.integer(tracker.lastIntegerKey)]
    ) { $0.value(at: 0) }
  }

  // MARK: History

  package func appendHistory(
    time: Double, models: String, changes: [UInt8], readingOldest: Bool
  ) throws -> (
    token: Int64, oldest: (token: Int64, time: Double)?
  ) {
    let token = try SQLiteStoreEngine.appendHistory(
      time: time, models: models, changes: changes, connection)
    return (token, nil)
  }

  package func changedModelNames(after: Int64, through: Int64) throws -> [String] {
    try SQLiteStoreEngine.changedModelNames(after: after, through: through, connection)
  }

  // MARK: Migrations

  package func copyRows(
    from table: String, into temporary: String, columns: String, expressions: [String],
    progress: (Int) -> Void
  ) throws {
    try SQLiteStoreEngine.copyRows(
      from: table, into: temporary, columns: columns, expressions: expressions,
      progress: progress, connection)
  }

  package func dropTable(_ table: String) throws {
    try connection.execute("DROP TABLE \(quoteIdentifier(table))")
  }

  package func replaceTable(_ table: String, with temporary: String) throws {
    try connection.execute("DROP TABLE IF EXISTS \(quoteIdentifier(table))")
    try connection.execute(
      "ALTER TABLE \(quoteIdentifier(temporary)) RENAME TO \(quoteIdentifier(table))")
  }

  /// Format 1 (text keys compared by bytes) is brought up to format 2.
  package func upgradeStoreFormat(from format: Int, url: URL?) throws {
    if format == 1 { try SQLiteFormatUpgrade.upgradeIfNeeded(connection, url: url) }
  }

  // MARK: Search

  package func searchIndexIsCurrent(_ index: SearchIndex) throws -> Bool {
    try SQLiteSearchIndex(index).isCurrent(in: connection)
  }

  package func prepareSearchIndex(_ index: SearchIndex) throws {
    try SQLiteSearchIndex(index).prepare(connection)
  }
}
