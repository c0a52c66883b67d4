import KuraBase
import KuraStore

/// An error reported by PostgreSQL or by libpq: what kind of failure it is, the server's SQLSTATE
/// and message, the server and database it concerns, and the SQL that failed.
///
/// Neither bound values nor passwords ever appear in the error's ``description``: the server's
/// detail line (which can quote a row's values) is kept in ``detail`` but not printed, and the
/// server is named by host (or socket), port, database and user only. Like every Kura error it
/// has a ``code`` to match on, and ``underlying`` for an error underneath (usually `nil`: libpq
/// and the server are the bottom of the stack).
///
/// For example:
///
/// ```swift
/// do {
///   try connection.run("INSERT INTO trip (name) VALUES (?)", [.text("Kyoto")])
/// } catch let error as PostgresError where error.code == .uniqueViolation {
///   print(error.constraint ?? "")  // trip_name_key
/// }
/// ```
package struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What kind of failure an error is, for deciding what to do about it.
  ///
  /// For example:
  ///
  /// ```swift
  /// if error.code == .serializationFailure || error.code == .deadlock { /* retry */ }
  /// ```
  package enum Code: String, Sendable, Hashable, CustomStringConvertible {
    /// The server could not be reached: not running, wrong host, socket or port, or it refused
    /// the connection (too many connections, starting up, shutting down).
    case connectionFailed
    /// The server refused the user or the password (SQLSTATE class 28), or a password is needed
    /// and none was given.
    case authenticationFailed
    /// The database does not exist on the server (SQLSTATE 3D000).
    case databaseMissing
    /// An established connection broke (the server went away, or the backend was terminated).
    /// See ``PostgresError/isCommitOutcomeUnknown`` for whether the work may have committed.
    case connectionLost
    /// A serializable or repeatable-read transaction conflicted with another one (SQLSTATE
    /// 40001); retrying the whole transaction may succeed.
    case serializationFailure
    /// Two transactions waited on each other and this one was chosen to fail (SQLSTATE 40P01);
    /// retrying the whole transaction may succeed.
    case deadlock
    /// A unique constraint or unique index refused a duplicate (SQLSTATE 23505).
    case uniqueViolation
    /// A foreign key refused a row that refers to a missing row, or a delete of a referenced row
    /// (SQLSTATE 23503).
    case foreignKeyViolation
    /// A NOT NULL column was given NULL (SQLSTATE 23502).
    case notNullViolation
    /// A CHECK constraint refused a row (SQLSTATE 23514).
    case checkViolation
    /// The statement names a table that does not exist (SQLSTATE 42P01).
    case undefinedTable
    /// The PostgreSQL location (URL or connection string) can't be read, or this platform has
    /// no PostgreSQL engine.
    case invalidLocation
    /// Any other error; ``PostgresError/sqlState`` tells which.
    case other

    /// The kind for a SQLSTATE reported on an established connection.
    package init(sqlState: String?) {
      switch sqlState {
      case "40001": self = .serializationFailure
      case "40P01": self = .deadlock
      case "23505": self = .uniqueViolation
      case "23503": self = .foreignKeyViolation
      case "23502": self = .notNullViolation
      case "23514": self = .checkViolation
      case "42P01": self = .undefinedTable
      case "3D000": self = .databaseMissing
      case "28000", "28P01": self = .authenticationFailed
      case let state? where state.hasPrefix("08"): self = .connectionLost
      default: self = .other
      }
    }

    /// The kind in words, such as `unique violation`.
    package var description: String {
      switch self {
      case .connectionFailed: return "connection failed"
      case .authenticationFailed: return "authentication failed"
      case .databaseMissing: return "database missing"
      case .connectionLost: return "connection lost"
      case .serializationFailure: return "serialization failure"
      case .deadlock: return "deadlock"
      case .uniqueViolation: return "unique violation"
      case .foreignKeyViolation: return "foreign key violation"
      case .notNullViolation: return "not-null violation"
      case .checkViolation: return "check violation"
      case .undefinedTable: return "undefined table"
      case .invalidLocation: return "invalid location"
      case .other: return "error"
      }
    }
  }

  /// What kind of failure this is, such as ``Code/uniqueViolation``.
  ///
  /// For example: `catch let error as PostgresError where error.code == .deadlock { … }`.
  package var code: Code
  /// The five-character SQLSTATE the server reported, such as `23505`; `nil` for failures
  /// found by libpq itself (no server reached, connection broken).
  package var sqlState: String?
  /// The server's (or libpq's) primary message, such as
  /// `duplicate key value violates unique constraint "trip_name_key"`.
  package var message: String
  /// The server's detail line, which may quote the values of a row: kept for the caller, never
  /// printed in ``description``.
  package var detail: String?
  /// The server's hint, such as what to write instead.
  package var hint: String?
  /// The server, database and user concerned (never a password), such as: database `app` on
  /// `db.example.com:5432` as user `alice`.
  package var server: String
  /// The SQL being executed, when there was one (with its placeholders, never the values).
  package var sql: String?
  /// The constraint that failed, for constraint violations.
  package var constraint: String?
  /// The table the error concerns, when the server names one.
  package var table: String?
  /// The column the error concerns, when the server names one.
  package var column: String?
  /// Whether the connection broke after a statement that commits on its own had been sent — a
  /// `COMMIT`, or any statement run outside a transaction — so it may or may not have taken
  /// effect: read the data back to find out; don't assume either.
  package var isCommitOutcomeUnknown: Bool
  /// The error underneath, when there is one (not compared by `==`, not hashed).
  ///
  /// For example: `print(error.underlying.map { "\($0)" } ?? "none")`.
  package var underlying: (any Error)?

  /// Creates an error from its parts.
  ///
  /// For example:
  ///
  /// ```swift
  /// let error = PostgresError(
  ///   code: .deadlock, sqlState: "40P01", message: "deadlock detected",
  ///   server: "database `app` on `localhost:5432`")
  /// ```
  ///
  /// - Parameters:
  ///   - code: What kind of failure it is.
  ///   - sqlState: The server's SQLSTATE, if any.
  ///   - message: The primary message.
  ///   - detail: The server's detail line (not printed).
  ///   - hint: The server's hint.
  ///   - server: The server and database, without secrets.
  ///   - sql: The SQL that failed.
  ///   - constraint: The constraint that failed.
  ///   - table: The table concerned.
  ///   - column: The column concerned.
  ///   - isCommitOutcomeUnknown: Whether a commit may or may not have happened.
  ///   - underlying: The error underneath, if any.
  package init(
    code: Code, sqlState: String? = nil, message: String, detail: String? = nil,
    hint: String? = nil, server: String, sql: String? = nil, constraint: String? = nil,
    table: String? = nil, column: String? = nil, isCommitOutcomeUnknown: Bool = false,
    underlying: (any Error)? = nil
  ) {
    self.code = code
    self.sqlState = sqlState
    self.message = message
    self.detail = detail
    self.hint = hint
    self.server = server
    self.sql = sql
    self.constraint = constraint
    self.table = table
    self.column = column
    self.isCommitOutcomeUnknown = isCommitOutcomeUnknown
    self.underlying = underlying
  }

  /// Whether two errors are the same failure: every property but ``underlying``.
  ///
  /// For example: `if error == other { print("the same failure") }`.
  ///
  /// - Parameters:
  ///   - lhs: An error.
  ///   - rhs: Another error.
  /// - Returns: Whether they are equal.
  package static func == (lhs: PostgresError, rhs: PostgresError) -> Bool {
    lhs.code == rhs.code && lhs.sqlState == rhs.sqlState && lhs.message == rhs.message
      && lhs.detail == rhs.detail && lhs.hint == rhs.hint && lhs.server == rhs.server
      && lhs.sql == rhs.sql && lhs.constraint == rhs.constraint && lhs.table == rhs.table
      && lhs.column == rhs.column && lhs.isCommitOutcomeUnknown == rhs.isCommitOutcomeUnknown
  }

  /// Hashes the properties `==` compares.
  ///
  /// For example: `let seen: Set<PostgresError> = [error]`.
  ///
  /// - Parameter hasher: The hasher.
  package func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(sqlState)
    hasher.combine(message)
    hasher.combine(server)
    hasher.combine(sql)
  }

  /// Whether running the whole transaction again may succeed (a serialization failure or a
  /// deadlock).
  ///
  /// For example: `if error.isRetryable { try save() }`.
  package var isRetryable: Bool { code == .serializationFailure || code == .deadlock }

  /// What failed, where, why, and what to do, such as "PostgreSQL error 23505 (unique violation)
  /// in database `app` on `/run/postgresql/.s.PGSQL.5432` as user `alice`: duplicate key value
  /// violates unique constraint "trip_name_key" — while executing `INSERT INTO trip …`".
  package var description: String {
    var text: String
    switch code {
    case .connectionFailed, .authenticationFailed, .databaseMissing:
      text = "Can't connect to PostgreSQL \(server): \(message)"
    case .connectionLost:
      text = "Lost the connection to PostgreSQL \(server): \(message)"
    case .invalidLocation:
      text = "Can't use the PostgreSQL location: \(message)"
    default:
      text = "PostgreSQL error"
      if let sqlState { text += " \(sqlState)" }
      if code != .other { text += " (\(code))" }
      text += " in \(server): \(message)"
    }
    if let hint, !hint.isEmpty { text += " (hint: \(hint))" }
    /// Ends the text so far as a sentence (unless it already ends in one) and adds `sentence`.
    func add(_ sentence: String) {
      text += Self.endsSentence(text) ? " " : ". "
      text += sentence
    }
    switch code {
    case .authenticationFailed:
      add(
        "Check the user name and its password (given in the URL, in the file PGPASSFILE names"
          + " or in PGPASSWORD) and the server's pg_hba.conf")
    case .databaseMissing:
      add("Check the database name in the URL, or create the database (createdb)")
    case .connectionFailed:
      add("Check that the server is running and accepts connections there")
    case .connectionLost where isCommitOutcomeUnknown:
      add(
        "The connection broke while the work was committing: it may or may not have been"
          + " saved; read it back to find out")
    case .connectionLost:
      add("Work not yet committed was not saved; connect again and retry it")
    default:
      break
    }
    if let sql {
      // Quote at most a few hundred characters: generated SQL can be megabytes long.
      let limit = 300
      let quoted = sql.count > limit ? sql.prefix(limit) + "… (\(sql.utf8.count) bytes)" : sql
      text += " — while executing `\(quoted)`"
    }
    switch code {
    case .connectionFailed, .authenticationFailed, .databaseMissing, .connectionLost:
      if !Self.endsSentence(text) { text += "." }
    default:
      break
    }
    return text
  }

  /// Whether `text` ends with a sentence's last mark.
  private static func endsSentence(_ text: String) -> Bool {
    guard let last = text.last else { return true }
    return last == "." || last == "?" || last == "!"
  }
}
