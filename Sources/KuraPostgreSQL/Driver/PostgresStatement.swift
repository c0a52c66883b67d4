import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  internal import CLibPQ

  /// A prepared SQL statement on a PostgreSQL server: bind values, step through rows, read
  /// columns — the same calls as SQLite's ``Statement``.
  ///
  /// The SQL uses SQLite's placeholders, `?` and `?N`, rewritten as PostgreSQL's `$N`.
  /// Parameters are numbered from 1, columns from 0. The statement is prepared on the server
  /// (a named prepared statement) when it is created; the first ``step()`` sends the bound
  /// values and receives every row at once, later steps move through them.
  ///
  /// The server decides each parameter's type from the SQL (`WHERE id = ?` takes the column's
  /// type); a bound value is converted to it: an integer bound to a `double precision`
  /// parameter is sent as one, a `Double` bound to a `bigint` parameter must have no fraction,
  /// and text is sent as text for any type the server can read from text. Values are sent and
  /// rows received in binary, so a `Double` (NaN, infinities and `-0.0` included) reads back bit
  /// for bit.
  ///
  /// A statement belongs to the ``PostgresConnection`` that prepared it and is used by one
  /// thread at a time. Statements from ``PostgresConnection/cachedStatement(_:)`` are reset and
  /// cleared when handed out again.
  ///
  /// For example:
  ///
  /// ```swift
  /// let statement = try connection.cachedStatement("SELECT name FROM trip WHERE year > ?")
  /// try statement.bind(2020, at: 1)
  /// while try statement.step() {
  ///   print(statement.string(at: 0))
  /// }
  /// ```
  package final class PostgresStatement {
    package let session: PostgresSession
    /// The SQL text, with SQLite's placeholders.
    package let sql: String
    /// The SQL sent to the server, with `$N` placeholders.
    package let preparedSQL: String
    /// The server-side name of the prepared statement.
    private var name: String {
      didSet { nameCString = name.utf8CString }
    }
    /// `name` as libpq takes it.
    @exclusivity(unchecked) private var nameCString: ContiguousArray<CChar>
    /// Whether this statement deallocates `name` when it goes (a copy made for a nested use of
    /// a cached statement shares the original's name and keeps the original alive).
    @exclusivity(unchecked) private var ownsName: Bool
    @exclusivity(unchecked) private var keepAlive: PostgresStatement?
    /// The session generation `name` was prepared in.
    @exclusivity(unchecked) private var generation: Int
    /// The type the server chose for each parameter.
    @exclusivity(unchecked) package var parameterTypes: [UInt32] = []
    @exclusivity(unchecked) package var columnNames: [String] = []
    /// The type of each result column, as the server described the prepared statement (read
    /// once, not with `PQftype` per value).
    @exclusivity(unchecked) package var columnTypes: [UInt32] = []
    /// 1 (binary) when every result column has a binary form read here, else 0 (text).
    @exclusivity(unchecked) package var resultFormat: Int32 = 1

    // Bound values, as libpq reads them: one buffer per parameter, reused. A statement is used
    // by one thread at a time, and no access to these overlaps another (no dynamic exclusivity
    // check, which cost each bind more than the store).
    @exclusivity(unchecked) package var values: [UnsafePointer<CChar>?] = []
    @exclusivity(unchecked) package var lengths: [Int32] = []
    @exclusivity(unchecked) package var formats: [Int32] = []
    @exclusivity(unchecked) package var buffers: [UnsafeMutableRawPointer?] = []
    @exclusivity(unchecked) package var capacities: [Int] = []

    // Rows of the last execution.
    @exclusivity(unchecked) package var result: OpaquePointer?
    @exclusivity(unchecked) package var row: Int32 = 0
    @exclusivity(unchecked) private var rowCount: Int32 = 0
    @exclusivity(unchecked) private var state = State.ready

    private enum State {
      /// Not executed since the last rewind (or finished with an error).
      case ready
      /// Executed; `row` is the current row of `result`.
      case rows
      /// Executed, and every row was read.
      case done
    }

    /// Prepares `sql` on the session's server.
    package init(session: PostgresSession, sql: String) throws {
      self.session = session
      self.sql = sql
      self.preparedSQL = PostgresPlaceholders.rewrite(sql).sql
      let name = session.nextStatementName()
      self.name = name
      self.nameCString = name.utf8CString
      self.ownsName = true
      self.generation = session.generation
      try prepareOnServer()
    }

    /// A second statement for the same prepared statement, for running it again while
    /// `original` is still in the middle of its rows.
    package init(sharing original: PostgresStatement) {
      session = original.session
      sql = original.sql
      preparedSQL = original.preparedSQL
      name = original.name
      nameCString = original.nameCString
      ownsName = false
      keepAlive = original
      generation = original.generation
      resultFormat = original.resultFormat
      columnNames = original.columnNames
      columnTypes = original.columnTypes
      setParameterTypes(original.parameterTypes)
    }

    deinit {
      if let result { PQclear(result) }
      for buffer in buffers { free(buffer) }
      if ownsName { session.release(name, generation: generation) }
    }

    /// Prepares the statement on the server and learns its parameter and column types.
    private func prepareOnServer() throws {
      session.deallocateUnusedStatements()
      // A begin waiting for its first statement stays waiting: preparing belongs to no
      // transaction, and the statement's run sends the begin with it.
      let handle = try session.openHandle(sql: sql)
      let prepared = PQprepare(handle, name, preparedSQL, 0, nil)
      guard PQresultStatus(prepared) == PGRES_COMMAND_OK else {
        let error = session.error(prepared, sql: sql, committing: false)
        PQclear(prepared)
        // No such prepared statement exists to deallocate.
        ownsName = false
        throw error
      }
      PQclear(prepared)
      let description = PQdescribePrepared(handle, name)
      defer { PQclear(description) }
      guard PQresultStatus(description) == PGRES_COMMAND_OK else {
        throw session.error(description, sql: sql, committing: false)
      }
      setParameterTypes((0..<PQnparams(description)).map { PQparamtype(description, $0) })
      let columns = 0..<PQnfields(description)
      columnNames = columns.map { column in
        PQfname(description, column).map { String(cString: $0) } ?? ""
      }
      columnTypes = columns.map { PQftype(description, $0) }
      let binary = columnTypes.allSatisfy { PostgresType.hasBinaryReading($0) }
      resultFormat = binary ? 1 : 0
      generation = session.generation
    }

    private func setParameterTypes(_ types: [UInt32]) {
      parameterTypes = types
      if values.count != types.count {
        for buffer in buffers { free(buffer) }
        values = Array(repeating: nil, count: types.count)
        lengths = Array(repeating: 0, count: types.count)
        formats = Array(repeating: 0, count: types.count)
        buffers = Array(repeating: nil, count: types.count)
        capacities = Array(repeating: 0, count: types.count)
      }
    }

    /// Whether the statement is in the middle of its rows.
    package var isBusy: Bool { state == .rows }

    /// The rows from the current one on (0 when the statement is not in its rows).
    package var rowsLeft: Int { state == .rows ? Int(rowCount - row) : 0 }

    /// Forgets the rows of the last execution so the statement can run again, keeping its
    /// bindings.
    ///
    /// For example: `statement.rewind()`.
    package func rewind() {
      if let result { PQclear(result) }
      result = nil
      state = .ready
    }

    /// Forgets the rows of the last execution and clears the bindings (every parameter is NULL
    /// again).
    ///
    /// For example: `statement.reset()`.
    package func reset() {
      rewind()
      for slot in values.indices {
        values[slot] = nil
        // A large value's buffer is not kept for the next one.
        if capacities[slot] > 65_536 {
          free(buffers[slot])
          buffers[slot] = nil
          capacities[slot] = 0
        }
      }
    }

    // MARK: Stepping

    /// Moves to the next row; the first step runs the statement on the server.
    ///
    /// For example:
    ///
    /// ```swift
    /// while try statement.step() { print(statement.int64(at: 0)) }
    /// ```
    ///
    /// - Returns: `true` when a row is available, `false` when the statement is done (a later
    ///   step runs it again).
    /// - Throws: ``PostgresError``; the statement can then be run again.
    @discardableResult
    package func step() throws -> Bool {
      if state == .rows {
        row += 1
        if row < rowCount { return true }
        rewind()
        state = .done
        return false
      }
      return try run()
    }

    /// Runs the statement with its bindings and keeps its rows.
    private func run() throws -> Bool {
      rewind()
      try prepareAgainAfterReconnecting()
      if let begin = session.unsentBegin {
        session.unsentBegin = nil
        return try run(after: begin)
      }
      let handle = try session.openHandle(sql: sql)
      let outsideTransaction = PQtransactionStatus(handle) == PQTRANS_IDLE
      let executed = nameCString.withUnsafeBufferPointer {
        PQexecPrepared(
          handle, $0.baseAddress, Int32(values.count), values, lengths, formats, resultFormat)
      }
      return try finish(executed, committing: outsideTransaction)
    }

    /// Prepares the statement again when it was prepared on a connection that since broke
    /// (an older session generation), on the new one.
    private func prepareAgainAfterReconnecting() throws {
      guard generation != session.generation else { return }
      if !ownsName {
        name = session.nextStatementName()
        ownsName = true
        keepAlive = nil
      }
      try prepareOnServer()
    }

    /// Runs `begin` and then the statement in one round trip
    /// (``PostgresSession/executePrepared(after:name:sql:values:lengths:formats:resultFormat:)``).
    /// A connection found lost connects again and runs both once more (the begin on its own):
    /// nothing of their transaction had committed.
    private func run(after begin: PostgresBegin) throws -> Bool {
      let executed: OpaquePointer?
      do {
        executed = try session.executePrepared(
          after: begin, name: nameCString, sql: sql, values: values, lengths: lengths,
          formats: formats,
          resultFormat: resultFormat)
      } catch let error as PostgresError where error.code == .connectionLost {
        try session.reconnect()
        session.unsentBegin = begin
        try session.sendUnsentBegin()
        return try run()
      }
      return try finish(executed, committing: false)
    }

    /// Keeps the rows of `executed` (which it clears when it keeps none), or throws its error;
    /// `committing` says whether the statement ran outside a transaction (so a broken
    /// connection leaves its outcome unknown).
    private func finish(_ executed: OpaquePointer?, committing: Bool) throws -> Bool {
      switch PQresultStatus(executed) {
      case PGRES_TUPLES_OK:
        session.recordChanges(executed)
        rowCount = PQntuples(executed)
        if rowCount > 0 {
          result = executed
          row = 0
          state = .rows
          return true
        }
        PQclear(executed)
        state = .done
        return false
      case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
        session.recordChanges(executed)
        PQclear(executed)
        state = .done
        return false
      default:
        let error = session.error(executed, sql: sql, committing: committing)
        PQclear(executed)
        throw error
      }
    }

    /// Runs the statement, ignoring any rows; its bindings are kept.
    ///
    /// For example: `try statement.execute()`.
    ///
    /// - Throws: ``PostgresError``.
    package func execute() throws {
      defer { rewind() }
      _ = try run()
    }

    // MARK: Running many times in one round trip

    /// Runs the statement `count` times in one round trip (libpq's pipeline mode: run `i` is
    /// sent with the bindings `bind(i)` made, one `Sync` after the last), then calls `read(i)`
    /// for each run that returned a row, with the statement on its first row.
    ///
    /// For a few dozen runs inside a transaction: every answer is read after the last run is
    /// sent, so they must fit the socket's buffers. Outside a transaction the runs go one by
    /// one (each its own transaction, as ``execute()``).
    ///
    /// The server skips the runs after one that fails, and the first failure is thrown: the
    /// transaction is then open and aborted, as after a failed statement. An error from `bind`
    /// or `read` is thrown after the pipeline ended (the runs sent so far ran). A connection that
    /// breaks is ``PostgresError/Code/connectionLost`` (marked broken): nothing of the
    /// transaction committed.
    ///
    /// For example:
    ///
    /// ```swift
    /// try statement.executeBatch(count: names.count) { try statement.bind(names[$0], at: 1) } read: {
    ///   ids[$0] = statement.int64(at: 0)
    /// }
    /// ```
    package func executeBatch(
      count: Int, bind: (Int) throws -> Void, read: (Int) throws -> Void
    ) throws {
      rewind()
      try prepareAgainAfterReconnecting()
      try session.sendUnsentBegin()
      let handle = try session.openHandle(sql: sql)
      guard PQtransactionStatus(handle) == PQTRANS_INTRANS else {
        for index in 0..<count {
          try bind(index)
          defer { rewind() }
          if try run() { try read(index) }
        }
        return
      }
      guard PQenterPipelineMode(handle) == 1 else { throw session.brokenPipeline(sql: sql) }
      var sent = 0
      var callerError: (any Error)?
      while sent < count {
        do {
          try bind(sent)
        } catch {
          callerError = error
          break
        }
        let queued = nameCString.withUnsafeBufferPointer {
          PQsendQueryPrepared(
            handle, $0.baseAddress, Int32(values.count), values, lengths, formats, resultFormat)
        }
        guard queued == 1 else { break }
        sent += 1
      }
      var synced = PQpipelineSync(handle) == 1
      var failure: PostgresError?
      // One group of answers per run sent, each ended by a NULL.
      var index = 0
      while synced, index < sent, PQstatus(handle) == CONNECTION_OK {
        guard let answer = PQgetResult(handle) else {
          index += 1
          continue
        }
        switch PQresultStatus(answer) {
        case PGRES_TUPLES_OK:
          session.recordChanges(answer)
          let rows = PQntuples(answer)
          if rows > 0, failure == nil, callerError == nil {
            result = answer
            row = 0
            rowCount = rows
            state = .rows
            do {
              try read(index)
            } catch {
              callerError = error
            }
            // Clears the answer.
            rewind()
            continue
          }
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
          session.recordChanges(answer)
        case PGRES_PIPELINE_ABORTED:
          break
        case PGRES_PIPELINE_SYNC:
          // Ahead of a run's answers: not the pipeline sent.
          synced = false
        default:
          if failure == nil { failure = session.error(answer, sql: sql, committing: false) }
        }
        PQclear(answer)
      }
      if synced, index == sent, PQstatus(handle) == CONNECTION_OK, let sync = PQgetResult(handle) {
        synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
      } else {
        synced = false
      }
      if !synced || PQexitPipelineMode(handle) != 1 {
        if let failure, failure.code == .connectionLost { throw failure }
        throw session.brokenPipeline(sql: sql)
      }
      if let failure { throw failure }
      if let callerError { throw callerError }
    }
  }
#endif
