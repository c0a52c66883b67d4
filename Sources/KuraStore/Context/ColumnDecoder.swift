import Foundation
import KuraBase
import KuraSQLite

/// Decodes a single-value type (such as a `RawRepresentable` enum) from one column of the row a
/// ``RowDecoder`` is reading.
package struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
  package let decoder: RowDecoder
  package let index: Int
  package var codingPath: [any CodingKey] { [] }
  package var userInfo: [CodingUserInfoKey: Any] { [:] }

  package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<
    Key
  > {
    throw decoder.typeFailure(Key.self, at: index)
  }
  package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw decoder.shapeFailure()
  }
  package func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

  private var statement: StoreStatement { decoder.statement }

  package func decodeNil() -> Bool { statement.isNull(at: index) }
  package func decode(_ type: Bool.Type) throws -> Bool { statement.int64(at: index) != 0 }
  package func decode(_ type: String.Type) throws -> String { statement.string(at: index) }
  package func decode(_ type: Double.Type) throws -> Double { statement.exactDouble(at: index) }
  package func decode(_ type: Float.Type) throws -> Float {
    Float(statement.exactDouble(at: index))
  }
  package func decode(_ type: Int.Type) throws -> Int { try decoder.integer(Int.self, at: index) }
  package func decode(_ type: Int8.Type) throws -> Int8 {
    try decoder.integer(Int8.self, at: index)
  }
  package func decode(_ type: Int16.Type) throws -> Int16 {
    try decoder.integer(Int16.self, at: index)
  }
  package func decode(_ type: Int32.Type) throws -> Int32 {
    try decoder.integer(Int32.self, at: index)
  }
  package func decode(_ type: Int64.Type) throws -> Int64 {
    try decoder.integer(Int64.self, at: index)
  }
  package func decode(_ type: UInt.Type) throws -> UInt {
    try decoder.integer(UInt.self, at: index)
  }
  package func decode(_ type: UInt8.Type) throws -> UInt8 {
    try decoder.integer(UInt8.self, at: index)
  }
  package func decode(_ type: UInt16.Type) throws -> UInt16 {
    try decoder.integer(UInt16.self, at: index)
  }
  package func decode(_ type: UInt32.Type) throws -> UInt32 {
    try decoder.integer(UInt32.self, at: index)
  }
  package func decode(_ type: UInt64.Type) throws -> UInt64 {
    try decoder.integer(UInt64.self, at: index)
  }
  package func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try decoder.decodeGeneric(T.self, at: index)
  }
}
