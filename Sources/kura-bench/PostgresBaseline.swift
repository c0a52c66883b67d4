#if canImport(CLibPQ)
  import CLibPQ
  import Foundation

  // The `postgres` suite's baseline: the statements a C programmer writes against libpq, on one
  // connection — prepared statements, parameters and results in binary, BEGIN and COMMIT
  // through PQexec (as Kura's connection sends them).

  /// A failure of the benchmark's own libpq calls, with libpq's message (never a password).
  struct PostgresBenchmarkError: Error, CustomStringConvertible {
    /// What failed and why.
    var description: String
  }

  /// One libpq connection running the baseline's statements on the table `raw`, whose columns
  /// have the types Kura's engine gives `BenchTrip`'s properties (`bigint`, `text`,
  /// `double precision`, `boolean`; dates as seconds since the reference date).
  final class RawPostgres {
    /// The libpq connection.
    let handle: OpaquePointer
    /// What the connection reaches, for messages: database, host and port (no password).
    let label: String
    // The parameters of the statement being run, as libpq reads them.
    private let values = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: 6)
    private let lengths = UnsafeMutablePointer<Int32>.allocate(capacity: 6)
    private let formats = UnsafeMutablePointer<Int32>.allocate(capacity: 6)
    /// Fixed-width parameters in network byte order (id, score, isFavorite, createdAt).
    private let scratch = UnsafeMutableRawPointer.allocate(byteCount: 32, alignment: 8)

    /// The table, with the types Kura's engine declares (text without Kura's collation, which
    /// none of the workloads compares).
    static let createTableSQL =
      "CREATE TABLE raw (id bigint NOT NULL PRIMARY KEY, name text NOT NULL, "
      + "score double precision NOT NULL, \"isFavorite\" boolean NOT NULL, "
      + "\"createdAt\" double precision NOT NULL, note text)"

    /// The upsert of one row: the one-statement upsert a C programmer writes.
    static let upsertSQL =
      "INSERT INTO raw (id, name, score, \"isFavorite\", \"createdAt\", note) "
      + "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
      + "score = excluded.score, \"isFavorite\" = excluded.\"isFavorite\", "
      + "\"createdAt\" = excluded.\"createdAt\", note = excluded.note"

    /// The upsert Kura's engine runs (PostgresStoreEngine.upsertSQL for this table: update by
    /// id, else insert, returning which), to show the server's share of the bulk insert apart
    /// from the client's (on a table made with ``Table/createAsKura``).
    static let kuraUpsertSQL =
      "WITH kura_by_id AS (UPDATE raw SET name = $2, score = $3, \"isFavorite\" = $4, "
      + "\"createdAt\" = $5, note = $6 WHERE id = $1 RETURNING id), kura_insert AS (INSERT INTO "
      + "raw (id, name, score, \"isFavorite\", \"createdAt\", note) SELECT $1, $2, $3, $4, $5, $6 "
      + "WHERE NOT EXISTS (SELECT 1 FROM kura_by_id) RETURNING id) SELECT 2 AS kura_op, id FROM "
      + "kura_by_id UNION ALL SELECT 1, id FROM kura_insert"

    /// Every row, in the order of ids (the order Kura's fetch gives: SQLite's rowid order).
    static let selectAllSQL =
      "SELECT id, name, score, \"isFavorite\", \"createdAt\", note FROM raw ORDER BY id"

    /// One row by its primary key.
    static let selectByIDSQL =
      "SELECT id, name, score, \"isFavorite\", \"createdAt\", note FROM raw WHERE id = $1"

    /// The store's lock Kura's engine takes shared in each save's transaction (its statement,
    /// with its key: it marks a writer of the store for the feed's readers), for the line that
    /// says what that lock costs.
    static let writerLockSQL =
      "SELECT pg_advisory_xact_lock_shared($1, hashtext(current_schema()))"

    /// The change feed's table, as a C programmer writing Kura's feed by hand makes it (the
    /// shape of Kura's `kura_history`).
    static let createHistorySQL =
      "CREATE TABLE IF NOT EXISTS history (token bigint PRIMARY KEY, "
      + "time double precision NOT NULL, models text NOT NULL, changes bytea NOT NULL)"

    /// One save's feed row: the token from the transaction id (as Kura's, so parallel writers
    /// need no lock for readers to read in order), the time, the model names, the change set.
    static let appendHistorySQL =
      "INSERT INTO history (token, time, models, changes) "
      + "SELECT CAST(CAST(pg_current_xact_id() AS text) AS bigint) * 65536, $1, $2, $3"

    /// The save's COMMIT and the wake-up of other processes' listeners after it, as Kura sends
    /// them: in one simple query (one round trip), the `NOTIFY` in a transaction of its own (a
    /// notifying commit holds a cluster-wide lock until it is flushed, and one that only
    /// notifies waits for no flush), which runs only when the COMMIT succeeded.
    static let commitAndNotifySQL = "COMMIT; NOTIFY raw_changes"

    /// `BEGIN` and Kura's shared store lock in one simple query (one round trip), as Kura
    /// sends them.
    static let beginLockedSQL =
      "BEGIN; SELECT pg_advisory_xact_lock_shared(1263882817, hashtext(current_schema()))"

    /// What a new connection does with the table `raw`.
    enum Table {
      /// Nothing: the connection creates and drops databases.
      case none
      /// Creates it, then prepares the statements.
      case create
      /// Creates it with the hidden row-number column Kura's tables have (`kura_row`, numbered
      /// by a sequence), then prepares the statements.
      case createAsKura
      /// Prepares the statements on the table another connection created.
      case existing
    }

    /// Connects and, unless `table` is `.none`, prepares the statements on `raw` (`upsert`,
    /// `select_all`, `select_id`, `writer_lock`), creating it first when asked.
    init(_ connectionString: String, label: String, table: Table) throws {
      guard let handle = PQconnectdb(connectionString) else {
        throw PostgresBenchmarkError(description: "libpq could not allocate a connection")
      }
      guard PQstatus(handle) == CONNECTION_OK else {
        let message = String(cString: PQerrorMessage(handle))
        PQfinish(handle)
        throw PostgresBenchmarkError(
          description: "Can't connect to \(label): \(message.trimmingCharacters(in: .newlines))")
      }
      self.handle = handle
      self.label = label
      for index in 0..<6 { formats[index] = 1 }
      if table == .none { return }
      if table == .create { try execute(Self.createTableSQL) }
      if table == .create || table == .createAsKura { try execute(Self.createHistorySQL) }
      if table == .createAsKura {
        try execute("CREATE SEQUENCE IF NOT EXISTS kura_row_numbers")
        try execute(
          String(Self.createTableSQL.dropLast())
            + ", kura_row bigint NOT NULL DEFAULT nextval('kura_row_numbers'))")
      }
      // Types as Kura's statements have them: int8, text, float8, bool, float8, text.
      try prepare("upsert", Self.upsertSQL, types: [20, 25, 701, 16, 701, 25])
      try prepare("kura_upsert", Self.kuraUpsertSQL, types: [20, 25, 701, 16, 701, 25])
      try prepare("select_all", Self.selectAllSQL, types: [])
      try prepare("select_id", Self.selectByIDSQL, types: [20])
      try prepare("writer_lock", Self.writerLockSQL, types: [23])
      try prepare("append_history", Self.appendHistorySQL, types: [701, 25, 17])
    }

    deinit {
      PQfinish(handle)
      values.deallocate()
      lengths.deallocate()
      formats.deallocate()
      scratch.deallocate()
    }

    /// The error for a failed result, naming the statement.
    private func failure(_ result: OpaquePointer?, _ sql: String) -> PostgresBenchmarkError {
      let message =
        result.flatMap { PQresultErrorMessage($0) }.map { String(cString: $0) }
        ?? String(cString: PQerrorMessage(handle))
      return PostgresBenchmarkError(
        description:
          "`\(sql)` failed on \(label): \(message.trimmingCharacters(in: .whitespacesAndNewlines))"
      )
    }

    /// Runs SQL without parameters through PQexec (BEGIN, COMMIT, DDL).
    func execute(_ sql: String) throws {
      let result = PQexec(handle, sql)
      defer { PQclear(result) }
      let status = PQresultStatus(result)
      guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
        throw failure(result, sql)
      }
    }

    /// Runs SQL without parameters and returns the first column of each row, as text.
    func texts(_ sql: String) throws -> [String] {
      let result = PQexec(handle, sql)
      defer { PQclear(result) }
      guard PQresultStatus(result) == PGRES_TUPLES_OK else { throw failure(result, sql) }
      return (0..<PQntuples(result)).map { String(cString: PQgetvalue(result, $0, 0)) }
    }

    private func prepare(_ name: String, _ sql: String, types: [Oid]) throws {
      let result = PQprepare(handle, name, sql, Int32(types.count), types.isEmpty ? nil : types)
      defer { PQclear(result) }
      guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw failure(result, sql) }
    }

    /// Runs a prepared statement with the first `count` parameters; binary results.
    private func runPrepared(_ name: String, count: Int32, sql: @autoclosure () -> String)
      throws -> OpaquePointer?
    {
      let result = PQexecPrepared(handle, name, count, values, lengths, formats, 1)
      let status = PQresultStatus(result)
      guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
        defer { PQclear(result) }
        throw failure(result, sql())
      }
      return result
    }

    // MARK: The workloads' statements

    /// Upserts one trip with the prepared statement (one round trip): the C programmer's
    /// `INSERT … ON CONFLICT`, or Kura's statement when `kuraStatement` is true.
    func upsert(_ trip: BenchTrip, kuraStatement: Bool = false) throws {
      let (statement, sql) =
        kuraStatement ? ("kura_upsert", Self.kuraUpsertSQL) : ("upsert", Self.upsertSQL)
      scratch.storeBytes(of: Int64(trip.id).bigEndian, toByteOffset: 0, as: Int64.self)
      scratch.storeBytes(of: trip.score.bitPattern.bigEndian, toByteOffset: 8, as: UInt64.self)
      scratch.storeBytes(of: trip.isFavorite ? 1 : 0, toByteOffset: 16, as: UInt8.self)
      scratch.storeBytes(
        of: trip.createdAt.timeIntervalSinceReferenceDate.bitPattern.bigEndian,
        toByteOffset: 24, as: UInt64.self)
      let base = UnsafeRawPointer(scratch).assumingMemoryBound(to: CChar.self)
      values[0] = base
      lengths[0] = 8
      values[2] = base + 8
      lengths[2] = 8
      values[3] = base + 16
      lengths[3] = 1
      values[4] = base + 24
      lengths[4] = 8
      var name = trip.name
      try name.withUTF8 { name in
        values[1] = text(name)
        lengths[1] = Int32(name.count)
        guard var note = trip.note else {
          values[5] = nil
          PQclear(try runPrepared(statement, count: 6, sql: sql))
          return
        }
        try note.withUTF8 { note in
          values[5] = text(note)
          lengths[5] = Int32(note.count)
          PQclear(try runPrepared(statement, count: 6, sql: sql))
        }
      }
    }

    /// The bytes of a text parameter as libpq takes them; an empty text still needs a pointer
    /// (a null one means NULL).
    private func text(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar> {
      guard let base = bytes.baseAddress else {
        return UnsafeRawPointer(scratch).assumingMemoryBound(to: CChar.self)
      }
      return UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
    }

    /// Takes Kura's shared store lock for the open transaction (the statement Kura's engine
    /// runs).
    func takeWriterLock() throws {
      scratch.storeBytes(of: Int32(0x4B55_5241).bigEndian, toByteOffset: 0, as: Int32.self)
      values[0] = UnsafeRawPointer(scratch).assumingMemoryBound(to: CChar.self)
      lengths[0] = 4
      PQclear(try runPrepared("writer_lock", count: 1, sql: Self.writerLockSQL))
    }

    /// Appends the feed's row for a save of `trip` (``appendHistorySQL``): its time, the model
    /// name as a JSON array, and the change set as bytes (the model's name and the inserted id,
    /// length-prefixed, as Kura writes it).
    func appendHistory(for trip: BenchTrip) throws {
      scratch.storeBytes(
        of: Date().timeIntervalSince1970.bitPattern.bigEndian, toByteOffset: 0, as: UInt64.self)
      values[0] = UnsafeRawPointer(scratch).assumingMemoryBound(to: CChar.self)
      lengths[0] = 8
      values[1] = UnsafeRawPointer(feedModels.utf8Start).assumingMemoryBound(to: CChar.self)
      lengths[1] = Int32(feedModels.utf8CodeUnitCount)
      try withFeedChanges(of: trip) { changes in
        values[2] = text(changes)
        lengths[2] = Int32(changes.count)
        PQclear(try runPrepared("append_history", count: 3, sql: Self.appendHistorySQL))
      }
    }

    /// Every row, decoded into trips.
    func fetchAll() throws -> [BenchTrip] {
      let result = try runPrepared("select_all", count: 0, sql: Self.selectAllSQL)
      defer { PQclear(result) }
      let count = PQntuples(result)
      var trips: [BenchTrip] = []
      trips.reserveCapacity(Int(count))
      for row in 0..<count { trips.append(Self.trip(result, row)) }
      return trips
    }

    /// The trip with `id`, if any.
    func trip(id: Int) throws -> BenchTrip? {
      scratch.storeBytes(of: Int64(id).bigEndian, toByteOffset: 0, as: Int64.self)
      values[0] = UnsafeRawPointer(scratch).assumingMemoryBound(to: CChar.self)
      lengths[0] = 8
      let result = try runPrepared("select_id", count: 1, sql: Self.selectByIDSQL)
      defer { PQclear(result) }
      return PQntuples(result) > 0 ? Self.trip(result, 0) : nil
    }

    /// Decodes one row of binary results (id, name, score, isFavorite, createdAt, note).
    private static func trip(_ result: OpaquePointer?, _ row: Int32) -> BenchTrip {
      func cell(_ column: Int32) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(
          start: PQgetvalue(result, row, column), count: Int(PQgetlength(result, row, column)))
      }
      func double(_ column: Int32) -> Double {
        Double(bitPattern: UInt64(bigEndian: cell(column).loadUnaligned(as: UInt64.self)))
      }
      return BenchTrip(
        id: Int(Int64(bigEndian: cell(0).loadUnaligned(as: Int64.self))),
        name: String(decoding: cell(1), as: UTF8.self),
        score: double(2),
        isFavorite: cell(3).first == 1,
        createdAt: Date(timeIntervalSinceReferenceDate: double(4)),
        note: PQgetisnull(result, row, 5) != 0 ? nil : String(decoding: cell(5), as: UTF8.self))
    }
  }
#endif
