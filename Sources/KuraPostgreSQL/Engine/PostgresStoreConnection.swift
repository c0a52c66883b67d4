import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  /// One connection of a PostgreSQL store (the engine's ``StoreConnection``): the libpq
  /// connection with what the store keeps per connection — the row tracker of the save under
  /// way, the id of the open write transaction and the token of its history row.
  // Safety: used by one thread at a time, inside a pool operation (as the SQLite `Connection`).
  package final class PostgresStoreConnection: @unchecked Sendable {
    /// The libpq connection.
    package let connection: PostgresConnection
    /// The row tracker of ``StoreConnection/trackingRowChanges(in:_:)``, while one runs.
    @exclusivity(unchecked) package var tracker: PostgresRowTracker?
    /// The token of the last history row the open write transaction appended: the pool
    /// notifies the store's channel with it after the commit
    /// (``PostgresStorePool/notifySQL``).
    @exclusivity(unchecked) package var pendingNotification: Int64?
    /// The id and backend of the open write transaction (how a commit whose outcome the
    /// broken connection hid is resolved; see ``PostgresStorePool``).
    @exclusivity(unchecked) package var pendingTransaction: PostgresStorePool.PendingTransaction?
    /// The transaction (its id) that last appended history on this connection, and the number
    /// its next history row takes (``PostgresStoreEngine/appendHistory(time:models:changes:readingOldest:_:)``).
    @exclusivity(unchecked) package var historyRows: (transaction: Int64, next: Int64)?
    /// The commit marker of the open write transaction: the pool's writer id and the
    /// transaction's commit id (``PostgresStorePool/commitMarkerSQL(commitID:)``), which a
    /// history row appended in it carries; `nil` outside the pool's write transactions.
    @exclusivity(unchecked) package var commitMarker: (writer: String, commitID: UUID)?
    /// The transaction (its id) whose history row carries ``commitMarker``'s commit id, the
    /// connection's ``PostgresConnection/rollbacksToSavepoint`` then, and the row's token:
    /// while the first two are unchanged, the row stands as the commit's marker and the commit
    /// need not write one.
    @exclusivity(unchecked) package var markedBy:
      (transaction: Int64, rollbacks: Int, token: Int64)?
    /// The tables whose last bulk save of 16 to 63 rows met stored rows: the next such save
    /// sends its upserts in one pipeline at once, without trying a copy first
    /// (``PostgresBulkUpsert``).
    @exclusivity(unchecked) package var bulkSavesUpdate: Set<String> = []
    /// The history branch offset of this connection's session (its
    /// ``PostgresSession/generation``), once a write transaction that read it committed.
    @exclusivity(unchecked) package var historyOffset: (generation: Int, offset: Int64)?
    /// The offset the open write transaction read, kept in ``historyOffset`` when it commits.
    @exclusivity(unchecked) package var pendingHistoryOffset: (generation: Int, offset: Int64)?
    /// The channel writers notify after appending history (see ``PostgresStorePool``).
    package let channel: String
    /// The pool's schema generation this connection's statement cache was made in.
    package var schemaGeneration = 0 {
      didSet { hasForeignKeys = nil }
    }
    /// Whether the schema has foreign keys (learnt on first need, forgotten when the schema
    /// changes): a save in a schema without any skips checking them.
    @exclusivity(unchecked) package var hasForeignKeys: Bool?

    package init(connection: PostgresConnection, channel: String) {
      self.connection = connection
      self.channel = channel
    }

    /// Rows changed by this connection since it opened.
    package var totalChanges: Int64 { connection.totalChanges }

    /// Kura's first key of `pg_advisory_xact_lock` ("KURA"); the second is the hash of the
    /// store's schema.
    package static let lockKey: Int64 = 0x4B55_5241

    /// Takes the store's lock exclusively for the open transaction.
    package static let lockSQL = "SELECT pg_advisory_xact_lock(?, hashtext(current_schema()))"

    /// Runs `body` in a transaction: `.write` takes the store's lock exclusively (``lockSQL``),
    /// `.read` is `REPEATABLE READ`; inside a transaction, a savepoint.
    package func transaction<Result>(_ kind: StoreTransactionKind, _ body: () throws -> Result)
      throws
      -> Result
    {
      if connection.isInTransaction { return try connection.savepoint(body) }
      switch kind {
      case .read:
        return try connection.transaction(.repeatableRead, body)
      case .write:
        return try connection.transaction(.readCommitted) {
          try connection.run(Self.lockSQL, [.integer(Self.lockKey)])
          return try body()
        }
      }
    }

    /// Runs SQL without parameters; a `CREATE [UNIQUE] INDEX` also records its own text as
    /// the index's comment (``PostgresStoreEngine/execute(_:_:)``).
    package func execute(_ sql: String) throws {
      try PostgresStoreEngine.execute(sql, connection)
    }
  }

  /// What the upserts and deletes of one save did to one table (the PostgreSQL engine's
  /// ``StoreRowTracker``): the upsert statement returns `kura_op` (1 inserted, 2 updated) and
  /// the row's key; a delete reports how many rows it removed.
  package final class PostgresRowTracker: StoreRowTracker, @unchecked Sendable {
    /// How many changes were reported.
    package var count = 0
    /// The operation of the last change.
    @exclusivity(unchecked) package var lastOperation: RowOperation?
    /// The primary key of the row the last upsert touched.
    @exclusivity(unchecked) package var lastKey: DatabaseValue = .null

    /// The last key when it is an integer, else 0.
    package var lastIntegerKey: Int64 {
      if case .integer(let key) = lastKey { return key }
      return 0
    }

    /// Runs `statement` (an upsert or delete of the tracked table) and records what it did.
    package func execute(_ statement: PostgresStatement, on connection: PostgresConnection) throws {
      defer { statement.rewind() }
      if try statement.step() {
        if statement.columnCount >= 2, statement.columnName(at: 0) == "kura_op" {
          count += 1
          lastOperation = statement.int64(at: 0) == 1 ? .insert : .update
          lastKey = statement.value(at: 1)
        }
        return
      }
      let changed = connection.changes
      if changed > 0, statement.sql.hasPrefix("DELETE") {
        count += changed
        lastOperation = .delete
      }
    }
  }
#endif
