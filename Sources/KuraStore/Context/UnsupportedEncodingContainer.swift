import Foundation
import KuraBase
import KuraSQLite

/// The container a ``RowEncoder`` hands out for shapes a row cannot hold (a model encoded as an
/// array or a single value, or nested containers): every call throws a ``StoreError`` that names
/// the model.
package struct UnsupportedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol,
  UnkeyedEncodingContainer, SingleValueEncodingContainer
{
  package let modelName: String
  package var codingPath: [any CodingKey] { [] }
  package var count: Int { 0 }

  private func failure() -> StoreError {
    StoreError(
      .encodingFailed, model: modelName,
      message:
        "Can't save a `\(modelName)`: its `encode(to:)` uses an unkeyed, single-value or nested "
        + "container, but a model is stored as one row of named columns. Encode it with "
        + "`container(keyedBy:)` and one key per stored property (as synthesized `Codable` does).")
  }

  package mutating func encodeNil(forKey key: Key) throws { throw failure() }
  package mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw failure() }
  package mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(UnsupportedEncodingContainer<NestedKey>(modelName: modelName))
  }
  package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    self
  }
  package mutating func superEncoder() -> any Encoder { UnsupportedEncoder(modelName: modelName) }
  package mutating func superEncoder(forKey key: Key) -> any Encoder {
    UnsupportedEncoder(modelName: modelName)
  }

  package mutating func encodeNil() throws { throw failure() }
  package mutating func encode<T: Encodable>(_ value: T) throws { throw failure() }
  package mutating func encode(_ value: Bool) throws { throw failure() }
  package mutating func encode(_ value: String) throws { throw failure() }
  package mutating func encode(_ value: Double) throws { throw failure() }
  package mutating func encode(_ value: Float) throws { throw failure() }
  package mutating func encode(_ value: Int) throws { throw failure() }
  package mutating func encode(_ value: Int8) throws { throw failure() }
  package mutating func encode(_ value: Int16) throws { throw failure() }
  package mutating func encode(_ value: Int32) throws { throw failure() }
  package mutating func encode(_ value: Int64) throws { throw failure() }
  package mutating func encode(_ value: UInt) throws { throw failure() }
  package mutating func encode(_ value: UInt8) throws { throw failure() }
  package mutating func encode(_ value: UInt16) throws { throw failure() }
  package mutating func encode(_ value: UInt32) throws { throw failure() }
  package mutating func encode(_ value: UInt64) throws { throw failure() }
  package mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    KeyedEncodingContainer(UnsupportedEncodingContainer<NestedKey>(modelName: modelName))
  }
  package mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
}

/// An encoder whose every container fails (for `superEncoder`).
package struct UnsupportedEncoder: Encoder {
  package let modelName: String
  package var codingPath: [any CodingKey] { [] }
  package var userInfo: [CodingUserInfoKey: Any] { [:] }
  package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(UnsupportedEncodingContainer<Key>(modelName: modelName))
  }
  package func unkeyedContainer() -> any UnkeyedEncodingContainer {
    UnsupportedEncodingContainer<AnyCodingKey>(modelName: modelName)
  }
  package func singleValueContainer() -> any SingleValueEncodingContainer {
    UnsupportedEncodingContainer<AnyCodingKey>(modelName: modelName)
  }
}

/// A coding key made from a string or an integer.
package struct AnyCodingKey: CodingKey {
  package var stringValue: String
  package var intValue: Int?
  package init(stringValue: String) { self.stringValue = stringValue }
  package init(intValue: Int) {
    self.stringValue = String(intValue)
    self.intValue = intValue
  }
}
