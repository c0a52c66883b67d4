import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  internal import CLibPQ

  /// One libpq connection (`PGconn`), shared by a ``PostgresConnection`` and the statements it
  /// prepared: it outlives neither, and closes when the connection does.
  ///
  /// Used by one thread at a time, like the connection that owns it.
  package final class PostgresSession {
    /// The libpq connection; `nil` once closed.
    package private(set) var handle: OpaquePointer?
    /// Where it connects.
    package let location: PostgresLocation
    /// The server, database and user connected to, for messages (never a password).
    package private(set) var server: String
    /// Counts connections made: statements prepared on an earlier one prepare again.
    @exclusivity(unchecked) package private(set) var generation = 0
    /// Rows changed by the last INSERT, UPDATE, DELETE or MERGE.
    package var changes = 0
    /// Rows changed by every command since the session began.
    @exclusivity(unchecked) package var totalChanges: Int64 = 0
    @exclusivity(unchecked) private var statementNumber = 0
    /// Names of prepared statements no longer used, deallocated in batches when no
    /// transaction is open.
    @exclusivity(unchecked) private var unusedStatements: [String] = []
    /// Set when a failure showed the server ended the connection even though libpq still
    /// reads it as open (a `FATAL` such as `57P01` from a restart, or a socket at its end).
    @exclusivity(unchecked) private var broken = false
    /// The opening statements of a transaction not sent yet: the next prepared statement that
    /// runs sends them ahead of itself in the same round trip, anything else first
    /// (``PostgresConnection/begin(withNextStatement:)``).
    @exclusivity(unchecked) package var unsentBegin: PostgresBegin?
    /// The last column of the first row of the last begin's last statement as an integer, once
    /// it ran (the transaction's id, for the pool's `BEGIN`s); `nil` when it is not one.
    @exclusivity(unchecked) package var beganTransactionID: Int64?
    /// When the server connected to started (``serverStartSQL``, read with the session's
    /// settings): a connection lives on one run of one server, so a transaction id names one
    /// transaction only together with it (a crash restart, a promoted standby or a restored
    /// backup hands ids out again, on a connection of its own).
    package private(set) var serverStart: String
    /// The names of the begin statements prepared on this connection, by the begin's
    /// ``PostgresBegin/id`` and the statement's place in it
    /// (``executePrepared(after:name:sql:values:lengths:formats:resultFormat:)``).
    @exclusivity(unchecked) package var preparedBegins: [Int: [ContiguousArray<CChar>?]] = [:]

    package init(location: PostgresLocation) throws {
      self.location = location
      let (handle, serverStart) = try Self.connect(location)
      self.handle = handle
      self.serverStart = serverStart
      self.server = Self.describe(handle, location)
    }

    deinit { close() }

    /// Closes the connection; statements used afterwards throw (``liveHandle(sql:)``).
    package func close() {
      if let handle { PQfinish(handle) }
      handle = nil
      broken = false
      unsentBegin = nil
      unusedStatements.removeAll()
      preparedBegins.removeAll()
    }

    /// Connects again after the connection broke (or to start afresh): statements prepare
    /// again on first use.
    package func reconnect() throws {
      close()
      let (handle, start) = try Self.connect(location)
      self.handle = handle
      // Another run of the server, maybe (a crash restart, a promoted standby).
      serverStart = start
      server = Self.describe(handle, location)
      generation += 1
    }

    /// Notes that the connection can't be used any more (libpq still reads it as open).
    package func markBroken() { broken = true }

    /// Whether the connection is open and not broken.
    package var isConnected: Bool {
      guard let handle, !broken else { return false }
      return PQstatus(handle) == CONNECTION_OK
    }

    /// Whether the connection is open, after reading what the server sent while it was idle
    /// (one `poll` without waiting): a server that restarted or ended the backend meanwhile
    /// left a `FATAL` message and the socket's end, which libpq only notices when it reads.
    package var isAlive: Bool {
      guard let handle, !broken, PQstatus(handle) == CONNECTION_OK else { return false }
      var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 0) > 0 else { return true }
      if PQconsumeInput(handle) == 0 || PQstatus(handle) != CONNECTION_OK {
        broken = true
        return false
      }
      return true
    }

    /// Whether a transaction is open (also one that failed and awaits its ROLLBACK, and one
    /// whose `BEGIN` waits to be sent with the next statement).
    package var isInTransaction: Bool {
      guard let handle else { return false }
      if unsentBegin != nil { return true }
      let status = PQtransactionStatus(handle)
      return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// The handle of an open connection, or a ``PostgresError/Code/connectionLost`` error
    /// when it broke earlier (nothing of `sql` was sent). A begin waiting for the next
    /// statement is sent first (``sendUnsentBegin()``).
    @inline(__always)
    package func liveHandle(sql: String?) throws -> OpaquePointer {
      if unsentBegin != nil { try sendUnsentBegin() }
      return try openHandle(sql: sql)
    }

    /// ``liveHandle(sql:)`` without sending a waiting begin.
    @inline(__always)
    package func openHandle(sql: String?) throws -> OpaquePointer {
      guard let handle else {
        throw PostgresError(
          code: .other,
          message:
            "the statement was used after its connection closed (nothing was sent); prepare"
            + " statements on a connection that is still open, and keep the connection while"
            + " they are used",
          server: server, sql: sql)
      }
      if broken || PQstatus(handle) != CONNECTION_OK {
        throw PostgresError(
          code: .connectionLost,
          message: "the connection broke earlier and was not opened again (nothing was sent)",
          server: server, sql: sql)
      }
      return handle
    }

    // MARK: Prepared statement names

    /// A name for a new server-side prepared statement.
    package func nextStatementName() -> String {
      statementNumber += 1
      return "kura_s\(statementNumber)"
    }

    /// Notes that prepared statement `name` is no longer used.
    package func release(_ name: String, generation: Int) {
      guard handle != nil, generation == self.generation else { return }
      unusedStatements.append(name)
    }

    /// Deallocates unused prepared statements on the server, in one round trip, when there
    /// are enough of them (or any, with `all`) and no transaction is open.
    package func deallocateUnusedStatements(all: Bool = false) {
      guard unusedStatements.count >= (all ? 1 : 32), let handle,
        PQtransactionStatus(handle) == PQTRANS_IDLE
      else { return }
      let sql = unusedStatements.map { "DEALLOCATE \($0)" }.joined(separator: "; ")
      unusedStatements.removeAll()
      PQclear(PQexec(handle, sql))
    }

    // MARK: Results and errors

    /// Remembers the number of rows a command changed (not for a SELECT, as in SQLite).
    package func recordChanges(_ result: OpaquePointer?) {
      guard let result, let status = PQcmdStatus(result) else { return }
      let isSelect = strncmp(status, "SELECT", 6) == 0
      guard !isSelect, let tuples = PQcmdTuples(result), tuples.pointee != 0 else { return }
      changes = Int(strtol(tuples, nil, 10))
      totalChanges += Int64(changes)
    }

    /// The error a failed result (or a `nil` one) reports. `committing` says whether the
    /// statement commits on its own (a COMMIT, or a statement outside a transaction), so that
    /// a broken connection leaves its outcome unknown.
    package func error(_ result: OpaquePointer?, sql: String?, committing: Bool) -> PostgresError {
      func field(_ code: UInt8) -> String? {
        guard let result, let value = PQresultErrorField(result, Int32(code)) else { return nil }
        return String(cString: value)
      }
      let sqlState = field(UInt8(ascii: "C"))
      var lost = broken || (handle.map { PQstatus($0) != CONNECTION_OK } ?? true)
      if !lost, let handle, endsConnection(sqlState) {
        // The server ended the connection (a restart, `pg_terminate_backend`), or libpq met the
        // socket's end, while `PQstatus` still reads OK: the connection is lost all the same.
        _ = PQconsumeInput(handle)
        broken = true
        lost = true
      }
      var message = field(UInt8(ascii: "M")) ?? ""
      if message.isEmpty, let handle {
        message = Self.oneLine(String(cString: PQerrorMessage(handle)))
      }
      if message.isEmpty { message = "libpq reported no message" }
      var kind = PostgresError.Code(sqlState: sqlState)
      if lost { kind = .connectionLost }
      return PostgresError(
        code: kind, sqlState: sqlState, message: message, detail: field(UInt8(ascii: "D")),
        hint: field(UInt8(ascii: "H")), server: server, sql: sql,
        constraint: field(UInt8(ascii: "n")), table: field(UInt8(ascii: "t")),
        column: field(UInt8(ascii: "c")), isCommitOutcomeUnknown: lost && committing)
    }

    /// Whether a failure with `sqlState` means the server ended the connection: the `FATAL`
    /// errors of a server shutting down, crashing or starting (`57P01`–`57P03`), of a dropped
    /// database (`57P04`), of a lost connection (class `08`), and a failure libpq found itself
    /// (no SQLSTATE: the socket closed) — unless the connection still answers.
    private func endsConnection(_ sqlState: String?) -> Bool {
      guard let sqlState else { return !isAlive }
      return sqlState.hasPrefix("57P0") || sqlState.hasPrefix("08")
    }

    /// libpq's lines as sentences on one line: each one that doesn't end in `.`, `?` or `!`
    /// gets a period (`Connection refused. Is the server running…?`).
    package static func sentences(_ lines: [Substring]) -> String {
      lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        .map { line in
          guard let last = line.last, last != "." && last != "?" && last != "!" else {
            return line
          }
          return line + "."
        }
        .joined(separator: " ")
    }

    /// libpq's multi-line message as one line.
    package static func oneLine(_ text: String) -> String {
      text.split(whereSeparator: \.isNewline)
        .map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
        .joined(separator: " ")
    }

    /// A duration as `poll`'s timeout: whole milliseconds, rounded up (so a wait never ends
    /// early), 0 for a duration that is not positive.
    package static func pollTimeout(_ duration: Duration) -> Int32 {
      let (seconds, attoseconds) = duration.components
      guard seconds > 0 || (seconds == 0 && attoseconds > 0) else { return 0 }
      guard seconds < Int64(Int32.max / 1000) else { return .max }
      return Int32(seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    // MARK: Connecting

    /// Names the server, database and user a connection reached (or tried to reach).
    package static func describe(_ handle: OpaquePointer, _ location: PostgresLocation) -> String {
      func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer, pointer.pointee != 0 else { return nil }
        return String(cString: pointer)
      }
      guard let database = text(PQdb(handle)) else { return location.description }
      return PostgresLocation.describe(
        host: text(PQhost(handle)), port: text(PQport(handle)), database: database,
        user: text(PQuser(handle)))
    }

    /// libpq settings every connection gets unless its URL gives its own: TCP keepalives after
    /// 30 idle seconds, every 10 seconds, 3 lost (a dead peer found in about a minute), and
    /// unacknowledged data dropping the connection after 30 seconds (`tcp_user_timeout`, in
    /// milliseconds). Unix sockets ignore them.
    package static let clientDefaults: [String: String] = [
      "keepalives": "1", "keepalives_idle": "30", "keepalives_interval": "10",
      "keepalives_count": "3", "tcp_user_timeout": "30000",
    ]

    /// Server settings every connection gets, in the round trip after connecting: backslashes
    /// in string literals taken as they are (`standard_conforming_strings`, which Kura's
    /// quoting assumes), and — where the URL's `options` don't name them and the role and the
    /// database left them at the server's default of none (`0`) — a lock waited for at most 30
    /// seconds (`lock_timeout`) and the server's own keepalives and `tcp_user_timeout`, so a
    /// client that vanished holding locks is noticed. (`-c lock_timeout=0` in the URL's
    /// `options` waits without limit.) Its last statement reads when the server started
    /// (``serverStartSQL``).
    package static func sessionSetup(options: String?) -> String {
      let defaults = [
        ("lock_timeout", "30s"), ("tcp_keepalives_idle", "30"), ("tcp_keepalives_interval", "10"),
        ("tcp_keepalives_count", "3"), ("tcp_user_timeout", "30000"),
      ].filter { options?.contains($0.0) != true }
      var sql = "SET standard_conforming_strings = on"
      if !defaults.isEmpty {
        sql +=
          "; SELECT set_config(name, value, false) FROM (VALUES "
          + defaults.map { "('\($0.0)', '\($0.1)')" }.joined(separator: ", ")
          + ") AS setting (name, value) WHERE current_setting(name) = '0'"
      }
      return sql + "; SELECT " + serverStartSQL
    }

    /// When the server (its postmaster) started, as text: each run of each server has its own.
    package static let serverStartSQL = "extract(epoch FROM pg_postmaster_start_time())::text"

    /// Opens a libpq connection to `location`, waiting at most its `connect_timeout` (30
    /// seconds when it gives none; `0` waits as long as it takes), and returns it with when
    /// the server started (``serverStartSQL``).
    package static func connect(
      _ location: PostgresLocation
    ) throws -> (handle: OpaquePointer, serverStart: String) {
      var parameters = location.parameters
      // Text is exchanged as UTF-8 whatever the environment says.
      parameters["client_encoding"] = "UTF8"
      if parameters["fallback_application_name"] == nil {
        parameters["fallback_application_name"] = "kura"
      }
      for (keyword, value) in Self.clientDefaults where parameters[keyword] == nil {
        parameters[keyword] = value
      }
      let timeoutSeconds =
        parameters["connect_timeout"].flatMap { Int($0) }.map {
          $0 <= 0 ? 0 : max($0, 2)
        } ?? 30
      let keys = parameters.keys.sorted()
      let keywords: [UnsafePointer<CChar>?] = keys.map { UnsafePointer(strdup($0)) } + [nil]
      let values: [UnsafePointer<CChar>?] =
        keys.map { UnsafePointer(strdup(parameters[$0] ?? "")) } + [nil]
      defer {
        for pointer in keywords + values { free(UnsafeMutablePointer(mutating: pointer)) }
      }
      guard let handle = PQconnectStartParams(keywords, values, 0) else {
        throw PostgresError(
          code: .connectionFailed, message: "libpq is out of memory",
          server: location.description)
      }
      // Verbose messages carry the SQLSTATE of a refusal (wrong password, missing database).
      PQsetErrorVerbosity(handle, PQERRORS_VERBOSE)
      var status =
        PQstatus(handle) == CONNECTION_BAD ? PGRES_POLLING_FAILED : PGRES_POLLING_WRITING
      let deadline = timeoutSeconds > 0 ? ContinuousClock.now + .seconds(timeoutSeconds) : nil
      while status != PGRES_POLLING_OK && status != PGRES_POLLING_FAILED {
        var descriptor = pollfd(
          fd: PQsocket(handle),
          events: Int16(status == PGRES_POLLING_READING ? POLLIN : POLLOUT), revents: 0)
        var wait: Int32 = -1
        if let deadline {
          let remaining = ContinuousClock.now.duration(to: deadline)
          wait = pollTimeout(remaining)
        }
        let ready = poll(&descriptor, 1, wait)
        if ready < 0 && errno == EINTR { continue }
        if ready == 0 {
          let server = describe(handle, location)
          PQfinish(handle)
          throw PostgresError(
            code: .connectionFailed,
            message: "no answer within \(timeoutSeconds) seconds (connect_timeout)",
            server: server)
        }
        status = PQconnectPoll(handle)
      }
      if status == PGRES_POLLING_FAILED {
        let error = connectionError(handle, location)
        PQfinish(handle)
        throw error
      }
      PQsetErrorVerbosity(handle, PQERRORS_DEFAULT)
      // Notices (such as "table does not exist, skipping") are not printed on standard error.
      PQsetNoticeReceiver(handle, { _, _ in }, nil)
      let setupSQL = sessionSetup(options: parameters["options"])
      let setup = PQexec(handle, setupSQL)
      defer { PQclear(setup) }
      guard PQresultStatus(setup) == PGRES_TUPLES_OK, PQntuples(setup) == 1,
        PQgetisnull(setup, 0, 0) == 0, let started = PQgetvalue(setup, 0, 0)
      else {
        let message = setup.flatMap { PQresultErrorMessage($0) }.map { String(cString: $0) }
        let server = describe(handle, location)
        PQfinish(handle)
        throw PostgresError(
          code: .connectionFailed,
          message: "the server refused Kura's session settings ("
            + oneLine(message ?? "no message") + ")",
          server: server, sql: setupSQL)
      }
      return (handle, String(cString: started))
    }

    /// The error for a connection that failed: the server's SQLSTATE and message when it
    /// refused (read from libpq's verbose message), else libpq's own message.
    package static func connectionError(
      _ handle: OpaquePointer, _ location: PostgresLocation
    ) -> PostgresError {
      let text = String(cString: PQerrorMessage(handle))
      var sqlState: String?
      var primary: String?
      // Verbose: `… failed: FATAL:  28P01: password authentication failed for user "alice"`.
      for line in text.split(whereSeparator: \.isNewline) {
        var searchStart = line.startIndex
        while let separator = line.range(of: ":  ", range: searchStart..<line.endIndex) {
          searchStart = separator.upperBound
          let rest = line[separator.upperBound...]
          let code = rest.prefix(5)
          let isCode =
            code.count == 5
            && code.allSatisfy { ($0.isASCII && $0.isNumber) || ($0.isASCII && $0.isUppercase) }
          if isCode, rest.dropFirst(5).hasPrefix(": ") {
            sqlState = String(code)
            primary = String(rest.dropFirst(7))
          }
        }
      }
      let message: String
      if let primary {
        message = primary
      } else {
        // `connection to server on socket "/run/x/.s.PGSQL.5432" failed: No such file…`: the
        // server is named by the error already.
        let lines = text.split(whereSeparator: \.isNewline).map { line -> Substring in
          if line.hasPrefix("connection to server"), let failed = line.range(of: "failed: ") {
            return line[failed.upperBound...]
          }
          return line
        }
        message = sentences(lines)
      }
      let kind: PostgresError.Code
      if sqlState?.hasPrefix("28") == true || PQconnectionNeedsPassword(handle) != 0
        || message.hasPrefix("fe_sendauth")
      {
        kind = .authenticationFailed
      } else if sqlState == "3D000" {
        kind = .databaseMissing
      } else {
        kind = .connectionFailed
      }
      return PostgresError(
        code: kind, sqlState: sqlState, message: message.isEmpty ? "libpq gave no reason" : message,
        server: describe(handle, location))
    }
  }

#endif
