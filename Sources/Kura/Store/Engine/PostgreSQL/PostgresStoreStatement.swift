#if canImport(CLibPQ)
  import Foundation

  /// A prepared statement of a PostgreSQL store (the engine's ``StoreStatement``): the libpq
  /// statement and the store connection it runs on, whose row tracker ``execute()`` reports to
  /// (a class, as every ``StoreStatement``: one is made per statement handed to the store).
  final class PostgresStoreStatement: StoreStatement {
    /// The libpq statement.
    let statement: PostgresStatement
    /// The store connection the statement was prepared on.
    let connection: PostgresStoreConnection

    init(statement: PostgresStatement, connection: PostgresStoreConnection) {
      self.statement = statement
      self.connection = connection
    }

    var identity: ObjectIdentifier { ObjectIdentifier(statement) }

    var sql: String { statement.sql }

    // MARK: Binding

    func bind(_ value: Int64, at index: Int) throws { try statement.bind(value, at: index) }

    func bind(_ value: Int, at index: Int) throws { try statement.bind(value, at: index) }

    func bind(_ value: Double, at index: Int) throws { try statement.bind(value, at: index) }

    func bindExact(_ value: Double, at index: Int) throws {
      try statement.bindExact(value, at: index)
    }

    func bind(_ value: String, at index: Int) throws { try statement.bind(value, at: index) }

    func bind(_ value: Data, at index: Int) throws { try statement.bind(value, at: index) }

    func bindNull(at index: Int) throws { try statement.bindNull(at: index) }

    func bind(_ value: DatabaseValue, at index: Int) throws { try statement.bind(value, at: index) }

    func bind(_ values: [DatabaseValue]) throws { try statement.bind(values) }

    func rewind() { statement.rewind() }

    func reset() { statement.reset() }

    // MARK: Stepping

    @discardableResult
    func step() throws -> Bool { try statement.step() }

    var rowsLeftHint: Int? { statement.rowsLeft }

    /// Runs the statement; inside ``PostgresStoreConnection/trackingRowChanges(in:_:)`` its
    /// tracker records what the statement did.
    func execute() throws {
      if let tracker = connection.tracker {
        try tracker.execute(statement, on: connection.connection)
      } else {
        try statement.execute()
      }
    }

    // MARK: Reading columns

    var columnCount: Int { statement.columnCount }

    func columnName(at index: Int) -> String { statement.columnName(at: index) }

    func isNull(at index: Int) -> Bool { statement.isNull(at: index) }

    func int64(at index: Int) -> Int64 { statement.int64(at: index) }

    func double(at index: Int) -> Double { statement.double(at: index) }

    func exactDouble(at index: Int) -> Double { statement.exactDouble(at: index) }

    func string(at index: Int) -> String { statement.string(at: index) }

    func data(at index: Int) -> Data { statement.data(at: index) }

    func value(at index: Int) -> DatabaseValue { statement.value(at: index) }
  }
#endif
