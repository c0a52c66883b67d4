import Foundation

/// Encodes one model straight into the bindings of a statement whose parameters are the model's
/// columns in schema order (parameter `n + 1` is column `n`). Reused for every row of a batch.
final class RowEncoder: Encoder {
  let schema: ModelSchema
  var statement: Statement
  /// The column the next key most likely names (synthesized `Codable` encodes in order).
  private var cursor = 0
  private lazy var json = ColumnJSON.encoder()
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(schema: ModelSchema, statement: Statement) {
    self.schema = schema
    self.statement = statement
  }

  /// Binds every column of `model`; properties left out by the encoding are NULL.
  func bind<Model: PersistentModel>(_ model: Model) throws {
    statement.reset()
    cursor = 0
    do {
      try model.encode(to: self)
    } catch let error as StoreError {
      throw error
    } catch let error as SQLiteError {
      throw error
    } catch {
      throw StoreError(
        .encodingFailed, model: schema.modelName,
        message:
          "Can't save a `\(schema.modelName)`: encoding it failed (\(error)). Check its "
          + "`encode(to:)`.")
    }
  }

  @inline(__always)
  func columnIndex(for key: some CodingKey) throws -> Int {
    let columns = schema.columns
    if cursor < columns.count, columns[cursor].name == key.stringValue {
      defer { cursor += 1 }
      return cursor
    }
    guard let index = schema.columnIndexByName[key.stringValue] else {
      throw StoreError(
        .encodingFailed, model: schema.modelName, property: key.stringValue,
        message:
          "Can't save a `\(schema.modelName)`: its encoding uses the key `\(key.stringValue)`, "
          + "which is not a stored property. Coding keys must be the property names.")
    }
    cursor = index + 1
    return index
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(RowKeyedEncodingContainer<Key>(encoder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    UnsupportedEncodingContainer<AnyCodingKey>(modelName: schema.modelName)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    UnsupportedEncodingContainer<AnyCodingKey>(modelName: schema.modelName)
  }

  /// Binds a value that is not one of the keyed container's concrete types.
  func bindGeneric<T: Encodable>(_ value: T, at index: Int) throws {
    let column = schema.columns[index]
    let parameter = index + 1
    switch column.kind {
    case .date:
      if let date = value as? Date {
        return try statement.bind(date.timeIntervalSince1970, at: parameter)
      }
    case .uuid:
      if let uuid = value as? UUID { return try statement.bind(uuid.uuidString, at: parameter) }
    case .url:
      if let url = value as? URL { return try statement.bind(url.absoluteString, at: parameter) }
    case .blob:
      if let data = value as? Data { return try statement.bind(data, at: parameter) }
    case .json:
      let data = try json.encode(value)
      return try statement.bind(String(decoding: data, as: UTF8.self), at: parameter)
    case .integer, .text, .real, .bool:
      break
    }
    if let sqlite = sqliteValue(for: value, kind: column.kind) {
      return try statement.bind(sqlite, at: parameter)
    }
    throw StoreError(
      .encodingFailed, model: schema.modelName, property: column.name, column: column.name,
      message:
        "Can't save `\(schema.modelName).\(column.name)`: a value of type `\(T.self)` does not fit "
        + "its \(column.kind.rawValue) column.")
  }
}

/// The keyed container of ``RowEncoder``: each key is a column.
struct RowKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: RowEncoder
  var codingPath: [any CodingKey] { [] }

  @inline(__always)
  private func bindInteger(_ value: Int64, forKey key: Key) throws {
    try encoder.statement.bind(value, at: try encoder.columnIndex(for: key) + 1)
  }

  mutating func encodeNil(forKey key: Key) throws {
    try encoder.statement.bindNull(at: try encoder.columnIndex(for: key) + 1)
  }
  mutating func encode(_ value: Bool, forKey key: Key) throws {
    try bindInteger(value ? 1 : 0, forKey: key)
  }
  mutating func encode(_ value: String, forKey key: Key) throws {
    try encoder.statement.bind(value, at: try encoder.columnIndex(for: key) + 1)
  }
  mutating func encode(_ value: Double, forKey key: Key) throws {
    try encoder.statement.bind(value.sqliteValue, at: try encoder.columnIndex(for: key) + 1)
  }
  mutating func encode(_ value: Float, forKey key: Key) throws {
    try encode(Double(value), forKey: key)
  }
  mutating func encode(_ value: Int, forKey key: Key) throws {
    try bindInteger(Int64(value), forKey: key)
  }
  mutating func encode(_ value: Int8, forKey key: Key) throws {
    try bindInteger(Int64(value), forKey: key)
  }
  mutating func encode(_ value: Int16, forKey key: Key) throws {
    try bindInteger(Int64(value), forKey: key)
  }
  mutating func encode(_ value: Int32, forKey key: Key) throws {
    try bindInteger(Int64(value), forKey: key)
  }
  mutating func encode(_ value: Int64, forKey key: Key) throws {
    try bindInteger(value, forKey: key)
  }
  mutating func encode(_ value: UInt, forKey key: Key) throws {
    try encode(UInt64(value), forKey: key)
  }
  mutating func encode(_ value: UInt8, forKey key: Key) throws {
    try bindInteger(Int64(value), forKey: key)
  }
  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    try bindInteger(Int64(value), forKey: key)
  }
  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    try bindInteger(Int64(value), forKey: key)
  }
  mutating func encode(_ value: UInt64, forKey key: Key) throws {
    guard let exact = Int64(exactly: value) else {
      throw StoreError(
        .encodingFailed, model: encoder.schema.modelName, property: key.stringValue,
        message:
          "Can't save `\(encoder.schema.modelName).\(key.stringValue)`: \(value) is above the "
          + "largest integer SQLite stores (\(Int64.max)).")
    }
    try bindInteger(exact, forKey: key)
  }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try encoder.bindGeneric(value, at: try encoder.columnIndex(for: key))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(UnsupportedEncodingContainer<NestedKey>(modelName: encoder.schema.modelName))
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    UnsupportedEncodingContainer<Key>(modelName: encoder.schema.modelName)
  }
  mutating func superEncoder() -> any Encoder { UnsupportedEncoder(modelName: encoder.schema.modelName) }
  mutating func superEncoder(forKey key: Key) -> any Encoder {
    UnsupportedEncoder(modelName: encoder.schema.modelName)
  }
}
