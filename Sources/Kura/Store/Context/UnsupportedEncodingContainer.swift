import Foundation

/// The container a ``RowEncoder`` hands out for shapes a row cannot hold (a model encoded as an
/// array or a single value, or nested containers): every call throws a ``StoreError`` that names
/// the model.
struct UnsupportedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol,
  UnkeyedEncodingContainer, SingleValueEncodingContainer
{
  let modelName: String
  var codingPath: [any CodingKey] { [] }
  var count: Int { 0 }

  private func failure() -> StoreError {
    StoreError(
      .encodingFailed, model: modelName,
      message:
        "Can't save a `\(modelName)`: its `encode(to:)` uses an unkeyed, single-value or nested "
        + "container, but a model is stored as one row of named columns. Encode it with "
        + "`container(keyedBy:)` and one key per stored property (as synthesized `Codable` does).")
  }

  mutating func encodeNil(forKey key: Key) throws { throw failure() }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw failure() }
  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(UnsupportedEncodingContainer<NestedKey>(modelName: modelName))
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { self }
  mutating func superEncoder() -> any Encoder { UnsupportedEncoder(modelName: modelName) }
  mutating func superEncoder(forKey key: Key) -> any Encoder {
    UnsupportedEncoder(modelName: modelName)
  }

  mutating func encodeNil() throws { throw failure() }
  mutating func encode<T: Encodable>(_ value: T) throws { throw failure() }
  mutating func encode(_ value: Bool) throws { throw failure() }
  mutating func encode(_ value: String) throws { throw failure() }
  mutating func encode(_ value: Double) throws { throw failure() }
  mutating func encode(_ value: Float) throws { throw failure() }
  mutating func encode(_ value: Int) throws { throw failure() }
  mutating func encode(_ value: Int8) throws { throw failure() }
  mutating func encode(_ value: Int16) throws { throw failure() }
  mutating func encode(_ value: Int32) throws { throw failure() }
  mutating func encode(_ value: Int64) throws { throw failure() }
  mutating func encode(_ value: UInt) throws { throw failure() }
  mutating func encode(_ value: UInt8) throws { throw failure() }
  mutating func encode(_ value: UInt16) throws { throw failure() }
  mutating func encode(_ value: UInt32) throws { throw failure() }
  mutating func encode(_ value: UInt64) throws { throw failure() }
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    KeyedEncodingContainer(UnsupportedEncodingContainer<NestedKey>(modelName: modelName))
  }
  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
}

/// An encoder whose every container fails (for `superEncoder`).
struct UnsupportedEncoder: Encoder {
  let modelName: String
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(UnsupportedEncodingContainer<Key>(modelName: modelName))
  }
  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    UnsupportedEncodingContainer<AnyCodingKey>(modelName: modelName)
  }
  func singleValueContainer() -> any SingleValueEncodingContainer {
    UnsupportedEncodingContainer<AnyCodingKey>(modelName: modelName)
  }
}

/// A coding key made from a string or an integer.
struct AnyCodingKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(stringValue: String) { self.stringValue = stringValue }
  init(intValue: Int) {
    self.stringValue = String(intValue)
    self.intValue = intValue
  }
}
