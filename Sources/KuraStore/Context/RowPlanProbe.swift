import Foundation
import KuraBase
import KuraSQLite

/// Thrown by the probe coders at a request a plan can't mirror.
package struct UnusualCoding: Error {}

/// The encoder of a plan's probe: records the column value each key is given.
package final class ProbeEncoder: Encoder, TopLevelCoder {
  package var values: [String: DatabaseValue] = [:]
  /// Whether the encoding asked for something a plan can't mirror.
  package var unusual = false

  package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(Container<Key>(encoder: self))
  }
  package func unkeyedContainer() -> any UnkeyedEncodingContainer {
    unusual = true
    return UnsupportedEncodingContainer<AnyCodingKey>(modelName: "probe")
  }
  package func singleValueContainer() -> any SingleValueEncodingContainer {
    unusual = true
    return UnsupportedEncodingContainer<AnyCodingKey>(modelName: "probe")
  }

  package struct Container<Key: CodingKey>: IntegerColumnEncoding {
    package let encoder: ProbeEncoder
    package var codingPath: [any CodingKey] { [] }

    package func record(_ value: DatabaseValue?, _ key: Key) throws {
      guard let value, encoder.values[key.stringValue] == nil else {
        encoder.unusual = true
        throw UnusualCoding()
      }
      encoder.values[key.stringValue] = value
    }
    /// Records an integer; one `Int64` does not hold (a `UInt64` above its largest) is unusual.
    package func integer(_ value: some FixedWidthInteger, _ key: Key) throws {
      try record(Int64(exactly: value).map { .integer($0) }, key)
    }
    package mutating func encodeNil(forKey key: Key) throws { try record(.null, key) }
    package mutating func encode(_ value: Bool, forKey key: Key) throws {
      try record(.integer(value ? 1 : 0), key)
    }
    package mutating func encode(_ value: String, forKey key: Key) throws {
      try record(.text(value), key)
    }
    package mutating func encode(_ value: Double, forKey key: Key) throws {
      try record(.real(value), key)
    }
    package mutating func encode(_ value: Float, forKey key: Key) throws {
      try record(.real(Double(value)), key)
    }
    package mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
      switch value {
      case let date as Date: try record(.real(date.timeIntervalSinceReferenceDate), key)
      case let uuid as UUID: try record(.text(uuid.text(uppercase: true)), key)
      case let url as URL: try record(.text(url.absoluteString), key)
      case let data as Data: try record(.blob(data), key)
      default: try record(nil, key)
      }
    }
    package mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
      encoder.unusual = true
      return KeyedEncodingContainer(UnsupportedEncodingContainer<NestedKey>(modelName: "probe"))
    }
    package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      encoder.unusual = true
      return UnsupportedEncodingContainer<Key>(modelName: "probe")
    }
    package mutating func superEncoder() -> any Encoder {
      encoder.unusual = true
      return UnsupportedEncoder(modelName: "probe")
    }
    package mutating func superEncoder(forKey key: Key) -> any Encoder {
      encoder.unusual = true
      return UnsupportedEncoder(modelName: "probe")
    }
  }
}

/// The decoder of a plan's probe: serves column values by key and records the keys asked for.
package final class ProbeDecoder: Decoder, TopLevelCoder {
  package let values: [String: DatabaseValue]
  package var requested: Set<String> = []
  /// Whether the decoding asked for something a plan can't mirror.
  package var unusual = false

  package init(values: [String: DatabaseValue]) { self.values = values }

  package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<
    Key
  > {
    KeyedDecodingContainer(Container<Key>(decoder: self))
  }
  package func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw refuse() }
  package func singleValueContainer() throws -> any SingleValueDecodingContainer { throw refuse() }

  package func refuse() -> UnusualCoding {
    unusual = true
    return UnusualCoding()
  }

  package struct Container<Key: CodingKey>: IntegerColumnDecoding {
    package let decoder: ProbeDecoder
    package var codingPath: [any CodingKey] { [] }
    package var allKeys: [Key] { decoder.values.keys.compactMap { Key(stringValue: $0) } }

    package func contains(_ key: Key) -> Bool { decoder.values[key.stringValue] != nil }
    package func value(_ key: Key) throws -> DatabaseValue {
      guard let value = decoder.values[key.stringValue] else { throw decoder.refuse() }
      decoder.requested.insert(key.stringValue)
      return value
    }
    package func integer<T: FixedWidthInteger>(_ key: Key) throws -> T {
      guard case .integer(let value) = try self.value(key), let exact = T(exactly: value) else {
        throw decoder.refuse()
      }
      return exact
    }
    package func real(_ key: Key) throws -> Double {
      guard case .real(let value) = try self.value(key) else { throw decoder.refuse() }
      return value
    }
    package func text(_ key: Key) throws -> String {
      guard case .text(let value) = try self.value(key) else { throw decoder.refuse() }
      return value
    }

    package func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }
    package func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
      try integer(key) as Int64 != 0
    }
    package func decode(_ type: String.Type, forKey key: Key) throws -> String { try text(key) }
    package func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try real(key) }
    package func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
      Float(try real(key))
    }
    package func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
      let value: Any?
      switch T.self {
      case is Date.Type: value = Date(timeIntervalSinceReferenceDate: try real(key))
      case is UUID.Type: value = UUID(uuidString: try text(key))
      case is URL.Type: value = URL(string: try text(key))
      case is Data.Type:
        guard case .blob(let data) = try self.value(key) else { throw decoder.refuse() }
        value = data
      default: value = nil
      }
      guard let typed = value as? T else { throw decoder.refuse() }
      return typed
    }

    package func nestedContainer<NestedKey: CodingKey>(
      keyedBy type: NestedKey.Type, forKey key: Key
    )
      throws -> KeyedDecodingContainer<NestedKey>
    { throw decoder.refuse() }
    package func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
      throw decoder.refuse()
    }
    package func superDecoder() throws -> any Decoder { throw decoder.refuse() }
    package func superDecoder(forKey key: Key) throws -> any Decoder { throw decoder.refuse() }
  }
}
