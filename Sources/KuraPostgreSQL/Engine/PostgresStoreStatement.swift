import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  /// A prepared statement of a PostgreSQL store (the engine's ``StoreStatement``): the libpq
  /// statement and the store connection it runs on, whose row tracker ``execute()`` reports to
  /// (a class, as every ``StoreStatement``: one is made per statement handed to the store).
  package final class PostgresStoreStatement: StoreStatement {
    /// The libpq statement.
    package let statement: PostgresStatement
    /// The store connection the statement was prepared on.
    package let connection: PostgresStoreConnection

    package init(statement: PostgresStatement, connection: PostgresStoreConnection) {
      self.statement = statement
      self.connection = connection
    }

    package var identity: ObjectIdentifier { ObjectIdentifier(statement) }

    package var sql: String { statement.sql }

    // MARK: Binding

    package func bind(_ value: Int64, at index: Int) throws { try statement.bind(value, at: index) }

    package func bind(_ value: Int, at index: Int) throws { try statement.bind(value, at: index) }

    package func bind(_ value: Double, at index: Int) throws {
      try statement.bind(value, at: index)
    }

    package func bindExact(_ value: Double, at index: Int) throws {
      try statement.bindExact(value, at: index)
    }

    package func bind(_ value: String, at index: Int) throws {
      try statement.bind(value, at: index)
    }

    package func bind(_ value: Data, at index: Int) throws { try statement.bind(value, at: index) }

    package func bindNull(at index: Int) throws { try statement.bindNull(at: index) }

    package func bind(_ value: DatabaseValue, at index: Int) throws {
      try statement.bind(value, at: index)
    }

    package func bind(_ values: [DatabaseValue]) throws { try statement.bind(values) }

    package func rewind() { statement.rewind() }

    package func reset() { statement.reset() }

    // MARK: Stepping

    @discardableResult
    package func step() throws -> Bool { try statement.step() }

    package var rowsLeftHint: Int? { statement.rowsLeft }

    /// Runs the statement; inside ``PostgresStoreConnection/trackingRowChanges(in:_:)`` its
    /// tracker records what the statement did.
    package func execute() throws {
      if let tracker = connection.tracker {
        try tracker.execute(statement, on: connection.connection)
      } else {
        try statement.execute()
      }
    }

    // MARK: Reading columns

    package var columnCount: Int { statement.columnCount }

    package func columnName(at index: Int) -> String { statement.columnName(at: index) }

    package func isNull(at index: Int) -> Bool { statement.isNull(at: index) }

    package func int64(at index: Int) -> Int64 { statement.int64(at: index) }

    package func double(at index: Int) -> Double { statement.double(at: index) }

    package func exactDouble(at index: Int) -> Double { statement.exactDouble(at: index) }

    package func string(at index: Int) -> String { statement.string(at: index) }

    package func data(at index: Int) -> Data { statement.data(at: index) }

    package func value(at index: Int) -> DatabaseValue { statement.value(at: index) }
  }
#endif
