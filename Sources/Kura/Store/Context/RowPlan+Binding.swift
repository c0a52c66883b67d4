import Foundation

extension RowPlan {
  /// Binds every column of `model` (parameter `n + 1` is column `n`).
  @inline(__always)
  func bind<Model>(_ model: Model, to statement: StoreStatement) throws {
    try withUnsafePointer(to: model) { try bind(UnsafeRawPointer($0), to: statement) }
  }

  /// Binds every column of the model at `base` (a model of the plan's type), read in place.
  func bind(_ base: UnsafeRawPointer, to statement: StoreStatement) throws {
    var index = 0
    for column in columns {
      try bind(column, index: index, at: base + column.offset, to: statement)
      index += 1
    }
  }

  @inline(__always)
  private func bind(
    _ column: Column, index: Int, at p: UnsafeRawPointer, to statement: StoreStatement
  ) throws {
    let parameter = index + 1
    @inline(__always)
    func value<T>(_ type: T.Type) -> T? {
      column.isOptional
        ? p.assumingMemoryBound(to: Optional<T>.self).pointee
        : p.assumingMemoryBound(to: T.self).pointee
    }
    @inline(__always)
    func integer<T: BinaryInteger>(_ type: T.Type) throws {
      guard let value = value(T.self) else { return try statement.bindNull(at: parameter) }
      guard let exact = Int64(exactly: value) else {
        let name = schema.columns[index].name
        throw StoreError(
          .encodingFailed, model: schema.modelName, property: name,
          message:
            "Can't save `\(schema.modelName).\(name)`: \(value) is above the largest integer the "
            + "store holds (\(Int64.max)).")
      }
      try statement.bind(exact, at: parameter)
    }
    switch column.field {
    case .int: try integer(Int.self)
    case .int8: try integer(Int8.self)
    case .int16: try integer(Int16.self)
    case .int32: try integer(Int32.self)
    case .int64: try integer(Int64.self)
    case .uint: try integer(UInt.self)
    case .uint8: try integer(UInt8.self)
    case .uint16: try integer(UInt16.self)
    case .uint32: try integer(UInt32.self)
    case .uint64: try integer(UInt64.self)
    case .double:
      guard let value = value(Double.self) else { return try statement.bindNull(at: parameter) }
      try statement.bindExact(value, at: parameter)
    case .float:
      guard let value = value(Float.self) else { return try statement.bindNull(at: parameter) }
      try statement.bindExact(Double(value), at: parameter)
    case .bool:
      guard let value = value(Bool.self) else { return try statement.bindNull(at: parameter) }
      try statement.bind(Int64(value ? 1 : 0), at: parameter)
    case .string:
      guard let value = value(String.self) else { return try statement.bindNull(at: parameter) }
      try statement.bind(value, at: parameter)
    case .date:
      guard let value = value(Date.self) else { return try statement.bindNull(at: parameter) }
      try statement.bindExact(value.timeIntervalSinceReferenceDate, at: parameter)
    case .uuid:
      guard let value = value(UUID.self) else { return try statement.bindNull(at: parameter) }
      try statement.bind(value.uuidString, at: parameter)
    case .url:
      guard let value = value(URL.self) else { return try statement.bindNull(at: parameter) }
      try statement.bind(value.absoluteString, at: parameter)
    case .data:
      guard let value = value(Data.self) else { return try statement.bindNull(at: parameter) }
      try statement.bind(value, at: parameter)
    }
  }
}
