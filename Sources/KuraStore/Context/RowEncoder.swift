import Foundation
import KuraBase
import KuraSQLite

/// Encodes one model straight into the bindings of a statement whose parameters are the model's
/// columns in schema order (parameter `n + 1` is column `n`). Reused for every row of a batch.
package final class RowEncoder: Encoder, TopLevelCoder {
  package let schema: ModelSchema
  package let statement: StoreStatement
  private let columns: RowCoderColumns
  /// Which columns the current model bound; the others (optionals left out by
  /// `encodeIfPresent`) are bound to NULL afterwards, which is cheaper than clearing bindings.
  // Per-row state lives in memory this encoder owns, not in stored `var`s, so the hot path pays
  // no dynamic exclusivity checks. Slot 0 is the cursor: the column the next key most likely
  // names (synthesized `Codable` encodes in order); slots 1… are the bound flags (0 or 1).
  private let state: UnsafeMutableBufferPointer<Int>
  private lazy var json = ColumnJSON.encoder()
  /// The row plan of the model type encoded last.
  @exclusivity(unchecked) private var lastPlan = LastRowPlan()

  package init(schema: ModelSchema, statement: StoreStatement) {
    self.schema = schema
    self.statement = statement
    self.columns = RowCoderColumns(schema)
    self.state = .allocate(capacity: schema.columns.count + 1)
    state.initialize(repeating: 0)
  }

  deinit {
    state.deallocate()
    columns.deallocate()
  }

  /// Binds every column of `model`; properties left out by the encoding are NULL.
  package func bind<Model: PersistentModel>(_ model: Model) throws {
    if let plan = lastPlan.plan(for: Model.self, schema: schema) {
      return try plan.bind(model, to: statement)
    }
    try encode(model)
  }

  /// Binds every column of the model at `model`, read in place where a row plan binds it (no
  /// copy of the model, whose references a copy retains and releases).
  package func bind<Model: PersistentModel>(at model: UnsafePointer<Model>) throws {
    if let plan = lastPlan.plan(for: Model.self, schema: schema) {
      return try plan.bind(UnsafeRawPointer(model), to: statement)
    }
    try encode(model.pointee)
  }

  /// Binds `model` through its `Codable` conformance.
  private func encode<Model: PersistentModel>(_ model: Model) throws {
    state.update(repeating: 0)
    do {
      try model.encode(to: self)
      for index in 0..<columns.names.count where state[index + 1] == 0 {
        try statement.bindNull(at: index + 1)
      }
    } catch let error as StoreError {
      throw error
    } catch let error where EngineFailure.isEngineError(error) {
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
  package func columnIndex(for key: some CodingKey) throws -> Int {
    guard let index = columns.index(of: key, expected: state[0]) else {
      throw StoreError(
        .encodingFailed, model: schema.modelName, property: key.stringValue,
        message:
          "Can't save a `\(schema.modelName)`: its encoding uses the key `\(key.stringValue)`, "
          + "which is not a stored property. Coding keys must be the property names.")
    }
    state[0] = index + 1
    state[index + 1] = 1
    return index
  }

  @exclusivity(unchecked) private var containers = RowCoderContainerCache()

  package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    // As in `RowDecoder`: one container per key type serves every row.
    containers.container(Key.self) {
      KeyedEncodingContainer(
        RowKeyedEncodingContainer<Key>(encoderReference: .passUnretained(self)))
    }
  }

  package func unkeyedContainer() -> any UnkeyedEncodingContainer {
    UnsupportedEncodingContainer<AnyCodingKey>(modelName: schema.modelName)
  }

  package func singleValueContainer() -> any SingleValueEncodingContainer {
    UnsupportedEncodingContainer<AnyCodingKey>(modelName: schema.modelName)
  }

  /// Binds a value that is not one of the keyed container's concrete types.
  @inline(__always)
  package func bindGeneric<T: Encodable>(_ value: T, at index: Int) throws {
    // Dates first, on a path that needs no other type's metadata.
    if T.self == Date.self, columns.kinds[index] == .date {
      return try statement.bindExact(
        unsafeBitCast(value, to: Date.self).timeIntervalSinceReferenceDate, at: index + 1)
    }
    try bindOther(value, at: index)
  }

  /// Binds a value that is not a date nor one of the keyed container's concrete types.
  @inline(never)
  package func bindOther<T: Encodable>(_ value: T, at index: Int) throws {
    let kind = columns.kinds[index]
    let parameter = index + 1
    switch kind {
    case .date:
      if T.self == Date.self {
        return try statement.bindExact(
          unsafeBitCast(value, to: Date.self).timeIntervalSinceReferenceDate, at: parameter)
      }
    case .uuid:
      if let uuid = reinterpret(value, as: UUID.self) {
        return try statement.bind(uuid.text(uppercase: true), at: parameter)
      }
    case .url:
      if let url = reinterpret(value, as: URL.self) {
        return try statement.bind(url.absoluteString, at: parameter)
      }
    case .blob:
      if let data = reinterpret(value, as: Data.self) {
        return try statement.bind(data, at: parameter)
      }
    case .json:
      let data = try json.encode(value)
      return try statement.bind(String(decoding: data, as: UTF8.self), at: parameter)
    case .integer, .text, .real, .bool:
      break
    }
    if let sqlite = databaseValue(for: value, kind: kind) {
      return try statement.bind(sqlite, at: parameter)
    }
    let column = schema.columns[index]
    throw StoreError(
      .encodingFailed, model: schema.modelName, property: column.name, column: column.name,
      message:
        "Can't save `\(schema.modelName).\(column.name)`: a value of type `\(T.self)` does not fit "
        + "its \(column.kind.rawValue) column.")
  }
}

/// The keyed container of ``RowEncoder``: each key is a column.
package struct RowKeyedEncodingContainer<Key: CodingKey>: IntegerColumnEncoding {
  // Safety: the container is used only inside `RowEncoder.bind(_:)`, which keeps the encoder
  // alive. An unmanaged reference avoids a cycle through the cached container, and reading it
  // with `_withUnsafeGuaranteedRef` costs no reference counting per call.
  package let encoderReference: Unmanaged<RowEncoder>
  /// The encoder, for paths that are not hot.
  private var encoder: RowEncoder { encoderReference.takeUnretainedValue() }
  package var codingPath: [any CodingKey] { [] }

  /// Binds an integer; one above `Int64.max` (a large `UInt64` or `UInt`) is refused.
  @inline(__always)
  package func integer(_ value: some FixedWidthInteger, _ key: Key) throws {
    try encoderReference._withUnsafeGuaranteedRef { encoder in
      guard let exact = Int64(exactly: value) else {
        throw StoreError(
          .encodingFailed, model: encoder.schema.modelName, property: key.stringValue,
          message:
            "Can't save `\(encoder.schema.modelName).\(key.stringValue)`: \(value) is above the "
            + "largest integer the store holds (\(Int64.max)).")
      }
      try encoder.statement.bind(exact, at: try encoder.columnIndex(for: key) + 1)
    }
  }

  package mutating func encodeNil(forKey key: Key) throws {
    try encoderReference._withUnsafeGuaranteedRef { encoder in
      try encoder.statement.bindNull(at: try encoder.columnIndex(for: key) + 1)
    }
  }
  package mutating func encode(_ value: Bool, forKey key: Key) throws {
    try integer(value ? 1 : 0, key)
  }
  package mutating func encode(_ value: String, forKey key: Key) throws {
    try encoderReference._withUnsafeGuaranteedRef { encoder in
      try encoder.statement.bind(value, at: try encoder.columnIndex(for: key) + 1)
    }
  }
  package mutating func encode(_ value: Double, forKey key: Key) throws {
    try encoderReference._withUnsafeGuaranteedRef { encoder in
      // NaN and -0.0, which an SQL number may not hold, are stored exactly (`bindExact`).
      try encoder.statement.bindExact(value, at: try encoder.columnIndex(for: key) + 1)
    }
  }
  package mutating func encode(_ value: Float, forKey key: Key) throws {
    try encode(Double(value), forKey: key)
  }
  package mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try encoderReference._withUnsafeGuaranteedRef { encoder in
      try encoder.bindGeneric(value, at: try encoder.columnIndex(for: key))
    }
  }

  // Optionals: `nil` binds NULL in place (the standard library's default skips the key, which
  // costs the next key its in-order lookup); a value takes its type's direct path.
  package mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
    guard let value else { return try encodeNil(forKey: key) }
    try encode(value, forKey: key)
  }
  package mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
    guard let value else { return try encodeNil(forKey: key) }
    try encode(value, forKey: key)
  }
  package mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
    guard let value else { return try encodeNil(forKey: key) }
    try encode(value, forKey: key)
  }
  package mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
    guard let value else { return try encodeNil(forKey: key) }
    try encode(value, forKey: key)
  }
  package mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
    guard let value else { return try encodeNil(forKey: key) }
    try encode(value, forKey: key)
  }
  package mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
    guard let value else { return try encodeNil(forKey: key) }
    try encode(value, forKey: key)
  }

  package mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(
      UnsupportedEncodingContainer<NestedKey>(modelName: encoder.schema.modelName))
  }
  package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    UnsupportedEncodingContainer<Key>(modelName: encoder.schema.modelName)
  }
  package mutating func superEncoder() -> any Encoder {
    encoderReference._withUnsafeGuaranteedRef { encoder in
      UnsupportedEncoder(modelName: encoder.schema.modelName)
    }
  }
  package mutating func superEncoder(forKey key: Key) -> any Encoder {
    UnsupportedEncoder(modelName: encoder.schema.modelName)
  }
}

/// `value` as a `U` when `T` is exactly `U` (a type check and a copy, no dynamic cast).
@inline(__always)
package func reinterpret<T, U>(_ value: T, as type: U.Type) -> U? {
  guard T.self == U.self else { return nil }
  return withUnsafePointer(to: value) {
    $0.withMemoryRebound(to: U.self, capacity: 1) { $0.pointee }
  }
}
