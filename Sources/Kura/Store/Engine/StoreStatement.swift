import Foundation

/// A prepared statement of a store's engine (see ``StoreEngine``): bind values, step through
/// rows, read columns.
///
/// Parameters are numbered from 1, columns from 0. The methods keep ``Statement``'s names and
/// are inlined: on the row hot paths (``RowEncoder``, ``RowDecoder``) a call costs the engine's
/// own call.
enum StoreStatement {
  case sqlite(Statement)
  #if canImport(CLibPQ)
    /// A PostgreSQL statement and the connection it runs on (whose row tracker it reports to).
    case postgres(PostgresStatement, PostgresStoreConnection)
  #endif

  /// Identifies the statement (row coders are cached by it).
  var identity: ObjectIdentifier {
    switch self {
    case .sqlite(let statement): return ObjectIdentifier(statement)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): return ObjectIdentifier(statement)
    #endif
    }
  }

  /// The SQL text.
  var sql: String {
    switch self {
    case .sqlite(let statement): return statement.sql
    #if canImport(CLibPQ)
      case .postgres(let statement, _): return statement.sql
    #endif
    }
  }

  // MARK: Binding

  /// Binds an integer to parameter `index` (from 1).
  @inline(__always)
  func bind(_ value: Int64, at index: Int) throws {
    switch self {
    case .sqlite(let statement): try statement.bind(value, at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): try statement.bind(value, at: index)
    #endif
    }
  }

  /// Binds an integer to parameter `index` (from 1).
  @inline(__always)
  func bind(_ value: Int, at index: Int) throws {
    switch self {
    case .sqlite(let statement): try statement.bind(value, at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): try statement.bind(value, at: index)
    #endif
    }
  }

  /// Binds a floating-point number to parameter `index` (from 1).
  @inline(__always)
  func bind(_ value: Double, at index: Int) throws {
    switch self {
    case .sqlite(let statement): try statement.bind(value, at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): try statement.bind(value, at: index)
    #endif
    }
  }

  /// Binds a `Double` that ``exactDouble(at:)`` reads back bit for bit (NaN and `-0.0` too).
  @inline(__always)
  func bindExact(_ value: Double, at index: Int) throws {
    switch self {
    case .sqlite(let statement): try statement.bindExact(value, at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): try statement.bindExact(value, at: index)
    #endif
    }
  }

  /// Binds text to parameter `index` (from 1).
  @inline(__always)
  func bind(_ value: String, at index: Int) throws {
    switch self {
    case .sqlite(let statement): try statement.bind(value, at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): try statement.bind(value, at: index)
    #endif
    }
  }

  /// Binds bytes to parameter `index` (from 1).
  @inline(__always)
  func bind(_ value: Data, at index: Int) throws {
    switch self {
    case .sqlite(let statement): try statement.bind(value, at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): try statement.bind(value, at: index)
    #endif
    }
  }

  /// Binds NULL to parameter `index` (from 1).
  @inline(__always)
  func bindNull(at index: Int) throws {
    switch self {
    case .sqlite(let statement): try statement.bindNull(at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): try statement.bindNull(at: index)
    #endif
    }
  }

  /// Binds any value to parameter `index` (from 1).
  @inline(__always)
  func bind(_ value: SQLiteValue, at index: Int) throws {
    switch self {
    case .sqlite(let statement): try statement.bind(value, at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): try statement.bind(value, at: index)
    #endif
    }
  }

  /// Binds values to parameters 1, 2, 3… in order.
  func bind(_ values: [SQLiteValue]) throws {
    switch self {
    case .sqlite(let statement): try statement.bind(values)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): try statement.bind(values)
    #endif
    }
  }

  /// Resets the statement so it can run again, keeping its bindings.
  @inline(__always)
  func rewind() {
    switch self {
    case .sqlite(let statement): statement.rewind()
    #if canImport(CLibPQ)
      case .postgres(let statement, _): statement.rewind()
    #endif
    }
  }

  /// Resets the statement so it can run again, and clears its bindings.
  @inline(__always)
  func reset() {
    switch self {
    case .sqlite(let statement): statement.reset()
    #if canImport(CLibPQ)
      case .postgres(let statement, _): statement.reset()
    #endif
    }
  }

  // MARK: Stepping

  /// Runs the statement to its next row; `false` when it is done.
  @inline(__always)
  @discardableResult
  func step() throws -> Bool {
    switch self {
    case .sqlite(let statement): return try statement.step()
    #if canImport(CLibPQ)
      case .postgres(let statement, _): return try statement.step()
    #endif
    }
  }

  /// Runs the statement to completion, ignoring rows, then rewinds it.
  @inline(__always)
  func execute() throws {
    switch self {
    case .sqlite(let statement): try statement.execute()
    #if canImport(CLibPQ)
      case .postgres(let statement, let connection):
        if let tracker = connection.tracker {
          try tracker.execute(statement, on: connection.connection)
        } else {
          try statement.execute()
        }
    #endif
    }
  }

  // MARK: Reading columns

  /// The number of columns in each row.
  var columnCount: Int {
    switch self {
    case .sqlite(let statement): return statement.columnCount
    #if canImport(CLibPQ)
      case .postgres(let statement, _): return statement.columnCount
    #endif
    }
  }

  /// The name of column `index` (from 0).
  func columnName(at index: Int) -> String {
    switch self {
    case .sqlite(let statement): return statement.columnName(at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): return statement.columnName(at: index)
    #endif
    }
  }

  /// Whether column `index` (from 0) of the current row is NULL.
  @inline(__always)
  func isNull(at index: Int) -> Bool {
    switch self {
    case .sqlite(let statement): return statement.isNull(at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): return statement.isNull(at: index)
    #endif
    }
  }

  /// Column `index` (from 0) as an integer (NULL reads as 0).
  @inline(__always)
  func int64(at index: Int) -> Int64 {
    switch self {
    case .sqlite(let statement): return statement.int64(at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): return statement.int64(at: index)
    #endif
    }
  }

  /// Column `index` (from 0) as a floating-point number (NULL reads as 0).
  @inline(__always)
  func double(at index: Int) -> Double {
    switch self {
    case .sqlite(let statement): return statement.double(at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): return statement.double(at: index)
    #endif
    }
  }

  /// Column `index` (from 0) as a `Double` written by ``bindExact(_:at:)``, bit for bit.
  @inline(__always)
  func exactDouble(at index: Int) -> Double {
    switch self {
    case .sqlite(let statement): return statement.exactDouble(at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): return statement.exactDouble(at: index)
    #endif
    }
  }

  /// Column `index` (from 0) as text (NULL reads as the empty string).
  @inline(__always)
  func string(at index: Int) -> String {
    switch self {
    case .sqlite(let statement): return statement.string(at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): return statement.string(at: index)
    #endif
    }
  }

  /// Column `index` (from 0) as bytes (NULL reads as empty data).
  @inline(__always)
  func data(at index: Int) -> Data {
    switch self {
    case .sqlite(let statement): return statement.data(at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): return statement.data(at: index)
    #endif
    }
  }

  /// Column `index` (from 0) as the value it holds.
  func value(at index: Int) -> SQLiteValue {
    switch self {
    case .sqlite(let statement): return statement.value(at: index)
    #if canImport(CLibPQ)
      case .postgres(let statement, _): return statement.value(at: index)
    #endif
    }
  }
}
