import Foundation
import KuraBase
import KuraSQLite

/// Where a model's stored properties lie in its memory, column by column, and how each is
/// stored: what ``StoreStatement/readRow(_:into:)`` reads a row into and
/// ``StoreStatement/bindRow(_:from:)`` binds a row from (the layout of a ``RowPlan``).
///
/// The row loops are requirements of ``StoreStatement`` implemented once, in the extension
/// below: each engine's statement type gets its own copy, specialized for it, so reading or
/// binding a row costs one witness call and each column the engine's own call.
package struct RowLayout: Sendable {
  /// How one column's property is stored in the model's memory.
  package enum Field: Sendable {
    case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64
    case double, float, bool, string, date, uuid, url, data

    /// The field of a property type, or `nil` for types the plan leaves to `Codable`.
    package init?(_ type: Any.Type, kind: ColumnKind) {
      let field: Field
      switch type {
      case is Int.Type: field = .int
      case is Int8.Type: field = .int8
      case is Int16.Type: field = .int16
      case is Int32.Type: field = .int32
      case is Int64.Type: field = .int64
      case is UInt.Type: field = .uint
      case is UInt8.Type: field = .uint8
      case is UInt16.Type: field = .uint16
      case is UInt32.Type: field = .uint32
      case is UInt64.Type: field = .uint64
      case is Double.Type: field = .double
      case is Float.Type: field = .float
      case is Bool.Type: field = .bool
      case is String.Type: field = .string
      case is Date.Type: field = .date
      case is UUID.Type: field = .uuid
      case is URL.Type: field = .url
      case is Data.Type: field = .data
      default: return nil
      }
      guard field.kind == kind else { return nil }
      self = field
    }

    /// The column kind the schema gives this field's type.
    package var kind: ColumnKind {
      switch self {
      case .int, .int8, .int16, .int32, .int64, .uint, .uint8, .uint16, .uint32, .uint64:
        return .integer
      case .double, .float: return .real
      case .bool: return .bool
      case .string: return .text
      case .date: return .date
      case .uuid: return .uuid
      case .url: return .url
      case .data: return .blob
      }
    }
  }

  /// One column: its property's byte offset in the model, its field and whether it is optional.
  package struct Column: Sendable {
    package let offset: Int
    package let field: Field
    package let isOptional: Bool
  }

  /// The columns, in the schema's order (parameter `n + 1`, column `n`).
  package let columns: [Column]
  /// The schema the columns are of (for errors).
  package let schema: ModelSchema

  /// Deinitializes a property (those holding references).
  package static func deinitialize(_ column: Column, at p: UnsafeMutableRawPointer) {
    func drop<T>(_ type: T.Type) {
      if column.isOptional {
        p.assumingMemoryBound(to: Optional<T>.self).deinitialize(count: 1)
      } else {
        p.assumingMemoryBound(to: T.self).deinitialize(count: 1)
      }
    }
    switch column.field {
    case .string: drop(String.self)
    case .url: drop(URL.self)
    case .data: drop(Data.self)
    default: break  // trivial values
    }
  }
}

extension StoreStatement {
  // MARK: Reading rows

  /// Initializes every property of the model at `base` from the statement's current row; on a
  /// failure, what was initialized is deinitialized again.
  package func readRow(_ layout: RowLayout, into base: UnsafeMutableRawPointer) throws {
    let columns = layout.columns
    var index = 0
    do {
      for column in columns {
        try readColumn(column, index: index, schema: layout.schema, into: base + column.offset)
        index += 1
      }
    } catch {
      for done in 0..<index {
        RowLayout.deinitialize(columns[done], at: base + columns[done].offset)
      }
      throw error
    }
  }

  @inline(__always)
  private func readColumn(
    _ column: RowLayout.Column, index: Int, schema: ModelSchema, into p: UnsafeMutableRawPointer
  ) throws {
    @inline(__always)
    func put<T>(_ type: T.Type, _ value: () throws -> T) rethrows {
      try column.initialize(p, isNull: { self.isNull(at: index) }, with: value)
    }
    @inline(__always)
    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
      guard let value = T(exactly: self.int64(at: index)) else {
        throw schema.readFailure(T.self, at: index)
      }
      return value
    }
    switch column.field {
    case .int: try put(Int.self) { try integer(Int.self) }
    case .int8: try put(Int8.self) { try integer(Int8.self) }
    case .int16: try put(Int16.self) { try integer(Int16.self) }
    case .int32: try put(Int32.self) { try integer(Int32.self) }
    case .int64: put(Int64.self) { self.int64(at: index) }
    case .uint: try put(UInt.self) { try integer(UInt.self) }
    case .uint8: try put(UInt8.self) { try integer(UInt8.self) }
    case .uint16: try put(UInt16.self) { try integer(UInt16.self) }
    case .uint32: try put(UInt32.self) { try integer(UInt32.self) }
    case .uint64: try put(UInt64.self) { try integer(UInt64.self) }
    case .double: put(Double.self) { self.exactDouble(at: index) }
    case .float: put(Float.self) { Float(self.exactDouble(at: index)) }
    case .bool: put(Bool.self) { self.int64(at: index) != 0 }
    case .string: put(String.self) { self.string(at: index) }
    case .date:
      put(Date.self) { Date(timeIntervalSinceReferenceDate: self.exactDouble(at: index)) }
    case .uuid, .url, .data:
      try readObjectColumn(column, index: index, schema: schema, into: p)
    }
  }

  /// Reads a `UUID`, `URL` or `Data` column (out of line: their code is large, and most rows
  /// have none; the code of ``readRow(_:into:)`` runs for every row read, between SQLite's).
  @inline(never)
  private func readObjectColumn(
    _ column: RowLayout.Column, index: Int, schema: ModelSchema, into p: UnsafeMutableRawPointer
  ) throws {
    func put<T>(_ type: T.Type, _ value: () throws -> T) rethrows {
      try column.initialize(p, isNull: { self.isNull(at: index) }, with: value)
    }
    switch column.field {
    case .uuid:
      try put(UUID.self) {
        guard let uuid = UUID(uuidString: self.string(at: index)) else {
          throw schema.readFailure(UUID.self, at: index)
        }
        return uuid
      }
    case .url:
      try put(URL.self) {
        guard let url = URL(string: self.string(at: index)) else {
          throw schema.readFailure(URL.self, at: index)
        }
        return url
      }
    case .data: put(Data.self) { self.data(at: index) }
    default: preconditionFailure("readObjectColumn reads UUID, URL and Data columns only")
    }
  }

  // MARK: Binding rows

  /// Binds every column of the model at `base` (parameter `n + 1` is column `n`).
  package func bindRow(_ layout: RowLayout, from base: UnsafeRawPointer) throws {
    var index = 0
    for column in layout.columns {
      try bindColumn(column, index: index, schema: layout.schema, at: base + column.offset)
      index += 1
    }
  }

  @inline(__always)
  private func bindColumn(
    _ column: RowLayout.Column, index: Int, schema: ModelSchema, at p: UnsafeRawPointer
  ) throws {
    let parameter = index + 1
    @inline(__always)
    func value<T>(_ type: T.Type) -> T? { column.value(at: p, as: T.self) }
    // Every signed integer (at most 64 bits) and unsigned one of fewer than 64 bits is exact as
    // an `Int64`; only `UInt` and `UInt64` can be too large, and their error is made out of
    // line (`integerTooLarge`). The code of this function runs for every column of every row
    // saved, between SQLite's own: kept small, it leaves SQLite's code in the instruction
    // cache (written with an error message built inline per integer type, it was 14.7 kB).
    @inline(__always)
    func signed<T: FixedWidthInteger & SignedInteger>(_ type: T.Type) throws {
      guard let value = value(T.self) else { return try self.bindNull(at: parameter) }
      try self.bind(Int64(truncatingIfNeeded: value), at: parameter)
    }
    @inline(__always)
    func unsigned<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type) throws {
      guard let value = value(T.self) else { return try self.bindNull(at: parameter) }
      guard T.bitWidth < 64 || UInt64(truncatingIfNeeded: value) <= UInt64(Int64.max) else {
        throw schema.integerTooLarge(UInt64(truncatingIfNeeded: value), at: index)
      }
      try self.bind(Int64(truncatingIfNeeded: value), at: parameter)
    }
    switch column.field {
    case .int: try signed(Int.self)
    case .int8: try signed(Int8.self)
    case .int16: try signed(Int16.self)
    case .int32: try signed(Int32.self)
    case .int64: try signed(Int64.self)
    case .uint: try unsigned(UInt.self)
    case .uint8: try unsigned(UInt8.self)
    case .uint16: try unsigned(UInt16.self)
    case .uint32: try unsigned(UInt32.self)
    case .uint64: try unsigned(UInt64.self)
    case .double:
      guard let value = value(Double.self) else { return try self.bindNull(at: parameter) }
      try self.bindExact(value, at: parameter)
    case .float:
      guard let value = value(Float.self) else { return try self.bindNull(at: parameter) }
      try self.bindExact(Double(value), at: parameter)
    case .bool:
      guard let value = value(Bool.self) else { return try self.bindNull(at: parameter) }
      try self.bind(Int64(value ? 1 : 0), at: parameter)
    case .string:
      guard let value = value(String.self) else { return try self.bindNull(at: parameter) }
      try self.bind(value, at: parameter)
    case .date:
      guard let value = value(Date.self) else { return try self.bindNull(at: parameter) }
      try self.bindExact(value.timeIntervalSinceReferenceDate, at: parameter)
    case .uuid, .url, .data:
      try bindObjectColumn(column, parameter: parameter, at: p)
    }
  }

  /// Binds a `UUID`, `URL` or `Data` column (out of line: their code is large, and most rows
  /// have none).
  @inline(never)
  private func bindObjectColumn(_ column: RowLayout.Column, parameter: Int, at p: UnsafeRawPointer)
    throws
  {
    func value<T>(_ type: T.Type) -> T? { column.value(at: p, as: T.self) }
    switch column.field {
    case .uuid:
      guard let value = value(UUID.self) else { return try self.bindNull(at: parameter) }
      try self.bind(value.uuidString, at: parameter)
    case .url:
      guard let value = value(URL.self) else { return try self.bindNull(at: parameter) }
      try self.bind(value.absoluteString, at: parameter)
    case .data:
      guard let value = value(Data.self) else { return try self.bindNull(at: parameter) }
      try self.bind(value, at: parameter)
    default:
      preconditionFailure("bindObjectColumn binds UUID, URL and Data columns only")
    }
  }
}

extension ModelSchema {
  /// The error for column `index` of a model to save holding an unsigned integer above the
  /// largest the store holds.
  @inline(never)
  package func integerTooLarge(_ value: UInt64, at index: Int) -> StoreError {
    let name = columns[index].name
    return StoreError(
      .encodingFailed, model: modelName, property: name,
      message:
        "Can't save `\(modelName).\(name)`: \(value) is above the largest integer the store "
        + "holds (\(Int64.max)).")
  }

  /// The error for column `index` of a row holding a value that is not a valid `type`.
  package func readFailure(_ type: Any.Type, at index: Int) -> StoreError {
    let column = columns[index].name
    return StoreError(
      .decodingFailed, model: modelName, property: column, column: column,
      message:
        "Can't read `\(modelName).\(column)`: the value in column `\(column)` of table "
        + "`\(tableName)` is not a valid `\(type)`.")
  }
}

extension RowLayout.Column {
  /// Initializes the property at `p` (of this column's type, or an optional of it) with
  /// `value()`, or with `nil` when the column is optional and `isNull()`.
  @inline(__always)
  package func initialize<T>(
    _ p: UnsafeMutableRawPointer, isNull: () -> Bool, with value: () throws -> T
  ) rethrows {
    if isOptional {
      let target = p.assumingMemoryBound(to: Optional<T>.self)
      if isNull() {
        target.initialize(to: nil)
      } else {
        target.initialize(to: try value())
      }
    } else {
      p.assumingMemoryBound(to: T.self).initialize(to: try value())
    }
  }

  /// The property at `p` (of this column's type, or an optional of it), `nil` when it is.
  @inline(__always)
  package func value<T>(at p: UnsafeRawPointer, as type: T.Type) -> T? {
    isOptional
      ? p.assumingMemoryBound(to: Optional<T>.self).pointee
      : p.assumingMemoryBound(to: T.self).pointee
  }
}
