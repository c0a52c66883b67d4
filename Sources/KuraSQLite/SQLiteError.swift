import KuraBase

#if canImport(CSQLite)
  internal import CSQLite
#else
  internal import SQLite3
#endif

/// An error reported by SQLite: its result code, its message and the SQL that failed.
///
/// Bound values never appear in the error, only the SQL text with its placeholders. Like every
/// Kura error it has a ``code`` to match on, and ``underlying`` for an error underneath (SQLite
/// errors are the bottom of the stack, so it is usually `nil`).
///
/// For example:
///
/// ```swift
/// do {
///   try connection.execute("INSERT INTO trip (name) VALUES (NULL)")
/// } catch let error as SQLiteError where error.code == .constraint {
///   print(error)
///   // SQLite error 19 (constraint): NOT NULL constraint failed: trip.name
///   //   — while executing `INSERT INTO trip (name) VALUES (NULL)`
/// }
/// ```
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The primary result code, such as ``Code/constraint``.
  ///
  /// For example: `catch let error as SQLiteError where error.code == .busy { … }`.
  public let code: Code
  /// The extended result code, such as 1299 (`SQLITE_CONSTRAINT_NOTNULL`).
  public let extendedCode: Int32
  /// SQLite's own message.
  public let message: String
  /// The SQL being executed, when there was one.
  public let sql: String?
  /// The error underneath, when there is one (not compared by `==`).
  ///
  /// For example: `print(error.underlying.map { "\($0)" } ?? "none")`.
  public let underlying: (any Error)?

  /// Creates an error from its parts.
  ///
  /// For example:
  ///
  /// ```swift
  /// let error = SQLiteError(code: .busy, extendedCode: 5, message: "database is locked", sql: nil)
  /// ```
  ///
  /// - Parameters:
  ///   - code: The primary result code.
  ///   - extendedCode: The extended result code.
  ///   - message: The message.
  ///   - sql: The SQL that failed, if any.
  ///   - underlying: The error underneath, if any.
  public init(
    code: Code, extendedCode: Int32, message: String, sql: String?,
    underlying: (any Error)? = nil
  ) {
    self.code = code
    self.extendedCode = extendedCode
    self.message = message
    self.sql = sql
    self.underlying = underlying
  }

  /// Whether two errors have the same codes, message and SQL (``underlying`` is not compared).
  ///
  /// For example: `if error == other { print("the same failure") }`.
  ///
  /// - Parameters:
  ///   - lhs: An error.
  ///   - rhs: Another error.
  /// - Returns: Whether they are the same failure.
  public static func == (lhs: SQLiteError, rhs: SQLiteError) -> Bool {
    lhs.code == rhs.code && lhs.extendedCode == rhs.extendedCode && lhs.message == rhs.message
      && lhs.sql == rhs.sql
  }

  /// Reads the last error of a connection handle.
  package init(handle: OpaquePointer?, result: Int32, sql: String?) {
    let extended = handle.map { sqlite3_extended_errcode($0) } ?? result
    let message: String
    if let handle, let text = sqlite3_errmsg(handle) {
      message = String(cString: text)
    } else {
      message = String(cString: sqlite3_errstr(result))
    }
    self.init(
      code: Code(rawValue: result & 0xff), extendedCode: extended, message: message, sql: sql)
  }

  /// "SQLite error 19 (constraint): NOT NULL constraint failed: trip.name — while executing `…`".
  public var description: String {
    var text = "SQLite error \(code.rawValue) (\(code.name)): \(message)"
    if let sql {
      // Quote at most a few hundred characters: generated SQL can be megabytes long.
      let limit = 300
      let quoted = sql.count > limit ? sql.prefix(limit) + "… (\(sql.utf8.count) bytes)" : sql
      text += " — while executing `\(quoted)`"
    }
    return text
  }

  /// A primary SQLite result code.
  ///
  /// For example:
  ///
  /// ```swift
  /// if error.code == .busy { print("another connection holds the lock") }
  /// ```
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric code, as in `sqlite3.h`.
    public let rawValue: Int32
    /// Wraps a numeric code.
    ///
    /// For example: `SQLiteError.Code(rawValue: 19) == .constraint`.
    ///
    /// - Parameter rawValue: The code.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `SQLITE_ERROR`: a generic error, such as a syntax error.
    public static let error = Code(rawValue: 1)
    /// `SQLITE_PERM`: access permission denied.
    public static let permission = Code(rawValue: 3)
    /// `SQLITE_ABORT`: an operation was aborted.
    public static let abort = Code(rawValue: 4)
    /// `SQLITE_BUSY`: the database file is locked by another connection.
    public static let busy = Code(rawValue: 5)
    /// `SQLITE_LOCKED`: a table is locked.
    public static let locked = Code(rawValue: 6)
    /// `SQLITE_READONLY`: an attempt to write a read-only database.
    public static let readOnly = Code(rawValue: 8)
    /// `SQLITE_IOERR`: a disk I/O error.
    public static let ioError = Code(rawValue: 10)
    /// `SQLITE_CORRUPT`: the database file is malformed.
    public static let corrupt = Code(rawValue: 11)
    /// `SQLITE_FULL`: the disk is full.
    public static let full = Code(rawValue: 13)
    /// `SQLITE_CANTOPEN`: the file cannot be opened.
    public static let cannotOpen = Code(rawValue: 14)
    /// `SQLITE_CONSTRAINT`: a constraint (NOT NULL, UNIQUE, FOREIGN KEY, CHECK) failed.
    public static let constraint = Code(rawValue: 19)
    /// `SQLITE_MISMATCH`: a data type mismatch.
    public static let mismatch = Code(rawValue: 20)
    /// `SQLITE_MISUSE`: the library was used incorrectly.
    public static let misuse = Code(rawValue: 21)
    /// `SQLITE_RANGE`: a parameter index is out of range.
    public static let range = Code(rawValue: 25)
    /// `SQLITE_NOTADB`: the file is not a database.
    public static let notADatabase = Code(rawValue: 26)

    /// The short lowercase name SQLite's headers use, such as `constraint`.
    public var name: String {
      let names: [Int32: String] = [
        0: "ok", 1: "error", 2: "internal", 3: "perm", 4: "abort", 5: "busy", 6: "locked",
        7: "nomem", 8: "readonly", 9: "interrupt", 10: "ioerr", 11: "corrupt", 12: "notfound",
        13: "full", 14: "cantopen", 15: "protocol", 16: "empty", 17: "schema", 18: "toobig",
        19: "constraint", 20: "mismatch", 21: "misuse", 22: "nolfs", 23: "auth", 24: "format",
        25: "range", 26: "notadb", 27: "notice", 28: "warning", 100: "row", 101: "done",
      ]
      return names[rawValue] ?? "code \(rawValue)"
    }

    /// The name, such as `constraint`.
    public var description: String { name }
  }
}

extension SQLiteError {
  /// The former name of ``Code``.
  ///
  /// For example: `let code: SQLiteError.Code = .busy`.
  @available(*, deprecated, renamed: "Code")
  public typealias ResultCode = Code
}

extension SQLiteError.Code {
  /// Whether a read-only look at a file that leaves it as found (``Connection/OpenMode/inspect``)
  /// may succeed a moment later after failing with this code: another process is setting up,
  /// repairing or removing the `-wal` and `-shm` files, or holds a lock.
  package var isTransientForInspection: Bool {
    self == .readOnly || self == .busy || self == .locked || self == .cannotOpen
  }
}
