import Foundation

/// A prepared statement whose parameters take each kind of ``DatabaseValue``: SQLite's
/// ``Statement`` and PostgreSQL's `PostgresStatement`. A driver binds the four kinds and NULL;
/// binding a ``DatabaseValue``, a convertible value or a list of values is written once here.
///
/// For example:
///
/// ```swift
/// let statement = try connection.prepare("INSERT INTO entry (id, cash) VALUES (?, ?)")
/// try statement.bind([.text("A"), .integer(2800)])
/// try statement.execute()
/// ```
public protocol DatabaseValueBinding: AnyObject {
  /// Binds an integer to parameter `index` (from 1).
  ///
  /// For example: `try statement.bind(Int64(2800), at: 2)`.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - index: The parameter number, from 1.
  /// - Throws: The driver's error (such as an ``SQLiteError``), such as for a bad index.
  func bind(_ value: Int64, at index: Int) throws
  /// Binds a floating-point number to parameter `index` (from 1).
  ///
  /// For example: `try statement.bind(2.5, at: 3)`.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - index: The parameter number, from 1.
  /// - Throws: The driver's error (such as an ``SQLiteError``).
  func bind(_ value: Double, at index: Int) throws
  /// Binds text to parameter `index` (from 1).
  ///
  /// For example: `try statement.bind("A", at: 1)`.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - index: The parameter number, from 1.
  /// - Throws: The driver's error (such as an ``SQLiteError``).
  func bind(_ value: String, at index: Int) throws
  /// Binds bytes to parameter `index` (from 1).
  ///
  /// For example: `try statement.bind(Data([0, 1]), at: 4)`.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - index: The parameter number, from 1.
  /// - Throws: The driver's error (such as an ``SQLiteError``).
  func bind(_ value: Data, at index: Int) throws
  /// Binds NULL to parameter `index` (from 1).
  ///
  /// For example: `try statement.bindNull(at: 5)`.
  ///
  /// - Parameter index: The parameter number, from 1.
  /// - Throws: The driver's error (such as an ``SQLiteError``).
  func bindNull(at index: Int) throws
}

extension DatabaseValueBinding {
  /// Binds any ``DatabaseValue`` to parameter `index` (from 1).
  ///
  /// For example: `try statement.bind(.text("A"), at: 1)`.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - index: The parameter number, from 1.
  /// - Throws: The driver's error (such as an ``SQLiteError``).
  @inlinable
  public func bind(_ value: DatabaseValue, at index: Int) throws {
    switch value {
    case .integer(let value): try bind(value, at: index)
    case .real(let value): try bind(value, at: index)
    case .text(let value): try bind(value, at: index)
    case .blob(let value): try bind(value, at: index)
    case .null: try bindNull(at: index)
    }
  }

  /// Binds any convertible value (Bool, Date, UUID, URL, optionals…) to parameter `index`, as
  /// ``DatabaseValue`` documents.
  ///
  /// For example: `try statement.bind(value: UUID(), at: 1)`.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - index: The parameter number, from 1.
  /// - Throws: The driver's error (such as an ``SQLiteError``).
  @inlinable
  public func bind<Value: DatabaseValueConvertible>(value: Value, at index: Int) throws {
    try bind(value.databaseValue, at: index)
  }

  /// Binds values to parameters 1, 2, 3… in order.
  ///
  /// For example: `try statement.bind([.text("A"), .integer(1)])`.
  ///
  /// - Parameter values: One value per parameter.
  /// - Throws: The driver's error (such as an ``SQLiteError``).
  @inlinable
  public func bind(_ values: [DatabaseValue]) throws {
    for (offset, value) in values.enumerated() { try bind(value, at: offset + 1) }
  }
}
