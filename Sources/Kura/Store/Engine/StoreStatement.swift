import Foundation

/// A prepared statement of a store's engine (see ``StoreEngine``): bind values, step through
/// rows, read columns.
///
/// Parameters are numbered from 1, columns from 0. The requirements keep ``Statement``'s names
/// (SQLite's statement conforms as it is); on the row hot paths (``RowEncoder``, ``RowDecoder``,
/// ``RowPlan``) each bind or read is one witness call to the engine's own method.
protocol StoreStatement {
  /// Identifies the statement (row coders are cached by it).
  var identity: ObjectIdentifier { get }

  /// The SQL text.
  var sql: String { get }

  // MARK: Binding

  /// Binds an integer to parameter `index` (from 1).
  func bind(_ value: Int64, at index: Int) throws

  /// Binds an integer to parameter `index` (from 1).
  func bind(_ value: Int, at index: Int) throws

  /// Binds a floating-point number to parameter `index` (from 1).
  func bind(_ value: Double, at index: Int) throws

  /// Binds a `Double` that ``exactDouble(at:)`` reads back bit for bit (NaN and `-0.0` too).
  func bindExact(_ value: Double, at index: Int) throws

  /// Binds text to parameter `index` (from 1).
  func bind(_ value: String, at index: Int) throws

  /// Binds bytes to parameter `index` (from 1).
  func bind(_ value: Data, at index: Int) throws

  /// Binds NULL to parameter `index` (from 1).
  func bindNull(at index: Int) throws

  /// Binds any value to parameter `index` (from 1).
  func bind(_ value: SQLiteValue, at index: Int) throws

  /// Binds values to parameters 1, 2, 3… in order.
  func bind(_ values: [SQLiteValue]) throws

  /// Resets the statement so it can run again, keeping its bindings.
  func rewind()

  /// Resets the statement so it can run again, and clears its bindings.
  func reset()

  // MARK: Stepping

  /// Runs the statement to its next row; `false` when it is done.
  @discardableResult
  func step() throws -> Bool

  /// Runs the statement to completion, ignoring rows, then rewinds it.
  func execute() throws

  // MARK: Reading columns

  /// The number of columns in each row.
  var columnCount: Int { get }

  /// The name of column `index` (from 0).
  func columnName(at index: Int) -> String

  /// Whether column `index` (from 0) of the current row is NULL.
  func isNull(at index: Int) -> Bool

  /// Column `index` (from 0) as an integer (NULL reads as 0).
  func int64(at index: Int) -> Int64

  /// Column `index` (from 0) as a floating-point number (NULL reads as 0).
  func double(at index: Int) -> Double

  /// Column `index` (from 0) as a `Double` written by ``bindExact(_:at:)``, bit for bit.
  func exactDouble(at index: Int) -> Double

  /// Column `index` (from 0) as text (NULL reads as the empty string).
  func string(at index: Int) -> String

  /// Column `index` (from 0) as bytes (NULL reads as empty data).
  func data(at index: Int) -> Data

  /// Column `index` (from 0) as the value it holds.
  func value(at index: Int) -> SQLiteValue
}
