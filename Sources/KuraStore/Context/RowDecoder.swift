import Foundation
import KuraBase
import KuraSQLite

/// Decodes one model from the current row of a statement whose result columns are the model's
/// columns in schema order. Reused for every row of a query.
package final class RowDecoder: Decoder, TopLevelCoder {
  package let schema: ModelSchema
  package let statement: StoreStatement
  private let columns: RowCoderColumns
  /// Whether each column may hold NULL (NOT NULL columns skip the check).
  private let nullable: [Bool]
  // The column the next key most likely names (synthesized `Codable` decodes in order), kept in
  // memory this decoder owns so the hot path pays no dynamic exclusivity checks.
  private let cursor = UnsafeMutablePointer<Int>.allocate(capacity: 1)
  private lazy var json = ColumnJSON.decoder()
  /// The row plan of the model type decoded last.
  @exclusivity(unchecked) private var lastPlan = LastRowPlan()
  /// Where the row plan builds each model before moving it out.
  @exclusivity(unchecked) private var scratch = RowScratch()

  package init(schema: ModelSchema, statement: StoreStatement) {
    self.schema = schema
    self.statement = statement
    self.columns = RowCoderColumns(schema)
    self.nullable = schema.columnNullable
    cursor.initialize(to: 0)
  }

  deinit {
    scratch.deallocate()
    cursor.deallocate()
    columns.deallocate()
  }

  /// The model in the statement's current row.
  package func decode<Model: PersistentModel>(_ type: Model.Type) throws -> Model {
    if let plan = lastPlan.plan(for: Model.self, schema: schema) {
      return try plan.decode(Model.self, from: statement, in: &scratch)
    }
    cursor.pointee = 0
    do {
      return try Model(from: self)
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError(
        .decodingFailed, model: schema.modelName,
        message:
          "Can't read a `\(schema.modelName)` from table `\(schema.tableName)`: \(error). The "
          + "row does not fit the model; check the store with `kura store check`.")
    }
  }

  /// Initializes `target` with the model in the statement's current row (read into it
  /// directly when the type has a row plan); on a failure `target` is left uninitialized.
  package func decode<Model: PersistentModel>(
    _ type: Model.Type, into target: UnsafeMutablePointer<Model>
  )
    throws
  {
    if let plan = lastPlan.plan(for: Model.self, schema: schema) {
      try plan.initialize(target, from: statement)
      return
    }
    target.initialize(to: try decode(Model.self))
  }

  /// Whether column `index` of the current row is NULL; only asked of SQLite for nullable columns.
  @inline(__always)
  package func isNull(at index: Int) -> Bool {
    nullable[index] && statement.isNull(at: index)
  }

  @inline(__always)
  package func columnIndex(for key: some CodingKey) throws -> Int {
    guard let index = columns.index(of: key, expected: cursor.pointee) else {
      throw StoreError(
        .decodingFailed, model: schema.modelName, property: key.stringValue,
        message:
          "Can't read a `\(schema.modelName)`: its decoding uses the key `\(key.stringValue)`, "
          + "which is not a stored property. Coding keys must be the property names.")
    }
    cursor.pointee = index + 1
    return index
  }

  /// The column `key` names, or `nil` when it names none (in-order keys need no lookup).
  @inline(__always)
  package func optionalColumnIndex(for key: some CodingKey) -> Int? {
    guard let index = columns.index(of: key, expected: cursor.pointee) else { return nil }
    cursor.pointee = index + 1
    return index
  }

  package func nullFailure(at index: Int) -> StoreError {
    let column = schema.columns[index].name
    return StoreError(
      .decodingFailed, model: schema.modelName, property: column, column: column,
      message:
        "Can't read `\(schema.modelName).\(column)`: column `\(column)` of table "
        + "`\(schema.tableName)` is NULL but the property is not optional. Make the property "
        + "optional or fill the column.")
  }

  package func typeFailure(_ type: Any.Type, at index: Int) -> StoreError {
    schema.readFailure(type, at: index)
  }

  @inline(__always)
  package func integer<T: FixedWidthInteger>(_ type: T.Type, at index: Int) throws -> T {
    if isNull(at: index) { throw nullFailure(at: index) }
    guard let value = T(exactly: statement.int64(at: index)) else {
      throw typeFailure(T.self, at: index)
    }
    return value
  }

  /// Reads a value that is not one of the keyed container's concrete types.
  @inline(__always)
  package func decodeGeneric<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
    if isNull(at: index) { throw nullFailure(at: index) }
    // Dates first, on a path that needs no other type's metadata (`decodeOther` looks up
    // `Optional<T>` on every call).
    if T.self == Date.self, columns.kinds[index] == .date {
      return unsafeBitCast(
        Date(timeIntervalSinceReferenceDate: statement.exactDouble(at: index)), to: T.self)
    }
    return try decodeOther(T.self, at: index)
  }

  /// Reads a value that is not a date nor one of the keyed container's concrete types.
  @inline(never)
  package func decodeOther<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
    switch columns.kinds[index] {
    case .date:
      if T.self == Date.self {
        return unsafeBitCast(
          Date(timeIntervalSinceReferenceDate: statement.exactDouble(at: index)), to: T.self)
      }
    case .uuid:
      if T.self == UUID.self {
        guard let uuid = UUID(uuidString: statement.string(at: index)),
          let value = reinterpret(uuid, as: T.self)
        else { throw typeFailure(T.self, at: index) }
        return value
      }
    case .url:
      if T.self == URL.self {
        guard let url = URL(string: statement.string(at: index)),
          let value = reinterpret(url, as: T.self)
        else { throw typeFailure(T.self, at: index) }
        return value
      }
    case .blob:
      if let data = reinterpret(statement.data(at: index), as: T.self) { return data }
    case .json:
      do {
        return try json.decode(T.self, from: Data(statement.string(at: index).utf8))
      } catch {
        throw typeFailure(T.self, at: index)
      }
    case .integer, .text, .real, .bool: break
    }
    do {
      return try T(from: ColumnDecoder(decoder: self, index: index))
    } catch let error as StoreError {
      throw error
    } catch {
      throw typeFailure(T.self, at: index)
    }
  }

  @exclusivity(unchecked) private var containers = RowCoderContainerCache()

  package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<
    Key
  > {
    // The container only refers back to this decoder, so one per key type serves every row.
    containers.container(Key.self) {
      KeyedDecodingContainer(
        RowKeyedDecodingContainer<Key>(decoderReference: .passUnretained(self)))
    }
  }

  package func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw shapeFailure() }

  package func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw shapeFailure()
  }

  package func shapeFailure() -> StoreError {
    StoreError(
      .decodingFailed, model: schema.modelName,
      message:
        "Can't read a `\(schema.modelName)`: its `init(from:)` asks for an unkeyed, single-value "
        + "or nested container, but a model is stored as one row of named columns. Decode it "
        + "with `container(keyedBy:)` and one key per stored property.")
  }
}

/// The keyed container of ``RowDecoder``: each key is a column.
package struct RowKeyedDecodingContainer<Key: CodingKey>: IntegerColumnDecoding {
  // Safety: the container is used only inside `RowDecoder.decode(_:)`, which keeps the decoder
  // alive. An unmanaged reference avoids a cycle through the cached container, and reading it
  // with `_withUnsafeGuaranteedRef` costs no reference counting per call.
  package let decoderReference: Unmanaged<RowDecoder>
  /// The decoder, for paths that are not hot.
  private var decoder: RowDecoder { decoderReference.takeUnretainedValue() }
  package var codingPath: [any CodingKey] { [] }
  package var allKeys: [Key] { decoder.schema.columns.compactMap { Key(stringValue: $0.name) } }

  package func contains(_ key: Key) -> Bool {
    decoderReference._withUnsafeGuaranteedRef { decoder in
      decoder.schema.columnIndexByName[key.stringValue] != nil
    }
  }

  package func decodeNil(forKey key: Key) throws -> Bool {
    decoderReference._withUnsafeGuaranteedRef { decoder in
      guard let index = decoder.schema.columnIndexByName[key.stringValue] else { return true }
      return decoder.statement.isNull(at: index)
    }
  }

  /// The integer column `key` names, as a `T` (a value `T` can't hold is a decoding failure).
  @inline(__always)
  package func integer<T: FixedWidthInteger>(_ key: Key) throws -> T {
    try decoderReference._withUnsafeGuaranteedRef { decoder in
      try decoder.integer(T.self, at: decoder.columnIndex(for: key))
    }
  }

  package func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try decoderReference._withUnsafeGuaranteedRef { decoder in
      try decoder.integer(Int64.self, at: decoder.columnIndex(for: key)) != 0
    }
  }
  package func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try decoderReference._withUnsafeGuaranteedRef { decoder in
      let index = try decoder.columnIndex(for: key)
      if decoder.isNull(at: index) { throw decoder.nullFailure(at: index) }
      return decoder.statement.string(at: index)
    }
  }
  package func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try decoderReference._withUnsafeGuaranteedRef { decoder in
      let index = try decoder.columnIndex(for: key)
      if decoder.isNull(at: index) { throw decoder.nullFailure(at: index) }
      return decoder.statement.exactDouble(at: index)
    }
  }
  package func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    Float(try decode(Double.self, forKey: key))
  }
  package func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try decoderReference._withUnsafeGuaranteedRef { decoder in
      try decoder.decodeGeneric(T.self, at: decoder.columnIndex(for: key))
    }
  }

  package func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    try decoderReference._withUnsafeGuaranteedRef { decoder in
      let index = try decoder.columnIndex(for: key)
      return decoder.statement.isNull(at: index) ? nil : decoder.statement.string(at: index)
    }
  }
  package func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    try decoderReference._withUnsafeGuaranteedRef { decoder in
      let index = try decoder.columnIndex(for: key)
      return decoder.statement.isNull(at: index) ? nil : decoder.statement.exactDouble(at: index)
    }
  }
  package func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
    try decoderReference._withUnsafeGuaranteedRef { decoder in
      let index = try decoder.columnIndex(for: key)
      return decoder.statement.isNull(at: index) ? nil : try decoder.integer(Int.self, at: index)
    }
  }
  package func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
    try decoderReference._withUnsafeGuaranteedRef { decoder in
      let index = try decoder.columnIndex(for: key)
      return decoder.statement.isNull(at: index) ? nil : decoder.statement.int64(at: index) != 0
    }
  }
  package func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    try decoderReference._withUnsafeGuaranteedRef { decoder in
      guard let index = decoder.optionalColumnIndex(for: key) else { return nil }
      return decoder.statement.isNull(at: index)
        ? nil : try decoder.decodeGeneric(T.self, at: index)
    }
  }

  package func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key)
    throws
    -> KeyedDecodingContainer<NestedKey>
  { throw decoder.shapeFailure() }
  package func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try decoderReference._withUnsafeGuaranteedRef { decoder in
      throw decoder.shapeFailure()
    }
  }
  package func superDecoder() throws -> any Decoder {
    try decoderReference._withUnsafeGuaranteedRef { decoder in throw decoder.shapeFailure() }
  }
  package func superDecoder(forKey key: Key) throws -> any Decoder {
    try decoderReference._withUnsafeGuaranteedRef { decoder in throw decoder.shapeFailure() }
  }
}
