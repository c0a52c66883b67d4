import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  /// A save's many upserts of one model at `COPY` speed (the PostgreSQL engine's bulk path):
  /// the rows are sent with one `COPY … FROM STDIN (FORMAT binary)` straight into the model's
  /// table, after a savepoint — one round trip for the whole batch, where the row-by-row path
  /// takes one per row. When that copy meets a stored id or unique value (a unique violation),
  /// it is undone to the savepoint and the rows go to a temporary staging table by a second
  /// copy, then one `INSERT … SELECT … ON CONFLICT (id) DO UPDATE … RETURNING (xmax = 0), id`
  /// writes them all.
  ///
  /// It runs for a save that changes at least ``minimumRows`` rows of one model and deletes
  /// none of them (the staging table only from ``minimumStagedRows`` rows on: a smaller save
  /// whose copy met a stored row goes row by row), and gives the same outcome as running the
  /// upserts one by one:
  /// - Each id's last upsert is written, in the order of its first (the order rows are stored
  ///   in, which fetches without a sort follow).
  /// - A row the statement inserted has `xmax = 0`; one it updated doesn't: that is what the
  ///   change set reports as inserted or updated (as the row-by-row path's `kura_op`). A model
  ///   with only an id is `DO NOTHING` for a stored row, reported updated.
  /// - Unique attributes: a staged row whose unique values match a stored row with another id
  ///   (which the row-by-row upsert updates in place, keeping its id), or another staged row,
  ///   makes the save take the row-by-row path instead (checked in one query after the copy;
  ///   a writer that inserts a match meanwhile makes the insert fail with a unique violation,
  ///   and the pool runs the save again, which then finds it).
  /// - A value bound in text form (a fraction bound to an integer column, which the server
  ///   rounds) can't go in a binary copy: the save takes the row-by-row path, before anything
  ///   was sent.
  /// - History, delete rules and the search index are the save's, as on the row-by-row path;
  ///   an error (a constraint, a lost connection) is the save's error, with the same commit
  ///   outcome rules (the copy runs inside the save's transaction).
  package enum PostgresBulkUpsert {
    /// The fewest rows a save copies straight into the table. The copy (a savepoint, the copy,
    /// its release) costs about what a few upserts do, and when it meets a stored row it is
    /// undone and the rows go row by row after all; from this many rows on, saving new rows
    /// gains more than updating stored rows loses.
    package static let minimumCopiedRows = 16

    /// The fewest rows a save writes through the bulk path: below ``minimumCopiedRows`` (and
    /// when the copy met a stored row, below ``minimumStagedRows``) the row-by-row upserts are
    /// sent together in one round trip (``PostgresStatement/executeBatch(count:bind:read:)``),
    /// where the row-by-row path waits for each.
    package static let minimumRows = 2

    /// The fewest rows a save writes through the staging table when the straight copy met a
    /// stored row. Below it, the save goes row by row instead (after the failed copy): the
    /// staging table's `TRUNCATE`, its copy and the `INSERT … ON CONFLICT` cost more than a
    /// few upserts. `kura-bench postgres --part store` measures both crossings (see the article
    /// "Scaling Out with PostgreSQL").
    package static let minimumStagedRows = 64

    /// Writes `rowCount` rows of `schema` (``StoreConnection/bulkUpsert(_:rowCount:bindRow:)``:
    /// `bindRow` binds row `i` to the statement it is given) in one copy; `nil` (nothing
    /// written) when the row-by-row path must run instead.
    package static func write(
      _ schema: ModelSchema, rowCount: Int, on db: PostgresStoreConnection,
      bindRow: (Int, any StoreStatement) throws -> Void
    ) throws -> StoreBulkOutcome? {
      guard rowCount >= minimumRows else { return nil }
      // Below the staging table's threshold, a model whose last copy met stored rows (saves
      // that update) is pipelined at once, without a copy that would be undone; one whose
      // pipelined upserts all inserted is copied again.
      let updating = db.bulkSavesUpdate.contains(schema.tableName)
      guard rowCount >= minimumCopiedRows, !(updating && rowCount < minimumStagedRows) else {
        return try pipelined(schema, rowCount: rowCount, on: db, bindRow: bindRow)
      }
      let sql = SQL(schema)
      let parameters = try db.connection.cachedStatement(sql.parameters)
      let statement = PostgresStoreStatement(statement: parameters, connection: db)
      let rows = PostgresCopyRows(capacity: rowCount * (16 + 12 * schema.columns.count))
      for index in 0..<rowCount {
        try bindRow(index, statement)
        guard parameters.appendBoundValues(to: rows) else {
          parameters.reset()
          guard rowCount < minimumStagedRows else { return nil }
          return try pipelined(schema, rowCount: rowCount, on: db, bindRow: bindRow)
        }
      }
      parameters.reset()
      // Straight into the table when every row is new (the common bulk load): no second
      // statement. A stored id or unique value fails the copy, which is undone to its
      // savepoint, and the rows go through the staging table.
      do {
        _ = try db.connection.copyIn(sql.direct, rows: rows)
        try db.connection.execute("RELEASE SAVEPOINT kura_bulk_copy")
        return .allInserted
      } catch let error as PostgresError where error.code == .uniqueViolation {
        try db.connection.execute(
          "ROLLBACK TO SAVEPOINT kura_bulk_copy; RELEASE SAVEPOINT kura_bulk_copy")
        db.bulkSavesUpdate.insert(schema.tableName)
      }
      guard rowCount >= minimumStagedRows else {
        return try pipelined(schema, rowCount: rowCount, on: db, bindRow: bindRow)
      }
      _ = try db.connection.copyIn(sql.stage, rows: rows)
      if let conflicts = sql.uniqueConflicts {
        let matched = try db.connection.queryFirst(conflicts) { $0.int64(at: 0) != 0 } ?? false
        if matched {
          try db.connection.execute("TRUNCATE \(sql.table)")
          return nil
        }
      }
      var inserted: [DatabaseValue] = []
      let upsert = try db.connection.cachedStatement(sql.upsert)
      defer { upsert.rewind() }
      while try upsert.step() {
        if upsert.int64(at: 0) != 0 { inserted.append(upsert.value(at: 1)) }
      }
      return .inserted(inserted)
    }

    /// Runs the row-by-row upsert for each row in one round trip, and reports what each did
    /// (its result row: `kura_op`, 1 inserted or 2 updated, and the stored key; none when it
    /// changed nothing).
    private static func pipelined(
      _ schema: ModelSchema, rowCount: Int, on db: PostgresStoreConnection,
      bindRow: (Int, any StoreStatement) throws -> Void
    ) throws -> StoreBulkOutcome {
      let upsert = try db.connection.cachedStatement(schema.upsertSQL(for: db.engine))
      let statement = PostgresStoreStatement(statement: upsert, connection: db)
      var results = [StoreBulkRow?](repeating: nil, count: rowCount)
      try upsert.executeBatch(count: rowCount) { row in
        try bindRow(row, statement)
      } read: { row in
        results[row] = StoreBulkRow(inserted: upsert.int64(at: 0) == 1, key: upsert.value(at: 1))
      }
      if rowCount >= minimumCopiedRows, results.allSatisfy({ $0?.inserted == true }) {
        db.bulkSavesUpdate.remove(schema.tableName)
      }
      return .eachRow(results)
    }

    /// The bulk path's SQL for one model's table.
    package struct SQL {
      /// The staging table: `pg_temp.kura_bulk_` and a hash of the table's name and columns
      /// (a migrated model stages in a table of its new shape).
      package let table: String
      /// A statement never run, whose parameters have the staged columns' types: the encoder
      /// binds a model to it, and its binary values are the copy's fields.
      package let parameters: String
      /// Starts the copy of the rows straight into the model's table, after a savepoint.
      package let direct: String
      /// Creates the staging table when this connection has none, empties it, and starts the
      /// copy (one round trip); `kura_n` numbers the rows in the order they were sent.
      package let stage: String
      /// Whether a staged row's unique values match a stored row with another id or another
      /// staged row (`nil` without unique attributes).
      package let uniqueConflicts: String?
      /// The insert of the staged rows, returning `xmax = 0` (inserted) and the id of each.
      package let upsert: String

      package init(_ schema: ModelSchema) {
        let columns = schema.columns
        let names = columns.map { quoteIdentifier($0.name) }
        let key = names[schema.primaryKeyIndex]
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let shape =
          "2\u{0}" + schema.tableName + "\u{0}"
          + columns.map { "\($0.name) \($0.kind)" }.joined(separator: ",")
        for byte in shape.utf8 {
          hash ^= UInt64(byte)
          hash = hash &* 0x100_0000_01b3
        }
        table = "pg_temp.kura_bulk_" + String(hash, radix: 16)
        parameters =
          "SELECT "
          + columns.enumerated().map { "CAST(?\($0.offset + 1) AS \(Self.type($0.element.kind)))" }
          .joined(separator: ", ")
        let definitions = zip(names, columns).map {
          "\($0) \(PostgresStoreEngine.columnType($1.kind))"
        }
        let list = names.joined(separator: ", ")
        let target = schema.quotedTable
        direct =
          "SAVEPOINT kura_bulk_copy; COPY \(target) (\(list)) FROM STDIN (FORMAT binary)"
        stage =
          "CREATE TEMPORARY TABLE IF NOT EXISTS \(table) (kura_n BIGINT GENERATED ALWAYS AS "
          + "IDENTITY, " + definitions.joined(separator: ", ") + "); TRUNCATE \(table); COPY "
          + "\(table) (\(list)) FROM STDIN (FORMAT binary)"
        if schema.uniqueConstraints.isEmpty {
          uniqueConflicts = nil
        } else {
          var checks: [String] = []
          for constraint in schema.uniqueConstraints {
            func value(_ row: String, _ index: Int) -> String {
              let column = "\(row).\(names[index])"
              return columns[index].valueType == String.self ? "kura_key(\(column))" : column
            }
            let match = constraint.map { "\(value(target, $0)) = \(value("s", $0))" }
              .joined(separator: " AND ")
            checks.append(
              "EXISTS (SELECT 1 FROM \(table) s JOIN \(target) ON \(match) WHERE "
                + "\(target).\(key) <> s.\(key))")
            let present = constraint.map { "s.\(names[$0]) IS NOT NULL" }
              .joined(separator: " AND ")
            let values = constraint.map { value("s", $0) }.joined(separator: ", ")
            checks.append(
              "EXISTS (SELECT 1 FROM \(table) s WHERE \(present) GROUP BY \(values) HAVING "
                + "count(*) > 1)")
          }
          uniqueConflicts = "SELECT " + checks.joined(separator: " OR ")
        }
        let others = names.indices.filter { $0 != schema.primaryKeyIndex }.map { names[$0] }
        let onConflict =
          others.isEmpty
          ? "DO NOTHING"
          : "DO UPDATE SET " + others.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        upsert =
          "INSERT INTO \(target) (\(list)) SELECT \(list) FROM \(table) ORDER BY kura_n "
          + "ON CONFLICT (\(key)) \(onConflict) RETURNING (xmax = 0), \(key)"
      }

      /// The type a parameter of `kind` is cast to (the column's type, without its collation).
      package static func type(_ kind: ColumnKind) -> String {
        switch kind {
        case .integer: return "BIGINT"
        case .bool: return "BOOLEAN"
        case .real, .date: return "DOUBLE PRECISION"
        case .text, .uuid, .url, .json: return "TEXT"
        case .blob: return "BYTEA"
        }
      }
    }
  }
#endif
