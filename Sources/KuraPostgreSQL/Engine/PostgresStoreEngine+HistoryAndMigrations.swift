import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  extension PostgresStoreEngine {
    // MARK: History

    /// Appends the row whose token is the transaction's id plus its history branch's offset
    /// (``historyOffsetFunctionSQL``), times ``tokensPerTransaction``, plus its number among
    /// the transaction's rows; the pool notifies the
    /// store's channel once the transaction has committed
    /// (``PostgresStorePool/notifySQL``).
    /// With `readingOldest`, also returns the oldest history row before the append (else the
    /// new row), so the history trim needs no statement of its own; without, the statement
    /// reads no other row and the oldest is `nil`.
    package static func appendHistory(
      time: Double, models: String, changes: [UInt8], readingOldest: Bool,
      _ db: PostgresStoreConnection
    ) throws -> (token: Int64, oldest: (token: Int64, time: Double)?) {
      // The row's number in its transaction: counted here when the transaction's id is known
      // (a write's begin takes it), else found by the server among the rows it appended.
      // The pool's write transactions also write their commit marker with it (the commit
      // then need not).
      let transaction = db.connection.transactionID
      let number: Int64?
      if let transaction {
        if let last = db.historyRows, last.transaction == transaction {
          number = last.next
        } else {
          number = 0
        }
        db.historyRows = (transaction, (number ?? 0) + 1)
      } else {
        number = nil
      }
      let marker = number == nil ? nil : db.commitMarker
      // The branch offset of a numbered row: known to this connection once a transaction of its
      // session that read it committed (a session's branch never changes while it writes),
      // else read now and kept when this transaction commits.
      var offset: Int64 = 0
      if number != nil {
        let generation = db.connection.session.generation
        if let known = db.historyOffset, known.generation == generation {
          offset = known.offset
        } else {
          let read = try db.connection.cachedStatement(historyOffsetSQL)
          defer { read.rewind() }
          guard try read.step() else {
            throw PostgresError(
              code: .other, message: "kura_history_offset() returned no row",
              server: db.connection.location.description, sql: read.sql)
          }
          offset = read.int64(at: 0)
          db.pendingHistoryOffset = (generation, offset)
        }
      }
      if let number, number >= tokensPerTransaction {
        throw tooManySaves(db, sql: appendNumberedHistorySQL)
      }
      // Most saves: the token from the transaction's id the begin returned, the branch offset
      // and the row's number, made here; the row goes with a plain INSERT that returns nothing.
      if let number, !readingOldest, let transaction {
        let token = (transaction + offset) * tokensPerTransaction + number
        let statement = try db.connection.cachedStatement(
          marker == nil ? insertNumberedHistorySQL : insertMarkedHistorySQL)
        try statement.bind(token, at: 1)
        try statement.bind(time, at: 2)
        try statement.bind(models, at: 3)
        try statement.bind(bytes: changes, at: 4)
        if let marker { try statement.bind(uuid: marker.commitID, at: 5) }
        try statement.execute()
        db.pendingNotification = token
        if marker != nil { db.markedBy = (transaction, db.connection.rollbacksToSavepoint, token) }
        return (token, nil)
      }
      let sql =
        number == nil
        ? appendHistorySQL : marker == nil ? appendNumberedHistorySQL : appendMarkedHistorySQL
      let statement = try db.connection.cachedStatement(sql)
      defer { statement.rewind() }
      try statement.bind(time, at: 1)
      try statement.bind(models, at: 2)
      try statement.bind(bytes: changes, at: 3)
      if let number {
        try statement.bind(number, at: 4)
        try statement.bind(offset, at: 5)
      }
      if let marker {
        try statement.bind(uuid: marker.commitID, at: 6)
      }
      guard try statement.step() else {
        throw PostgresError(
          code: .other, message: "appending to kura_history returned no token",
          server: db.connection.location.description, sql: statement.sql)
      }
      guard statement.int64(at: 4) < tokensPerTransaction else {
        throw tooManySaves(db, sql: statement.sql)
      }
      db.pendingNotification = statement.int64(at: 0)
      if marker != nil, let transaction {
        db.markedBy = (transaction, db.connection.rollbacksToSavepoint, statement.int64(at: 0))
      }
      return (statement.int64(at: 0), (statement.int64(at: 2), statement.double(at: 3)))
    }

    /// The error of a transaction that appended more history rows than its tokens have room
    /// for (``tokensPerTransaction``).
    private static func tooManySaves(_ db: PostgresStoreConnection, sql: String) -> PostgresError {
      PostgresError(
        code: .other,
        message:
          "one transaction saved more than \(tokensPerTransaction) times; save fewer times "
          + "inside one `ModelContainer.write` (each save adds a history row)",
        server: db.connection.location.description, sql: sql)
    }

    /// The statement of ``appendHistory(time:models:changes:readingOldest:_:)``, built once (the statement
    /// cache then finds it by its storage, without hashing the text).
    package static let appendHistorySQL =
      "WITH kura_xact AS (SELECT (txid_current() + kura_history_offset()) * "
      + "\(tokensPerTransaction) AS base), kura_row AS (INSERT INTO kura_history (token, "
      + "time, models, changes) SELECT coalesce((SELECT max(h.token) + 1 FROM "
      + "kura_history h WHERE h.token >= x.base AND h.token < x.base + "
      + "\(tokensPerTransaction)), x.base), ?, ?, ? FROM kura_xact x RETURNING token, "
      + "time) SELECT kura_row.token, 0, "
      + "coalesce(kura_oldest.token, kura_row.token), coalesce(kura_oldest.time, "
      + "kura_row.time), kura_row.token - (SELECT base FROM kura_xact) FROM kura_row LEFT "
      + "JOIN (SELECT token, time FROM kura_history ORDER BY token LIMIT 1) AS kura_oldest "
      + "ON true"

    /// Reads the session's branch offset (``historyOffsetFunctionSQL``).
    package static let historyOffsetSQL = "SELECT kura_history_offset()"

    /// ``appendHistorySQL`` with the row's number in its transaction (`?4`) and the branch
    /// offset (`?5`, ``historyOffsetSQL``) given, so the server looks for none of the
    /// transaction's earlier rows and runs no function.
    package static let appendNumberedHistorySQL =
      "WITH kura_row AS (INSERT INTO kura_history (token, time, models, changes) VALUES "
      + "((txid_current() + ?5) * \(tokensPerTransaction) + ?4, ?1, ?2, ?3) "
      + "RETURNING token, time) "
      + "SELECT kura_row.token, 0, coalesce(kura_oldest.token, kura_row.token), "
      + "coalesce(kura_oldest.time, kura_row.time), ?4 FROM kura_row LEFT JOIN (SELECT token, "
      + "time FROM kura_history ORDER BY token LIMIT 1) AS kura_oldest ON true"

    /// A history row whose token the connection made (the transaction's id from its begin,
    /// plus the branch offset, times ``tokensPerTransaction``, plus the row's number): `?1`
    /// the token, then the time, the models and the change set. Returns nothing (a save whose
    /// trim needs no oldest row, `ChangeHistory.TrimPlan`).
    package static let insertNumberedHistorySQL =
      "INSERT INTO kura_history (token, time, models, changes) VALUES (?, ?, ?, ?)"

    /// ``insertNumberedHistorySQL`` whose row carries the transaction's commit id (the fifth
    /// parameter; ``appendMarkedHistorySQL``).
    package static let insertMarkedHistorySQL =
      "INSERT INTO kura_history (token, time, models, changes, commit_id) VALUES "
      + "(?, ?, ?, ?, CAST(? AS uuid))"

    /// ``appendNumberedHistorySQL`` whose row carries the transaction's commit id `?6`
    /// (``CommitIDSource``): the row is the transaction's commit marker
    /// (``PostgresStorePool/committed(_:after:)``).
    package static let appendMarkedHistorySQL =
      "WITH kura_row AS (INSERT INTO kura_history (token, time, models, changes, commit_id) "
      + "VALUES ((txid_current() + ?5) * \(tokensPerTransaction) + ?4, ?1, ?2, ?3, "
      + "CAST(?6 AS uuid)) RETURNING token, time) "
      + "SELECT kura_row.token, 0, coalesce(kura_oldest.token, kura_row.token), "
      + "coalesce(kura_oldest.time, kura_row.time), ?4 FROM kura_row LEFT JOIN (SELECT token, "
      + "time FROM kura_history ORDER BY token LIMIT 1) AS kura_oldest ON true"

    /// The model names of the history rows after `after` up to `through`.
    package static func changedModelNames(after: Int64, through: Int64, _ db: PostgresConnection)
      throws
      -> [String]
    {
      try db.query(
        "SELECT DISTINCT name FROM kura_history, json_array_elements_text(CAST(models AS json)) "
          + "AS name WHERE token > ? AND token <= ?",
        [.integer(after), .integer(through)]
      ) { $0.string(at: 0) }
    }

    // MARK: Migrations

    /// Drops `table`, first detaching the readable views from it
    /// (``detachReadableViews(_:)``), which PostgreSQL would otherwise keep it for.
    package static func dropTable(_ table: String, _ db: PostgresConnection) throws {
      try detachReadableViews(db)
      try db.execute("DROP TABLE \(quoteIdentifier(table))")
    }

    /// Whether `table` has the hidden ``rowColumn``.
    package static func hasRowColumn(_ table: String, _ db: PostgresConnection) throws -> Bool {
      try db.queryFirst(
        "SELECT 1 \(inSchema(joining: "JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid "))"
          + " AND c.relname = ? AND a.attname = '\(rowColumn)' AND NOT a.attisdropped",
        [stored(table)]
      ) { _ in true } ?? false
    }

    /// Copies in batches of 50,000 paged by ``rowColumn``, keeping each row's number (so rows
    /// keep their order); a table without it (not made by Kura) in one statement.
    package static func copyRows(
      from table: String, into temporary: String, columns: String, expressions: [String],
      progress: (Int) -> Void, _ db: PostgresConnection
    ) throws {
      let select = expressions.joined(separator: ", ")
      guard try hasRowColumn(table, db), try hasRowColumn(temporary, db) else {
        try db.execute(
          "INSERT INTO \(quoteIdentifier(temporary)) (\(columns)) SELECT \(select) FROM "
            + quoteIdentifier(table))
        if db.changes > 0 { progress(db.changes) }
        return
      }
      let copy = try db.prepare(
        "WITH kura_copied AS (INSERT INTO \(quoteIdentifier(temporary)) (\(rowColumn), \(columns)) "
          + "SELECT \(rowColumn), \(select) FROM \(quoteIdentifier(table)) WHERE \(rowColumn) > ? "
          + "ORDER BY \(rowColumn) LIMIT \(BatchedCopy.batchSize) RETURNING \(rowColumn)) "
          + "SELECT count(*), max(\(rowColumn)) FROM kura_copied")
      try BatchedCopy.run(progress: progress) { last in
        copy.reset()
        try copy.bind(last ?? .min, at: 1)
        guard try copy.step() else { return (0, nil) }
        defer { copy.rewind() }
        return (Int(copy.int64(at: 0)), copy.isNull(at: 1) ? nil : copy.int64(at: 1))
      }
    }

    /// Replaces `table` with `temporary`: the readable views are detached
    /// (``detachReadableViews(_:)``), the foreign keys of other tables that point at `table`
    /// dropped, `table` is dropped, `temporary` renamed, and those keys made again (checked at
    /// commit, as they are deferred; the views at the end of the schema change).
    package static func replaceTable(
      _ table: String, with temporary: String, _ db: PostgresConnection
    )
      throws
    {
      var referring: [(table: String, name: String, definition: String)] = []
      if try tableExists(table, db) {
        for other in try schemaObjects(db).filter({ $0.kind == "table" }).map(\.name)
        where other != table {
          for constraint in try foreignKeyConstraints(of: other, db)
          where constraint.key.targetTable == table {
            referring.append((other, constraint.name, constraint.definition))
          }
        }
      }
      try detachReadableViews(db)
      // Checks waiting for the commit would keep the tables from being altered: run them now.
      try db.execute("SET CONSTRAINTS ALL IMMEDIATE")
      try db.execute("SET CONSTRAINTS ALL DEFERRED")
      for key in referring {
        try db.execute(
          "ALTER TABLE \(quoteIdentifier(key.table)) DROP CONSTRAINT \(quoteIdentifier(key.name))")
      }
      try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(table))")
      try db.execute(
        "ALTER TABLE \(quoteIdentifier(temporary)) RENAME TO \(quoteIdentifier(table))")
      // The primary key's index is named after the temporary table; index names are unique in
      // the schema, so it takes the table's name (the next rebuild uses the temporary name).
      let primaryKey = try db.queryFirst(
        "SELECT k.conname "
          + inSchema("pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid")
          + " AND c.relname = ? AND k.contype = 'p'", [stored(table)]
      ) { $0.string(at: 0) }
      if let primaryKey, primaryKey != PostgresIdentifier.fitted(table + "_pkey") {
        try db.execute(
          "ALTER TABLE \(quoteIdentifier(table)) RENAME CONSTRAINT \(quoteIdentifier(primaryKey)) "
            + "TO \(quoteIdentifier(table + "_pkey"))")
      }
      for key in referring {
        try db.execute(
          "ALTER TABLE \(quoteIdentifier(key.table)) ADD CONSTRAINT \(quoteIdentifier(key.name)) "
            + key.definition)
      }
    }
  }
#endif
