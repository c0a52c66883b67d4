import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  internal import CLibPQ

  /// Reading the columns of a statement's current row, from the binary (or text) form the
  /// server sent.
  extension PostgresStatement {
    /// The number of columns in each row.
    ///
    /// For example: `statement.columnCount` is `2` for `SELECT id, name FROM trip`.
    package var columnCount: Int { columnNames.count }

    /// The name of column `index` (from 0).
    ///
    /// For example: `statement.columnName(at: 0)` is `"name"` for `SELECT name FROM trip`.
    ///
    /// - Parameter index: The column number, from 0.
    /// - Returns: The column's name.
    package func columnName(at index: Int) -> String {
      columnNames.indices.contains(index) ? columnNames[index] : ""
    }

    /// The bytes of column `index` of the current row, or `nil` for NULL (or no row).
    @inline(__always)
    private func cell(_ index: Int) -> UnsafeRawBufferPointer? {
      guard let result else { return nil }
      let column = Int32(truncatingIfNeeded: index)
      guard let value = PQgetvalue(result, row, column) else { return nil }
      let length = Int(PQgetlength(result, row, column))
      // NULL reads as an empty value: only an empty one asks which it is.
      if length == 0 && PQgetisnull(result, row, column) != 0 { return nil }
      return UnsafeRawBufferPointer(start: UnsafeRawPointer(value), count: length)
    }

    /// The type of column `index`.
    @inline(__always)
    private func type(_ index: Int) -> UInt32 {
      if index >= 0 && index < columnTypes.count { return columnTypes[index] }
      guard let result else { return 0 }
      return PQftype(result, Int32(truncatingIfNeeded: index))
    }

    /// Whether column `index` (from 0) of the current row is NULL.
    ///
    /// For example: `if statement.isNull(at: 2) { … }`.
    ///
    /// - Parameter index: The column number, from 0.
    /// - Returns: `true` for NULL.
    package func isNull(at index: Int) -> Bool {
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
    package func int64(at index: Int) -> Int64 {
      guard let bytes = cell(index) else { return 0 }
      if resultFormat == 1 {
        switch type(index) {
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
      return PostgresType.integer(parsing: bytes, type: type(index))
    }

    /// Column `index` (from 0) as a floating-point number: `double precision` bit for bit,
    /// `real` and integers converted, text holding a number read as one. NULL reads as 0.
    ///
    /// For example: `let price = statement.double(at: 2)`.
    ///
    /// - Parameter index: The column number, from 0.
    /// - Returns: The value.
    package func double(at index: Int) -> Double {
      guard let bytes = cell(index) else { return 0 }
      if resultFormat == 1 {
        switch type(index) {
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
      if type(index) == PostgresType.bool { return Double(int64(at: index)) }
      return PostgresType.double(parsing: bytes) ?? 0
    }

    /// Column `index` (from 0) as a `Double` bound with ``bindExact(_:at:)``, bit for bit.
    package func exactDouble(at index: Int) -> Double { double(at: index) }

    /// Column `index` (from 0) as text: text columns as they are, numbers in decimal, `boolean`
    /// as `t` or `f`, other types as PostgreSQL writes them. NULL reads as the empty string.
    ///
    /// For example: `let memo = statement.string(at: 3)`.
    ///
    /// - Parameter index: The column number, from 0.
    /// - Returns: The value.
    package func string(at index: Int) -> String {
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
    package func data(at index: Int) -> Data {
      guard let bytes = cell(index) else { return Data() }
      if resultFormat == 0 && type(index) == PostgresType.bytea {
        return PostgresType.bytes(fromHex: bytes) ?? Data(bytes)
      }
      return Data(bytes)
    }

    /// Column `index` (from 0) as a ``DatabaseValue``: integers and `boolean` as
    /// ``DatabaseValue/integer(_:)``, `real` and `double precision` as ``DatabaseValue/real(_:)``,
    /// `bytea` as ``DatabaseValue/blob(_:)``, NULL as ``DatabaseValue/null``, and anything else as
    /// ``DatabaseValue/text(_:)`` (as PostgreSQL writes it).
    ///
    /// For example:
    ///
    /// ```swift
    /// if case .text(let name) = statement.value(at: 0) { print(name) }
    /// ```
    ///
    /// - Parameter index: The column number, from 0.
    /// - Returns: The value.
    package func value(at index: Int) -> DatabaseValue {
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

    /// Column `index` (from 0) converted to a Swift type, as ``DatabaseValue`` documents.
    ///
    /// For example: `let id: UUID? = statement.value(UUID.self, at: 0)`.
    ///
    /// - Parameters:
    ///   - type: The type to read.
    ///   - index: The column number, from 0.
    /// - Returns: The value, or `nil` when the stored value does not fit the type.
    package func value<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int) -> Value?
    {
      Value(databaseValue: value(at: index))
    }
  }
#endif
