import Foundation

/// What the statements run inside ``StoreConnection/trackingRowChanges(in:_:)`` did to the rows
/// of one table: how many changes, and the operation and row of the last one.
enum StoreRowTracker {
  case sqlite(RowChangeTracker)
  #if canImport(CLibPQ)
    case postgres(PostgresRowTracker)
  #endif

  /// How many changes to the table were reported so far.
  @inline(__always)
  var count: Int {
    switch self {
    case .sqlite(let tracker): return tracker.count
    #if canImport(CLibPQ)
      case .postgres(let tracker): return tracker.count
    #endif
    }
  }

  /// The operation of the last reported change, `nil` before any.
  @inline(__always)
  var lastOperation: RowOperation? {
    switch self {
    case .sqlite(let tracker): return tracker.lastOperation
    #if canImport(CLibPQ)
      case .postgres(let tracker): return tracker.lastOperation
    #endif
    }
  }

  /// The integer primary key of the row the last change touched, when the table's key is an
  /// integer (SQLite: the rowid, which an `INTEGER PRIMARY KEY` is).
  @inline(__always)
  var lastIntegerKey: Int64 {
    switch self {
    case .sqlite(let tracker): return tracker.lastRowID
    #if canImport(CLibPQ)
      case .postgres(let tracker):
        if case .integer(let key) = tracker.lastKey { return key }
        return 0
    #endif
    }
  }
}

extension StoreConnection {
  // MARK: Saves

  /// Runs `body` with a tracker of the rows that statements on this connection insert, update
  /// or delete in `table` (how an upsert resolved: inserted or updated). Trackings do not nest.
  func trackingRowChanges<Result>(
    in table: String, _ body: (StoreRowTracker) throws -> Result
  ) throws -> Result {
    switch self {
    case .sqlite(let connection):
      return try connection.trackingRowChanges(in: table) { try body(.sqlite($0)) }
    #if canImport(CLibPQ)
      case .postgres(let connection):
        let tracker = PostgresRowTracker()
        connection.tracker = tracker
        defer { connection.tracker = nil }
        return try body(.postgres(tracker))
    #endif
    }
  }

  /// The primary key of the row the last change tracked by `tracker` touched (an upsert that
  /// matched a stored row by a unique attribute updated that row, which keeps its own id).
  func storedKey(ofLastChangeIn schema: ModelSchema, tracker: StoreRowTracker) throws
    -> SQLiteValue?
  {
    if schema.primaryKey.kind == .integer { return .integer(tracker.lastIntegerKey) }
    switch self {
    case .sqlite(let connection):
      return try connection.queryFirst(
        "SELECT \(quoteIdentifier(schema.primaryKey.name)) FROM \(schema.quotedTable) "
          + "WHERE rowid = ?", [.integer(tracker.lastIntegerKey)]
      ) { $0.value(at: 0) }
    #if canImport(CLibPQ)
      case .postgres:
        guard case .postgres(let tracker) = tracker else { return nil }
        return tracker.lastKey == .null ? nil : tracker.lastKey
    #endif
    }
  }

  // MARK: History

  /// Appends a row to `kura_history` and returns its token, larger than every token before it,
  /// and the oldest history row after the append when the engine read it in the same statement.
  func appendHistory(time: Double, models: String, changes: [UInt8]) throws -> (
    token: Int64, oldest: (token: Int64, time: Double)?
  ) {
    switch self {
    case .sqlite(let connection):
      let token = try SQLiteStoreEngine.appendHistory(
        time: time, models: models, changes: changes, connection)
      return (token, nil)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        let appended = try PostgresStoreEngine.appendHistory(
          time: time, models: models, changes: changes, connection)
        return (appended.token, appended.oldest)
    #endif
    }
  }

  /// The names of the models changed by the history rows after token `after` up to `through`
  /// (the `models` JSON array of each row, or the keys of its `changes` object for rows written
  /// before the array was).
  func changedModelNames(after: Int64, through: Int64) throws -> [String] {
    switch self {
    case .sqlite(let connection):
      return try SQLiteStoreEngine.changedModelNames(after: after, through: through, connection)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try PostgresStoreEngine.changedModelNames(
          after: after, through: through, connection.connection)
    #endif
    }
  }

  // MARK: Migrations

  /// Copies every row of `table` into `temporary` (a table made like the migrated model's):
  /// `expressions` (one per column of `columns`, over the old table's columns) give the values.
  /// `progress` is told how many rows were copied so far, after each batch.
  func copyRows(
    from table: String, into temporary: String, columns: String, expressions: [String],
    progress: (Int) -> Void
  ) throws {
    switch self {
    case .sqlite(let connection):
      try SQLiteStoreEngine.copyRows(
        from: table, into: temporary, columns: columns, expressions: expressions,
        progress: progress, connection)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        try PostgresStoreEngine.copyRows(
          from: table, into: temporary, columns: columns, expressions: expressions,
          progress: progress, connection.connection)
    #endif
    }
  }

  /// Replaces `table` (when it exists) with `temporary`, renamed to `table`; references from
  /// other tables to `table` stay valid.
  func replaceTable(_ table: String, with temporary: String) throws {
    switch self {
    case .sqlite(let connection):
      try connection.execute("DROP TABLE IF EXISTS \(quoteIdentifier(table))")
      try connection.execute(
        "ALTER TABLE \(quoteIdentifier(temporary)) RENAME TO \(quoteIdentifier(table))")
    #if canImport(CLibPQ)
      case .postgres(let connection):
        try PostgresStoreEngine.replaceTable(table, with: temporary, connection.connection)
    #endif
    }
  }

  /// Brings a store written in an older format of Kura's metadata (`format`) up to the current
  /// one, inside the setup transaction. Formats older than an engine's first store never exist
  /// on it.
  func upgradeStoreFormat(from format: Int, url: URL?) throws {
    switch self {
    case .sqlite(let connection):
      if format == 1 { try SQLiteFormatUpgrade.upgradeIfNeeded(connection, url: url) }
    #if canImport(CLibPQ)
      case .postgres:
        break  // PostgreSQL stores begin at format 2
    #endif
    }
  }

  // MARK: Search

  /// Whether the model's search index exists exactly as this version makes it (none when no
  /// column is searchable).
  func searchIndexIsCurrent(_ index: SearchIndex) throws -> Bool {
    switch self {
    case .sqlite(let connection): return try SQLiteSearchIndex(index).isCurrent(in: connection)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try PostgresSearchIndex(index).isCurrent(in: connection.connection)
    #endif
    }
  }

  /// Creates the model's search index (filled from the table, kept in step with it by every
  /// writer) when missing or made differently; drops it when no column is searchable.
  func prepareSearchIndex(_ index: SearchIndex) throws {
    switch self {
    case .sqlite(let connection): try SQLiteSearchIndex(index).prepare(connection)
    #if canImport(CLibPQ)
      case .postgres(let connection): try PostgresSearchIndex(index).prepare(connection.connection)
    #endif
    }
  }
}
