import Foundation
import KuraBase
import KuraSQLite

/// A prepared statement of a store's engine (see ``StoreEngine``): bind values, step through
/// rows, read columns.
///
/// Parameters are numbered from 1, columns from 0. The requirements keep ``Statement``'s names
/// (SQLite's statement conforms as it is). A whole row is read or bound in one call,
/// ``readRow(_:into:)`` and ``bindRow(_:from:)``, whose one implementation (a protocol
/// extension) each conformance gets specialized for its own type: the per-column calls of a
/// ``RowPlan`` are the engine's own, not witness calls. (The `Codable` path of ``RowEncoder`` and
/// ``RowDecoder`` calls the requirements column by column.) Statements are classes, so an
/// `any StoreStatement` is a reference and a witness table: passing one costs a retain.
package protocol StoreStatement: AnyObject {
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
  func bind(_ value: DatabaseValue, at index: Int) throws

  /// Binds values to parameters 1, 2, 3… in order.
  func bind(_ values: [DatabaseValue]) throws

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
  func value(at index: Int) -> DatabaseValue

  // MARK: Rows

  /// After a step that returned a row, how many rows the statement holds from that one on,
  /// when the engine knows (PostgreSQL has every row of a result at once; SQLite steps without
  /// knowing, `nil`): a fetch reads them straight into an array of that size.
  var rowsLeftHint: Int? { get }

  /// Initializes every property of the model at `base`, laid out as `layout` says, from the
  /// current row (columns in schema order); on a failure, what was initialized is deinitialized
  /// again. Implemented once for every engine (``RowLayout``).
  func readRow(_ layout: RowLayout, into base: UnsafeMutableRawPointer) throws

  /// Binds every column of the model at `base`, laid out as `layout` says (parameter `n + 1` is
  /// column `n`). Implemented once for every engine (``RowLayout``).
  func bindRow(_ layout: RowLayout, from base: UnsafeRawPointer) throws
}
