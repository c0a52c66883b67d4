import Foundation
import KuraBase
import KuraSQLite

// What the store's coders share: ``RowDecoder`` and ``RowEncoder`` (a model to and from a
// statement's row) and the row plan's probe coders (`ProbeEncoder`, `ProbeDecoder`).

/// A coder at the top of a model's coding: a model is one row, so there is no coding path and
/// no user info.
package protocol TopLevelCoder {}

extension TopLevelCoder {
  package var codingPath: [any CodingKey] { [] }
  package var userInfo: [CodingUserInfoKey: Any] { [:] }
}

/// What a row coder reads of its schema on every row, in memory the coder owns (the names are
/// read without reference counting); the coder frees it from its `deinit`.
package struct RowCoderColumns {
  package let names: UnsafeMutableBufferPointer<String>
  package let kinds: [ColumnKind]
  private let indexByName: [String: Int]

  package init(_ schema: ModelSchema) {
    names = .allocate(capacity: schema.columnNames.count)
    _ = names.initialize(from: schema.columnNames)
    kinds = schema.columnKinds
    indexByName = schema.columnIndexByName
  }

  /// The column `key` names, looked up only when it is not the `expected` one (synthesized
  /// `Codable` codes keys in order); `nil` when it names no column.
  @inline(__always)
  package func index(of key: some CodingKey, expected: Int) -> Int? {
    if expected < names.count, names[expected] == key.stringValue { return expected }
    return indexByName[key.stringValue]
  }

  /// Frees the names (once).
  package func deallocate() {
    names.deinitialize()
    names.deallocate()
  }
}

/// The keyed container a row coder handed out last, kept so that one container per key type
/// serves every row: reusing it saves an allocation and a metadata lookup per row.
package struct RowCoderContainerCache {
  private var cached: (key: ObjectIdentifier, box: AnyObject)?

  /// The container for `Key`, made by `make` the first time. A keyed container (encoding or
  /// decoding) is one reference to its box, so it round-trips through `AnyObject` when the key
  /// type matches; one of another size is made every time.
  @inline(__always)
  package mutating func container<Key: CodingKey, Container>(
    _ key: Key.Type, make: () -> Container
  ) -> Container {
    if let cached, cached.key == ObjectIdentifier(Key.self) {
      return unsafeBitCast(cached.box, to: Container.self)
    }
    let container = make()
    if MemoryLayout<Container>.size == MemoryLayout<AnyObject>.size {
      cached = (ObjectIdentifier(Key.self), unsafeBitCast(container, to: AnyObject.self))
    }
    return container
  }
}

/// A keyed decoding container that decodes every fixed-width integer type one way, in
/// ``integer(_:)``.
package protocol IntegerColumnDecoding: KeyedDecodingContainerProtocol {
  /// The integer `key` names, as a `T`; a value `T` can't hold is a failure.
  func integer<T: FixedWidthInteger>(_ key: Key) throws -> T
}

extension IntegerColumnDecoding {
  package func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
  package func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
  package func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
  package func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
  package func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
  package func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
  package func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
  package func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
  package func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
  package func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }
}

/// A keyed encoding container that encodes every fixed-width integer type one way, in
/// ``integer(_:_:)``.
package protocol IntegerColumnEncoding: KeyedEncodingContainerProtocol {
  /// Encodes an integer under `key`; one the store can't hold (a `UInt64` above `Int64.max`)
  /// is a failure.
  mutating func integer(_ value: some FixedWidthInteger, _ key: Key) throws
}

extension IntegerColumnEncoding {
  package mutating func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
  package mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
  package mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
  package mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
  package mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
  package mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
  package mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
  package mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
  package mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
  package mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }
}
