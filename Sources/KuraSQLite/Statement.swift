import Foundation
import KuraBase

#if canImport(CSQLite)
  internal import CSQLite
#else
  internal import SQLite3
#endif

/// `SQLITE_TRANSIENT`: SQLite copies the bytes before the bind call returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared SQL statement: bind values, step through rows, read columns.
///
/// Parameters are numbered from 1 (as in SQLite: `?1`, `?2`, or in order of `?`); columns are
/// numbered from 0. A statement belongs to the ``Connection`` that prepared it and is used by one
/// thread at a time. Statements from ``Connection/cachedStatement(_:)`` are reset and cleared when
/// handed out again.
///
/// For example:
///
/// ```swift
/// let statement = try connection.cachedStatement("SELECT name FROM trip WHERE id = ?")
/// try statement.bind("A", at: 1)
/// while try statement.step() {
///   print(statement.string(at: 0))
/// }
/// ```
public final class Statement {
  private let rawHandle: OpaquePointer
  private var isFinalized = false
  /// The SQL text, with placeholders.
  public let sql: String
  /// Whether the statement stepped since it was last reset (a cached statement that did not is
  /// handed out again without `sqlite3_reset`).
  @exclusivity(unchecked) package private(set) var needsReset = false

  package init(handle: OpaquePointer, sql: String) {
    self.rawHandle = handle
    self.sql = sql
  }

  deinit { finalize() }

  /// The SQLite statement; using it after its connection closed is a programmer error.
  @inline(__always)
  package var handle: OpaquePointer {
    precondition(
      !isFinalized,
      "Statement `\(sql)` was used after its connection closed (KuraLibrary.suspend closes idle "
        + "connections); prepare statements inside each read or write instead of keeping them.")
    return rawHandle
  }

  /// Frees the statement now, because its connection is closing (a statement kept by someone
  /// else, such as a context's row encoder, must not keep the closed connection and its file
  /// locks alive).
  package func finalize() {
    if isFinalized { return }
    isFinalized = true
    sqlite3_finalize(rawHandle)
  }

  private var database: OpaquePointer? { sqlite3_db_handle(handle) }

  @inline(__always)
  private func check(_ result: Int32) throws {
    if result != SQLITE_OK { throw failure(result) }
  }

  /// The error of a failed call, boxed (out of line, and thrown as it is: every bind inlines
  /// `check`, and a row's binds inline every bind).
  @inline(never)
  private func failure(_ result: Int32) -> any Error {
    SQLiteError(handle: database, result: result, sql: sql)
  }

  // MARK: Binding

  /// The number of parameters the SQL declares.
  public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

  /// Binds an integer to parameter `index` (from 1).
  ///
  /// For example: `try statement.bind(Int64(2800), at: 2)`.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - index: The parameter number, from 1.
  /// - Throws: ``SQLiteError`` (``SQLiteError/Code/range`` for a bad index).
  @inline(__always)
  public func bind(_ value: Int64, at index: Int) throws {
    try check(sqlite3_bind_int64(handle, Int32(index), value))
  }

  /// Binds an integer to parameter `index` (from 1).
  ///
  /// For example: `try statement.bind(3, at: 1)`.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - index: The parameter number, from 1.
  /// - Throws: ``SQLiteError``.
  @inline(__always)
  public func bind(_ value: Int, at index: Int) throws {
    try check(sqlite3_bind_int64(handle, Int32(index), Int64(value)))
  }

  /// Binds a floating-point number to parameter `index` (from 1). NaN is stored as NULL.
  ///
  /// For example: `try statement.bind(2.5, at: 3)`.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - index: The parameter number, from 1.
  /// - Throws: ``SQLiteError``.
  @inline(__always)
  public func bind(_ value: Double, at index: Int) throws {
    try check(sqlite3_bind_double(handle, Int32(index), value))
  }

  /// Binds a `Double` so that it reads back bit for bit with ``exactDouble(at:)``: as REAL,
  /// except NaN and `-0.0` (which a REAL loses), stored as their exact encoding (see
  /// `Double.exactSQLiteBlob`).
  @inline(__always)
  package func bindExact(_ value: Double, at index: Int) throws {
    // The getter's test, inlined: almost every value is bound as REAL without the call.
    guard value.isNaN || (value == 0 && value.sign == .minus)
    else { return try check(sqlite3_bind_double(handle, Int32(index), value)) }
    try bindExactBlob(value, at: index)
  }

  /// Binds NaN or `-0.0` as its exact BLOB (out of line: rare, and `Data`'s code is large).
  @inline(never)
  private func bindExactBlob(_ value: Double, at index: Int) throws {
    guard let blob = value.exactSQLiteBlob else {
      return try check(sqlite3_bind_double(handle, Int32(index), value))
    }
    try bind(blob, at: index)
  }

  /// Binds text to parameter `index` (from 1), handing SQLite the string's own UTF-8 storage
  /// (SQLite makes the one copy it needs; no intermediate C string is built).
  ///
  /// For example: `try statement.bind("高速代金", at: 2)`.
  ///
  /// - Parameters:
  ///   - value: The value; the empty string stays empty (not NULL).
  ///   - index: The parameter number, from 1.
  /// - Throws: ``SQLiteError``.
  @inline(__always)
  public func bind(_ value: String, at index: Int) throws {
    var value = value
    let result = value.withUTF8 { buffer -> Int32 in
      if let base = buffer.baseAddress, buffer.count > 0 {
        return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
          sqlite3_bind_text(handle, Int32(index), $0, Int32(buffer.count), transient)
        }
      }
      return sqlite3_bind_text(handle, Int32(index), "", 0, transient)
    }
    try check(result)
  }

  /// Binds bytes to parameter `index` (from 1) without copying them into a `Data` first.
  package func bind(bytes: [UInt8], at index: Int) throws {
    let result = bytes.withUnsafeBytes { buffer -> Int32 in
      if let base = buffer.baseAddress, buffer.count > 0 {
        return sqlite3_bind_blob(handle, Int32(index), base, Int32(buffer.count), transient)
      }
      return sqlite3_bind_zeroblob(handle, Int32(index), 0)
    }
    try check(result)
  }

  /// Runs the statement once with `text` bound to parameter `textIndex` and `bytes` to
  /// `bytesIndex` where they are (SQLite copies neither: they stay valid while it runs), then
  /// resets it and binds NULL to both, so no binding outlives that memory. The other parameters
  /// keep what was bound to them.
  package func execute(
    bindingInPlace text: String, at textIndex: Int, bytes: [UInt8], at bytesIndex: Int
  ) throws {
    var text = text
    try text.withUTF8 { utf8 in
      try bytes.withUnsafeBytes { raw in
        defer {
          sqlite3_reset(handle)
          needsReset = false
          sqlite3_bind_null(handle, Int32(textIndex))
          sqlite3_bind_null(handle, Int32(bytesIndex))
        }
        if let base = utf8.baseAddress, utf8.count > 0 {
          try base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
            try check(sqlite3_bind_text(handle, Int32(textIndex), $0, Int32(utf8.count), nil))
          }
        } else {
          try check(sqlite3_bind_text(handle, Int32(textIndex), "", 0, transient))
        }
        if let base = raw.baseAddress, raw.count > 0 {
          try check(sqlite3_bind_blob(handle, Int32(bytesIndex), base, Int32(raw.count), nil))
        } else {
          try check(sqlite3_bind_zeroblob(handle, Int32(bytesIndex), 0))
        }
        while try step() {}
      }
    }
  }

  /// Binds bytes to parameter `index` (from 1).
  ///
  /// For example: `try statement.bind(Data([0, 1, 0]), at: 4)`.
  ///
  /// - Parameters:
  ///   - value: The bytes; empty data stays an empty blob (not NULL).
  ///   - index: The parameter number, from 1.
  /// - Throws: ``SQLiteError``.
  public func bind(_ value: Data, at index: Int) throws {
    let result = value.withUnsafeBytes { buffer -> Int32 in
      if let base = buffer.baseAddress, buffer.count > 0 {
        return sqlite3_bind_blob(handle, Int32(index), base, Int32(buffer.count), transient)
      }
      return sqlite3_bind_zeroblob(handle, Int32(index), 0)
    }
    try check(result)
  }

  /// Binds NULL to parameter `index` (from 1).
  ///
  /// For example: `try statement.bindNull(at: 5)`.
  ///
  /// - Parameter index: The parameter number, from 1.
  /// - Throws: ``SQLiteError``.
  public func bindNull(at index: Int) throws {
    try check(sqlite3_bind_null(handle, Int32(index)))
  }

  /// Resets the statement so it can run again, keeping its bindings.
  ///
  /// For example: `statement.rewind()`.
  public func rewind() {
    sqlite3_reset(handle)
    needsReset = false
  }

  /// Resets the statement so it can run again, and clears its bindings.
  ///
  /// For example: `statement.reset()`.
  public func reset() {
    sqlite3_reset(handle)
    needsReset = false
    sqlite3_clear_bindings(handle)
  }

  // MARK: Stepping

  /// Runs the statement to its next row.
  ///
  /// For example:
  ///
  /// ```swift
  /// while try statement.step() { print(statement.int64(at: 0)) }
  /// ```
  ///
  /// - Returns: `true` when a row is available, `false` when the statement is done.
  /// - Throws: ``SQLiteError``; the statement is reset so it can be used again.
  @inline(__always)
  @discardableResult
  public func step() throws -> Bool {
    needsReset = true
    let result = sqlite3_step(handle)
    if result == SQLITE_ROW { return true }
    if result == SQLITE_DONE { return false }
    let error = SQLiteError(handle: database, result: result, sql: sql)
    sqlite3_reset(handle)
    throw error
  }

  /// Runs the statement to completion, ignoring rows, then resets it (bindings are kept).
  ///
  /// For example: `try statement.execute()`.
  ///
  /// - Throws: ``SQLiteError``.
  public func execute() throws {
    defer { rewind() }
    while try step() {}
  }

  // MARK: Reading columns

  /// The number of columns in each row.
  public var columnCount: Int { Int(sqlite3_column_count(handle)) }

  /// The name of column `index` (from 0).
  ///
  /// For example: `statement.columnName(at: 0)` is `"name"` for `SELECT name FROM trip`.
  ///
  /// - Parameter index: The column number, from 0.
  /// - Returns: The column's name.
  public func columnName(at index: Int) -> String {
    sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
  }

  /// Whether column `index` (from 0) of the current row is NULL.
  ///
  /// For example: `if statement.isNull(at: 2) { … }`.
  ///
  /// - Parameter index: The column number, from 0.
  /// - Returns: `true` for NULL.
  @inline(__always)
  public func isNull(at index: Int) -> Bool {
    sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
  }

  /// Column `index` (from 0) as an integer (NULL reads as 0).
  ///
  /// For example: `let cash = statement.int64(at: 1)`.
  ///
  /// - Parameter index: The column number, from 0.
  /// - Returns: The value.
  @inline(__always)
  public func int64(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

  /// Column `index` (from 0) as a floating-point number (NULL reads as 0).
  ///
  /// For example: `let price = statement.double(at: 2)`.
  ///
  /// - Parameter index: The column number, from 0.
  /// - Returns: The value.
  @inline(__always)
  public func double(at index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }

  /// Column `index` (from 0) as a `Double` written by ``bindExact(_:at:)``, bit for bit (NULL
  /// reads as 0).
  @inline(__always)
  package func exactDouble(at index: Int) -> Double {
    // The column's value is found once for its type and its number (see `columnValue(at:)`).
    let value = columnValue(at: index)
    if sqlite3_value_type(value) == SQLITE_BLOB { return exactDoubleFromBlob(at: index) }
    return sqlite3_value_double(value)
  }

  /// Column `index` (from 0), a BLOB, as the `Double` it encodes (NaN or `-0.0`), or 0 (out of
  /// line: rare, and `Data`'s code is large; a row read inlines `exactDouble(at:)` per column).
  @inline(never)
  private func exactDoubleFromBlob(at index: Int) -> Double {
    Double(exactSQLiteBlob: data(at: index)) ?? 0
  }

  /// Column `index` of the current row as SQLite's value: reading several things of it (type,
  /// text and length) through it finds the column once, where each `sqlite3_column_*` call finds
  /// it again (and takes the connection's mutex, when it has one). The value is SQLite's
  /// unprotected kind, which is safe to read here: a statement is used by one thread at a time
  /// and Kura's connections are opened with `SQLITE_OPEN_NOMUTEX`, so no mutex would guard it
  /// anyway. It is valid until the statement steps, resets or is finalized.
  @inline(__always)
  private func columnValue(at index: Int) -> OpaquePointer? {
    sqlite3_column_value(handle, Int32(index))
  }

  /// Column `index` (from 0) as text (NULL reads as the empty string).
  ///
  /// For example: `let memo = statement.string(at: 3)`.
  ///
  /// - Parameter index: The column number, from 0.
  /// - Returns: The value, decoded as UTF-8 (embedded NUL characters kept).
  @inline(__always)
  public func string(at index: Int) -> String {
    // Text, then its length, as SQLite asks (the length is of the converted text).
    let value = columnValue(at: index)
    guard let text = sqlite3_value_text(value) else { return "" }
    let count = Int(sqlite3_value_bytes(value))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }

  /// Column `index` (from 0) as bytes (NULL reads as empty data).
  ///
  /// For example: `let photo = statement.data(at: 4)`.
  ///
  /// - Parameter index: The column number, from 0.
  /// - Returns: The value.
  public func data(at index: Int) -> Data {
    guard let bytes = sqlite3_column_blob(handle, Int32(index)) else { return Data() }
    return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, Int32(index))))
  }

  /// Column `index` (from 0) in its stored storage class.
  ///
  /// For example:
  ///
  /// ```swift
  /// if case .text(let name) = statement.value(at: 0) { print(name) }
  /// ```
  ///
  /// - Parameter index: The column number, from 0.
  /// - Returns: The value.
  public func value(at index: Int) -> DatabaseValue {
    switch sqlite3_column_type(handle, Int32(index)) {
    case SQLITE_INTEGER: return .integer(int64(at: index))
    case SQLITE_FLOAT: return .real(double(at: index))
    case SQLITE_TEXT: return .text(string(at: index))
    case SQLITE_BLOB: return .blob(data(at: index))
    default: return .null
    }
  }

  /// Column `index` (from 0) converted to a Swift type, as ``DatabaseValue`` documents.
  ///
  /// For example: `let id: UUID? = statement.value(UUID.self, at: 0)`.
  ///
  /// - Parameters:
  ///   - type: The type to read.
  ///   - index: The column number, from 0.
  /// - Returns: The value, or `nil` when the stored value does not fit the type.
  public func value<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int) -> Value? {
    Value(databaseValue: value(at: index))
  }
}

extension Statement: DatabaseValueBinding {}
