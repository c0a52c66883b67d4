#if canImport(CLibPQ)
  import Foundation
  internal import CLibPQ

  /// A prepared SQL statement on a PostgreSQL server: bind values, step through rows, read
  /// columns — the same calls as SQLite's ``Statement``.
  ///
  /// The SQL uses SQLite's placeholders, `?` and `?N`, rewritten as PostgreSQL's `$N`.
  /// Parameters are numbered from 1, columns from 0. The statement is prepared on the server
  /// (a named prepared statement) when it is created; the first ``step()`` sends the bound
  /// values and receives every row at once, later steps move through them.
  ///
  /// The server decides each parameter's type from the SQL (`WHERE id = ?` takes the column's
  /// type); a bound value is converted to it: an integer bound to a `double precision`
  /// parameter is sent as one, a `Double` bound to a `bigint` parameter must have no fraction,
  /// and text is sent as text for any type the server can read from text. Values are sent and
  /// rows received in binary, so a `Double` (NaN, infinities and `-0.0` included) reads back bit
  /// for bit.
  ///
  /// A statement belongs to the ``PostgresConnection`` that prepared it and is used by one
  /// thread at a time. Statements from ``PostgresConnection/cachedStatement(_:)`` are reset and
  /// cleared when handed out again.
  ///
  /// For example:
  ///
  /// ```swift
  /// let statement = try connection.cachedStatement("SELECT name FROM trip WHERE year > ?")
  /// try statement.bind(2020, at: 1)
  /// while try statement.step() {
  ///   print(statement.string(at: 0))
  /// }
  /// ```
  public final class PostgresStatement {
    private let session: PostgresSession
    /// The SQL text, with SQLite's placeholders.
    public let sql: String
    /// The SQL sent to the server, with `$N` placeholders.
    let preparedSQL: String
    /// The server-side name of the prepared statement.
    private var name: String
    /// Whether this statement deallocates `name` when it goes (a copy made for a nested use of
    /// a cached statement shares the original's name and keeps the original alive).
    private var ownsName: Bool
    private var keepAlive: PostgresStatement?
    /// The session generation `name` was prepared in.
    private var generation: Int
    /// The type the server chose for each parameter.
    @exclusivity(unchecked) private(set) var parameterTypes: [UInt32] = []
    private var columnNames: [String] = []
    /// 1 (binary) when every result column has a binary form read here, else 0 (text).
    private var resultFormat: Int32 = 1

    // Bound values, as libpq reads them: one buffer per parameter, reused. A statement is used
    // by one thread at a time, and no access to these overlaps another (no dynamic exclusivity
    // check, which cost each bind more than the store).
    @exclusivity(unchecked) private var values: [UnsafePointer<CChar>?] = []
    @exclusivity(unchecked) private var lengths: [Int32] = []
    @exclusivity(unchecked) private var formats: [Int32] = []
    @exclusivity(unchecked) private var buffers: [UnsafeMutableRawPointer?] = []
    @exclusivity(unchecked) private var capacities: [Int] = []

    // Rows of the last execution.
    @exclusivity(unchecked) private var result: OpaquePointer?
    @exclusivity(unchecked) private var row: Int32 = 0
    @exclusivity(unchecked) private var rowCount: Int32 = 0
    @exclusivity(unchecked) private var state = State.ready

    private enum State {
      /// Not executed since the last rewind (or finished with an error).
      case ready
      /// Executed; `row` is the current row of `result`.
      case rows
      /// Executed, and every row was read.
      case done
    }

    /// Prepares `sql` on the session's server.
    init(session: PostgresSession, sql: String) throws {
      self.session = session
      self.sql = sql
      self.preparedSQL = PostgresPlaceholders.rewrite(sql).sql
      self.name = session.nextStatementName()
      self.ownsName = true
      self.generation = session.generation
      try prepareOnServer()
    }

    /// A second statement for the same prepared statement, for running it again while
    /// `original` is still in the middle of its rows.
    init(sharing original: PostgresStatement) {
      session = original.session
      sql = original.sql
      preparedSQL = original.preparedSQL
      name = original.name
      ownsName = false
      keepAlive = original
      generation = original.generation
      resultFormat = original.resultFormat
      columnNames = original.columnNames
      setParameterTypes(original.parameterTypes)
    }

    deinit {
      if let result { PQclear(result) }
      for buffer in buffers { free(buffer) }
      if ownsName { session.release(name, generation: generation) }
    }

    /// Prepares the statement on the server and learns its parameter and column types.
    private func prepareOnServer() throws {
      session.deallocateUnusedStatements()
      let handle = try session.liveHandle(sql: sql)
      let prepared = PQprepare(handle, name, preparedSQL, 0, nil)
      guard PQresultStatus(prepared) == PGRES_COMMAND_OK else {
        let error = session.error(prepared, sql: sql, committing: false)
        PQclear(prepared)
        // No such prepared statement exists to deallocate.
        ownsName = false
        throw error
      }
      PQclear(prepared)
      let description = PQdescribePrepared(handle, name)
      defer { PQclear(description) }
      guard PQresultStatus(description) == PGRES_COMMAND_OK else {
        throw session.error(description, sql: sql, committing: false)
      }
      setParameterTypes((0..<PQnparams(description)).map { PQparamtype(description, $0) })
      let columns = 0..<PQnfields(description)
      columnNames = columns.map { column in
        PQfname(description, column).map { String(cString: $0) } ?? ""
      }
      let binary = columns.allSatisfy { PostgresType.hasBinaryReading(PQftype(description, $0)) }
      resultFormat = binary ? 1 : 0
      generation = session.generation
    }

    private func setParameterTypes(_ types: [UInt32]) {
      parameterTypes = types
      if values.count != types.count {
        for buffer in buffers { free(buffer) }
        values = Array(repeating: nil, count: types.count)
        lengths = Array(repeating: 0, count: types.count)
        formats = Array(repeating: 0, count: types.count)
        buffers = Array(repeating: nil, count: types.count)
        capacities = Array(repeating: 0, count: types.count)
      }
    }

    /// Whether the statement is in the middle of its rows.
    var isBusy: Bool { state == .rows }

    // MARK: Binding

    /// The number of parameters the SQL declares.
    ///
    /// For example: `statement.parameterCount` is `2` for `SELECT * FROM t WHERE a = ? AND b = ?`.
    public var parameterCount: Int { parameterTypes.count }

    /// The error for a value or parameter this statement can't take (`message` says which and
    /// why), naming the server and the SQL.
    private func refusal(_ message: String) -> PostgresError {
      PostgresError(kind: .other, message: message, server: session.server, sql: sql)
    }

    /// The slot (from 0) of parameter `index` (from 1).
    @inline(__always)
    private func slot(_ index: Int) throws -> Int {
      guard index >= 1 && index <= parameterTypes.count else {
        throw refusal(
          "parameter \(index) is out of range: the statement has \(parameterTypes.count)"
            + " parameter(s)")
      }
      return index - 1
    }

    /// Stores `count` bytes written by `write` as the value of `slot`, in `format` (0 text, with
    /// a NUL added; 1 binary).
    @inline(__always)
    private func store(
      _ slot: Int, count: Int, format: Int32, _ write: (UnsafeMutableRawPointer) -> Void
    ) throws {
      let needed = count + 1
      var buffer = buffers[slot]
      if capacities[slot] < needed || buffer == nil {
        let capacity = max(needed, 32)
        guard let grown = realloc(buffer, capacity) else {
          throw refusal(
            "out of memory for a \(count)-byte value of parameter \(slot + 1); bind a smaller"
              + " value")
        }
        buffer = grown
        buffers[slot] = grown
        capacities[slot] = capacity
      }
      guard let buffer else { return }
      write(buffer)
      buffer.storeBytes(of: 0, toByteOffset: count, as: UInt8.self)
      values[slot] = UnsafePointer(buffer.assumingMemoryBound(to: CChar.self))
      lengths[slot] = Int32(clamping: count)
      formats[slot] = format
    }

    @inline(__always)
    private func storeBinary<Value: FixedWidthInteger>(_ slot: Int, _ value: Value) throws {
      try store(slot, count: MemoryLayout<Value>.size, format: 1) {
        $0.storeBytes(of: value.bigEndian, as: Value.self)
      }
    }

    private func storeBytes(_ slot: Int, _ bytes: UnsafeRawBufferPointer, format: Int32) throws {
      try store(slot, count: bytes.count, format: format) { buffer in
        if let base = bytes.baseAddress, bytes.count > 0 {
          buffer.copyMemory(from: base, byteCount: bytes.count)
        }
      }
    }

    /// Text the server reads with the parameter type's own input (text format).
    private func storeText(_ slot: Int, _ text: String, index: Int) throws {
      var text = text
      try text.withUTF8 { bytes in
        if bytes.contains(0) {
          throw refusal(
            "the text bound to parameter \(index) contains a NUL character, which PostgreSQL"
              + " can't store")
        }
        try storeBytes(slot, UnsafeRawBufferPointer(bytes), format: 0)
      }
    }

    /// Binds an integer to parameter `index` (from 1), converted to the parameter's type.
    ///
    /// For example: `try statement.bind(Int64(2800), at: 2)`.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - index: The parameter number, from 1.
    /// - Throws: ``PostgresError`` for a bad index.
    public func bind(_ value: Int64, at index: Int) throws {
      let slot = try slot(index)
      switch parameterTypes[slot] {
      case PostgresType.int8: try storeBinary(slot, value)
      case PostgresType.int4 where Int32(exactly: value) != nil:
        try storeBinary(slot, Int32(truncatingIfNeeded: value))
      case PostgresType.int2 where Int16(exactly: value) != nil:
        try storeBinary(slot, Int16(truncatingIfNeeded: value))
      case PostgresType.float8: try storeBinary(slot, Double(value).bitPattern)
      case PostgresType.float4: try storeBinary(slot, Float(value).bitPattern)
      case PostgresType.bool: try storeBinary(slot, UInt8(value != 0 ? 1 : 0))
      default:
        // Any other type (and an integer too large for a smaller one, which the server then
        // refuses) reads the decimal text.
        try storeText(slot, String(value), index: index)
      }
    }

    /// Binds an integer to parameter `index` (from 1), converted to the parameter's type.
    ///
    /// For example: `try statement.bind(3, at: 1)`.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - index: The parameter number, from 1.
    /// - Throws: ``PostgresError`` for a bad index.
    public func bind(_ value: Int, at index: Int) throws {
      try bind(Int64(value), at: index)
    }

    /// Binds a floating-point number to parameter `index` (from 1): bit for bit (NaN, infinities
    /// and `-0.0` included) to a `double precision` parameter; to an integer parameter it must
    /// have no fraction.
    ///
    /// For example: `try statement.bind(2.5, at: 3)`.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - index: The parameter number, from 1.
    /// - Throws: ``PostgresError`` for a bad index.
    public func bind(_ value: Double, at index: Int) throws {
      let slot = try slot(index)
      switch parameterTypes[slot] {
      case PostgresType.float8: try storeBinary(slot, value.bitPattern)
      case PostgresType.float4: try storeBinary(slot, Float(value).bitPattern)
      case PostgresType.int8 where Int64(exactly: value) != nil:
        try storeBinary(slot, Int64(value))
      case PostgresType.int4 where Int32(exactly: value) != nil:
        try storeBinary(slot, Int32(value))
      case PostgresType.int2 where Int16(exactly: value) != nil:
        try storeBinary(slot, Int16(value))
      default:
        try storeText(slot, PostgresType.text(of: value), index: index)
      }
    }

    /// Binds a `Double` so that it reads back bit for bit with ``exactDouble(at:)`` (binary
    /// `double precision` is exact already, so this is ``bind(_:at:)-(Double,_)``).
    func bindExact(_ value: Double, at index: Int) throws {
      try bind(value, at: index)
    }

    /// Binds text to parameter `index` (from 1): as text to a text, `varchar`, `json` or
    /// `bytea` parameter, and as the text the server reads with the type's own input for any
    /// other type (`'2024-05-01'` for a `date`, a UUID string for a `uuid`).
    ///
    /// For example: `try statement.bind("高速代金", at: 2)`.
    ///
    /// - Parameters:
    ///   - value: The value; the empty string stays empty (not NULL).
    ///   - index: The parameter number, from 1.
    /// - Throws: ``PostgresError`` for a bad index, or text with a NUL character bound to a
    ///   parameter that is not text.
    public func bind(_ value: String, at index: Int) throws {
      let slot = try slot(index)
      if PostgresType.takesRawText(parameterTypes[slot]) {
        var value = value
        try value.withUTF8 { try storeBytes(slot, UnsafeRawBufferPointer($0), format: 1) }
      } else {
        try storeText(slot, value, index: index)
      }
    }

    /// Binds bytes without copying them into a `Data` first.
    func bind(bytes: [UInt8], at index: Int) throws {
      try bytes.withUnsafeBytes { try bind(raw: $0, at: index) }
    }

    /// Binds bytes to parameter `index` (from 1) of type `bytea` (or text, which must then be
    /// valid UTF-8).
    ///
    /// For example: `try statement.bind(Data([0, 1, 0]), at: 4)`.
    ///
    /// - Parameters:
    ///   - value: The bytes; empty data stays empty (not NULL).
    ///   - index: The parameter number, from 1.
    /// - Throws: ``PostgresError`` for a bad index or a parameter of another type.
    public func bind(_ value: Data, at index: Int) throws {
      try value.withUnsafeBytes { try bind(raw: $0, at: index) }
    }

    private func bind(raw bytes: UnsafeRawBufferPointer, at index: Int) throws {
      let slot = try slot(index)
      let type = parameterTypes[slot]
      guard PostgresType.takesRawText(type) else {
        throw refusal(
          "can't bind bytes to parameter \(index), of type \(PostgresType.name(of: type));"
            + " bind them to a bytea parameter")
      }
      try storeBytes(slot, bytes, format: 1)
    }

    /// Binds NULL to parameter `index` (from 1).
    ///
    /// For example: `try statement.bindNull(at: 5)`.
    ///
    /// - Parameter index: The parameter number, from 1.
    /// - Throws: ``PostgresError`` for a bad index.
    public func bindNull(at index: Int) throws {
      values[try slot(index)] = nil
    }

    /// Binds any ``SQLiteValue`` to parameter `index` (from 1).
    ///
    /// For example: `try statement.bind(.text("A"), at: 1)`.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - index: The parameter number, from 1.
    /// - Throws: ``PostgresError``.
    public func bind(_ value: SQLiteValue, at index: Int) throws {
      switch value {
      case .integer(let value): try bind(value, at: index)
      case .real(let value): try bind(value, at: index)
      case .text(let value): try bind(value, at: index)
      case .blob(let value): try bind(value, at: index)
      case .null: try bindNull(at: index)
      }
    }

    /// Binds any convertible value (Bool, Date, UUID, URL, optionals…) to parameter `index`,
    /// as ``SQLiteValue`` documents.
    ///
    /// For example: `try statement.bind(value: UUID(), at: 1)`.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - index: The parameter number, from 1.
    /// - Throws: ``PostgresError``.
    public func bind<Value: SQLiteValueConvertible>(value: Value, at index: Int) throws {
      try bind(value.sqliteValue, at: index)
    }

    /// Binds values to parameters 1, 2, 3… in order.
    ///
    /// For example: `try statement.bind([.text("A"), .integer(1)])`.
    ///
    /// - Parameter values: One value per parameter.
    /// - Throws: ``PostgresError``.
    public func bind(_ values: [SQLiteValue]) throws {
      for (offset, value) in values.enumerated() { try bind(value, at: offset + 1) }
    }

    /// Appends the bound values as one row of a binary `COPY` after `prefix` (a `bigint`
    /// field before them): `false`, appending nothing, when a value was bound in text form
    /// (a value the parameter's type reads from its text, such as a fraction bound to a
    /// `bigint`), which a binary copy can't carry.
    func appendBoundValues(to rows: inout PostgresCopyRows, after prefix: Int64) -> Bool {
      for slot in values.indices where values[slot] != nil && formats[slot] == 0 {
        return false
      }
      rows.beginRow(fields: values.count + 1)
      rows.appendField(prefix)
      for slot in values.indices {
        if let value = values[slot] {
          rows.appendField(UnsafeRawBufferPointer(start: value, count: Int(lengths[slot])))
        } else {
          rows.appendNull()
        }
      }
      return true
    }

    /// Forgets the rows of the last execution so the statement can run again, keeping its
    /// bindings.
    ///
    /// For example: `statement.rewind()`.
    public func rewind() {
      if let result { PQclear(result) }
      result = nil
      state = .ready
    }

    /// Forgets the rows of the last execution and clears the bindings (every parameter is NULL
    /// again).
    ///
    /// For example: `statement.reset()`.
    public func reset() {
      rewind()
      for slot in values.indices {
        values[slot] = nil
        // A large value's buffer is not kept for the next one.
        if capacities[slot] > 65_536 {
          free(buffers[slot])
          buffers[slot] = nil
          capacities[slot] = 0
        }
      }
    }

    // MARK: Stepping

    /// Moves to the next row; the first step runs the statement on the server.
    ///
    /// For example:
    ///
    /// ```swift
    /// while try statement.step() { print(statement.int64(at: 0)) }
    /// ```
    ///
    /// - Returns: `true` when a row is available, `false` when the statement is done (a later
    ///   step runs it again).
    /// - Throws: ``PostgresError``; the statement can then be run again.
    @discardableResult
    public func step() throws -> Bool {
      if state == .rows {
        row += 1
        if row < rowCount { return true }
        rewind()
        state = .done
        return false
      }
      return try run()
    }

    /// Runs the statement with its bindings and keeps its rows.
    private func run() throws -> Bool {
      rewind()
      if generation != session.generation {
        // Prepared on a connection that since broke: prepare it on the new one.
        if !ownsName {
          name = session.nextStatementName()
          ownsName = true
          keepAlive = nil
        }
        try prepareOnServer()
      }
      let handle = try session.liveHandle(sql: sql)
      let outsideTransaction = PQtransactionStatus(handle) == PQTRANS_IDLE
      let executed = PQexecPrepared(
        handle, name, Int32(values.count), values, lengths, formats, resultFormat)
      switch PQresultStatus(executed) {
      case PGRES_TUPLES_OK:
        session.recordChanges(executed)
        rowCount = PQntuples(executed)
        if rowCount > 0 {
          result = executed
          row = 0
          state = .rows
          return true
        }
        PQclear(executed)
        state = .done
        return false
      case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
        session.recordChanges(executed)
        PQclear(executed)
        state = .done
        return false
      default:
        let error = session.error(executed, sql: sql, committing: outsideTransaction)
        PQclear(executed)
        throw error
      }
    }

    /// Runs the statement, ignoring any rows; its bindings are kept.
    ///
    /// For example: `try statement.execute()`.
    ///
    /// - Throws: ``PostgresError``.
    public func execute() throws {
      defer { rewind() }
      _ = try run()
    }

    // MARK: Reading columns

    /// The number of columns in each row.
    ///
    /// For example: `statement.columnCount` is `2` for `SELECT id, name FROM trip`.
    public var columnCount: Int { columnNames.count }

    /// The name of column `index` (from 0).
    ///
    /// For example: `statement.columnName(at: 0)` is `"name"` for `SELECT name FROM trip`.
    ///
    /// - Parameter index: The column number, from 0.
    /// - Returns: The column's name.
    public func columnName(at index: Int) -> String {
      columnNames.indices.contains(index) ? columnNames[index] : ""
    }

    /// The bytes of column `index` of the current row, or `nil` for NULL (or no row).
    @inline(__always)
    private func cell(_ index: Int) -> UnsafeRawBufferPointer? {
      guard let result else { return nil }
      let column = Int32(truncatingIfNeeded: index)
      guard PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column)
      else { return nil }
      return UnsafeRawBufferPointer(
        start: UnsafeRawPointer(value), count: Int(PQgetlength(result, row, column)))
    }

    /// The type of column `index`.
    @inline(__always)
    private func type(_ index: Int) -> UInt32 {
      guard let result else { return 0 }
      return PQftype(result, Int32(truncatingIfNeeded: index))
    }

    /// Whether column `index` (from 0) of the current row is NULL.
    ///
    /// For example: `if statement.isNull(at: 2) { … }`.
    ///
    /// - Parameter index: The column number, from 0.
    /// - Returns: `true` for NULL.
    public func isNull(at index: Int) -> Bool {
      guard let result else { return true }
      return PQgetisnull(result, row, Int32(truncatingIfNeeded: index)) != 0
    }

    /// Column `index` (from 0) as an integer: `smallint`, `integer`, `bigint`, `oid` and
    /// `boolean` (as 0 or 1) exactly; a floating-point number truncated toward zero (clamped);
    /// text holding a number read as one. NULL reads as 0.
    ///
    /// For example: `let cash = statement.int64(at: 1)`.
    ///
    /// - Parameter index: The column number, from 0.
    /// - Returns: The value.
    public func int64(at index: Int) -> Int64 {
      guard let bytes = cell(index) else { return 0 }
      let type = type(index)
      if resultFormat == 1 {
        switch type {
        case PostgresType.int8 where bytes.count == 8:
          return Int64(bigEndian: bytes.loadUnaligned(as: Int64.self))
        case PostgresType.int4 where bytes.count == 4:
          return Int64(Int32(bigEndian: bytes.loadUnaligned(as: Int32.self)))
        case PostgresType.int2 where bytes.count == 2:
          return Int64(Int16(bigEndian: bytes.loadUnaligned(as: Int16.self)))
        case PostgresType.oid where bytes.count == 4:
          return Int64(UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self)))
        case PostgresType.bool where bytes.count == 1:
          return bytes[0] != 0 ? 1 : 0
        case PostgresType.float8, PostgresType.float4:
          return PostgresType.integer(truncating: double(at: index))
        default:
          break
        }
      }
      return PostgresType.integer(parsing: bytes, type: type)
    }

    /// Column `index` (from 0) as a floating-point number: `double precision` bit for bit,
    /// `real` and integers converted, text holding a number read as one. NULL reads as 0.
    ///
    /// For example: `let price = statement.double(at: 2)`.
    ///
    /// - Parameter index: The column number, from 0.
    /// - Returns: The value.
    public func double(at index: Int) -> Double {
      guard let bytes = cell(index) else { return 0 }
      let type = type(index)
      if resultFormat == 1 {
        switch type {
        case PostgresType.float8 where bytes.count == 8:
          return Double(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)))
        case PostgresType.float4 where bytes.count == 4:
          return Double(Float(bitPattern: UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self))))
        case PostgresType.int8, PostgresType.int4, PostgresType.int2, PostgresType.oid,
          PostgresType.bool:
          return Double(int64(at: index))
        default:
          break
        }
      }
      if type == PostgresType.bool { return Double(int64(at: index)) }
      return PostgresType.double(parsing: bytes) ?? 0
    }

    /// Column `index` (from 0) as a `Double` bound with ``bindExact(_:at:)``, bit for bit.
    func exactDouble(at index: Int) -> Double { double(at: index) }

    /// Column `index` (from 0) as text: text columns as they are, numbers in decimal, `boolean`
    /// as `t` or `f`, other types as PostgreSQL writes them. NULL reads as the empty string.
    ///
    /// For example: `let memo = statement.string(at: 3)`.
    ///
    /// - Parameter index: The column number, from 0.
    /// - Returns: The value.
    public func string(at index: Int) -> String {
      guard let bytes = cell(index) else { return "" }
      if resultFormat == 1 {
        switch type(index) {
        case PostgresType.int8, PostgresType.int4, PostgresType.int2, PostgresType.oid:
          return String(int64(at: index))
        case PostgresType.float8, PostgresType.float4:
          return PostgresType.text(of: double(at: index))
        case PostgresType.bool:
          return int64(at: index) != 0 ? "t" : "f"
        default:
          break
        }
      } else if type(index) == PostgresType.bytea, let data = PostgresType.bytes(fromHex: bytes) {
        return String(decoding: data, as: UTF8.self)
      }
      return String(decoding: bytes, as: UTF8.self)
    }

    /// Column `index` (from 0) as bytes: `bytea` as stored, text as its UTF-8 bytes. NULL reads
    /// as empty data.
    ///
    /// For example: `let photo = statement.data(at: 4)`.
    ///
    /// - Parameter index: The column number, from 0.
    /// - Returns: The value.
    public func data(at index: Int) -> Data {
      guard let bytes = cell(index) else { return Data() }
      if resultFormat == 0 && type(index) == PostgresType.bytea {
        return PostgresType.bytes(fromHex: bytes) ?? Data(bytes)
      }
      return Data(bytes)
    }

    /// Column `index` (from 0) as a ``SQLiteValue``: integers and `boolean` as
    /// ``SQLiteValue/integer(_:)``, `real` and `double precision` as ``SQLiteValue/real(_:)``,
    /// `bytea` as ``SQLiteValue/blob(_:)``, NULL as ``SQLiteValue/null``, and anything else as
    /// ``SQLiteValue/text(_:)`` (as PostgreSQL writes it).
    ///
    /// For example:
    ///
    /// ```swift
    /// if case .text(let name) = statement.value(at: 0) { print(name) }
    /// ```
    ///
    /// - Parameter index: The column number, from 0.
    /// - Returns: The value.
    public func value(at index: Int) -> SQLiteValue {
      if isNull(at: index) { return .null }
      switch type(index) {
      case PostgresType.int8, PostgresType.int4, PostgresType.int2, PostgresType.oid,
        PostgresType.bool:
        return .integer(int64(at: index))
      case PostgresType.float8, PostgresType.float4:
        return .real(double(at: index))
      case PostgresType.bytea:
        return .blob(data(at: index))
      default:
        return .text(string(at: index))
      }
    }

    /// Column `index` (from 0) converted to a Swift type, as ``SQLiteValue`` documents.
    ///
    /// For example: `let id: UUID? = statement.value(UUID.self, at: 0)`.
    ///
    /// - Parameters:
    ///   - type: The type to read.
    ///   - index: The column number, from 0.
    /// - Returns: The value, or `nil` when the stored value does not fit the type.
    public func value<Value: SQLiteValueConvertible>(_ type: Value.Type, at index: Int) -> Value? {
      Value(sqliteValue: value(at: index))
    }
  }
#endif
