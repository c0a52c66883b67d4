import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  import Synchronization
  internal import CLibPQ

  /// SQL sent often, kept with its C string (no conversion per send), its quoted identifiers
  /// already fitted to the 63 bytes PostgreSQL keeps.
  package struct PostgresQueryText: Sendable {
    /// The SQL.
    package let sql: String
    /// The SQL as libpq takes it, NUL-terminated.
    package let cString: ContiguousArray<CChar>

    package init(_ sql: String) {
      self.sql = sql
      self.cString = PostgresPlaceholders.fittingIdentifiers(sql).utf8CString
    }

    /// Calls `body` with the C string.
    @inline(__always)
    package func withCString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows
      -> Result
    {
      try cString.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return try "".withCString(body) }
        return try body(base)
      }
    }
  }

  /// The statements that open a transaction (such as `BEGIN` and a lock), sent together with
  /// the transaction's first statement rather than in a round trip of their own
  /// (``PostgresConnection/begin(withNextStatement:)``). The last column of the first row of
  /// the last one is kept (``PostgresConnection/transactionID``).
  package struct PostgresBegin: Sendable {
    /// The statements, without parameters, one SQL statement each.
    package let statements: [PostgresQueryText]
    /// The statements as one simple query (joined by `; `).
    package let simpleQuery: PostgresQueryText
    /// A number no other begin made by this process has: a connection finds the names of the
    /// statements it prepared for this begin by it.
    package let id: Int

    private static let made = Atomic<Int>(0)

    package init(_ statements: [String]) {
      self.statements = statements.map(PostgresQueryText.init)
      self.simpleQuery = PostgresQueryText(statements.joined(separator: "; "))
      self.id = Self.made.add(1, ordering: .relaxed).newValue
    }
  }

  extension PostgresSession {
    /// Sends the begin waiting for the next statement on its own (one round trip, one simple
    /// query): the next operation is not a prepared statement that could carry it. A begin that
    /// finds the connection lost connects again and is sent once more: nothing of its
    /// transaction had run.
    package func sendUnsentBegin() throws {
      guard let begin = unsentBegin else { return }
      unsentBegin = nil
      do {
        try runBegin(begin)
      } catch let error as PostgresError where error.code == .connectionLost {
        try reconnect()
        try runBegin(begin)
      }
    }

    private func runBegin(_ begin: PostgresBegin) throws {
      let handle = try openHandle(sql: begin.simpleQuery.sql)
      let result = begin.simpleQuery.withCString { PQexec(handle, $0) }
      defer { PQclear(result) }
      switch PQresultStatus(result) {
      case PGRES_TUPLES_OK:
        beganTransactionID = Self.lastColumnOfFirstRow(result)
      case PGRES_COMMAND_OK:
        beganTransactionID = nil
      default:
        throw error(result, sql: begin.simpleQuery.sql, committing: false)
      }
    }

    /// The last column of `result`'s first row read as a decimal integer (text format), `nil`
    /// for no row, NULL, or anything but digits with an optional sign.
    private static func lastColumnOfFirstRow(_ result: OpaquePointer?) -> Int64? {
      let column = PQnfields(result) - 1
      guard PQntuples(result) > 0, column >= 0, PQgetisnull(result, 0, column) == 0,
        let value = PQgetvalue(result, 0, column)
      else { return nil }
      return decimalInteger(value)
    }

    /// The NUL-terminated decimal text at `text` (an optional `-`, then at most 18 digits: the
    /// values a transaction id takes) as an integer; `nil` for anything else.
    package static func decimalInteger(_ text: UnsafePointer<CChar>) -> Int64? {
      var index = text.pointee == 0x2D ? 1 : 0
      let first = index
      var value: Int64 = 0
      while text[index] != 0 {
        let digit = Int64(text[index]) - 0x30
        guard digit >= 0, digit <= 9, index - first < 18 else { return nil }
        value = value * 10 + digit
        index += 1
      }
      guard index > first else { return nil }
      return first == 1 ? -value : value
    }

    /// A pipeline that could not be entered, sent, or did not end as sent: the connection is
    /// marked broken, and the error is ``PostgresError/Code/connectionLost`` (sent inside a
    /// transaction or before it began, so nothing of it committed).
    package func brokenPipeline(sql: String) -> PostgresError {
      markBroken()
      var lost = error(nil, sql: sql, committing: false)
      lost.code = .connectionLost
      return lost
    }

    /// Runs `begin`'s statements and then prepared statement `name` with its bound values in
    /// one round trip (libpq's pipeline mode: each sent with the extended protocol, one `Sync`
    /// after the last), and returns the statement's result, which the caller clears. The begin's
    /// statements are prepared statements of the connection too, prepared in the pipeline the
    /// first time (so the server parses and plans them once per connection, not once per
    /// transaction).
    ///
    /// A statement that fails makes the server skip the rest: the first failure is thrown
    /// (the transaction is then open and aborted, as after a failed statement of a transaction
    /// begun on its own). A connection that breaks, or a pipeline that does not end as sent, is
    /// ``PostgresError/Code/connectionLost`` (the connection is marked broken): nothing of the
    /// transaction committed, so the caller may connect again and run it all once more.
    package func executePrepared(
      after begin: PostgresBegin, name: ContiguousArray<CChar>, sql: String,
      values: [UnsafePointer<CChar>?], lengths: [Int32], formats: [Int32], resultFormat: Int32
    ) throws -> OpaquePointer? {
      let handle = try openHandle(sql: sql)
      guard PQenterPipelineMode(handle) == 1 else {
        throw brokenPipeline(sql: begin.simpleQuery.sql)
      }
      // What each group of results answers, in the order sent: a begin statement's
      // preparation (its place and name), a begin statement, or the prepared statement.
      var groups: [(preparing: (index: Int, name: ContiguousArray<CChar>)?, isStatement: Bool)] =
        []
      groups.reserveCapacity(begin.statements.count * 2 + 1)
      var names =
        preparedBegins[begin.id] ?? Array(repeating: nil, count: begin.statements.count)
      var sent = true
      for (index, statement) in begin.statements.enumerated() where sent {
        var prepared = names[index]
        if prepared == nil {
          let made = nextStatementName().utf8CString
          sent =
            made.withUnsafeBufferPointer { made in
              statement.withCString { PQsendPrepare(handle, made.baseAddress, $0, 0, nil) }
            } == 1
          groups.append(((index, made), false))
          prepared = made
        }
        if sent, let prepared {
          sent =
            prepared.withUnsafeBufferPointer {
              PQsendQueryPrepared(handle, $0.baseAddress, 0, nil, nil, nil, 0)
            } == 1
          groups.append((nil, false))
        }
      }
      if sent {
        sent =
          name.withUnsafeBufferPointer {
            PQsendQueryPrepared(
              handle, $0.baseAddress, Int32(values.count), values, lengths, formats, resultFormat)
          } == 1
        groups.append((nil, true))
      }
      if sent { sent = PQpipelineSync(handle) == 1 }
      var failure: PostgresError?
      var statementResult: OpaquePointer?
      // The begin statement whose first row's last column is kept: the last one.
      let lastBegin = groups.lastIndex { $0.preparing == nil && !$0.isStatement }
      // One group of results per message sent, each ended by a NULL; at most one of each
      // is kept. A broken connection ends the reading.
      var index = 0
      while sent, index < groups.count, PQstatus(handle) == CONNECTION_OK {
        guard let result = PQgetResult(handle) else {
          index += 1
          continue
        }
        let group = groups[index]
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
          if group.isStatement, statementResult == nil {
            statementResult = result
            continue
          }
          if let preparing = group.preparing {
            names[preparing.index] = preparing.name
            preparedBegins[begin.id] = names
          } else if index == lastBegin {
            beganTransactionID = Self.lastColumnOfFirstRow(result)
          }
        case PGRES_PIPELINE_ABORTED:
          break
        case PGRES_PIPELINE_SYNC:
          // Ahead of a statement's results: not the pipeline sent.
          sent = false
        default:
          if failure == nil {
            failure = error(
              result, sql: group.isStatement ? sql : begin.simpleQuery.sql, committing: false)
          }
        }
        PQclear(result)
      }
      if sent, PQstatus(handle) == CONNECTION_OK, let sync = PQgetResult(handle) {
        sent = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
      } else {
        sent = false
      }
      if !sent || PQexitPipelineMode(handle) != 1 {
        PQclear(statementResult)
        if let failure, failure.code == .connectionLost { throw failure }
        throw brokenPipeline(sql: sql)
      }
      if let failure {
        PQclear(statementResult)
        throw failure
      }
      return statementResult
    }
  }
#endif
