import Foundation

extension RowPlan {
  /// The model in the statement's current row (columns in schema order), built in `scratch`
  /// and moved out.
  @inline(__always)
  func decode<Model>(
    _ type: Model.Type, from statement: StoreStatement, in scratch: inout RowScratch
  ) throws -> Model {
    guard let memory = scratch.memory(for: Model.self) else {
      return try decodeOverAligned(Model.self, from: statement)
    }
    let model = memory.bindMemory(to: Model.self, capacity: 1)
    // On a failure `initialize` leaves the memory as it found it: uninitialized.
    try initialize(memory, from: statement)
    return model.move()
  }

  /// ``decode(_:from:in:)`` for a type aligned beyond what the scratch memory gives, in memory
  /// of its own (apart, so the common path does not look up the metadata this one uses).
  @inline(never)
  private func decodeOverAligned<Model>(_ type: Model.Type, from statement: StoreStatement)
    throws -> Model
  {
    try withUnsafeTemporaryAllocation(of: Model.self, capacity: 1) { buffer in
      let base = buffer.baseAddress.unsafelyUnwrapped
      try initialize(UnsafeMutableRawPointer(base), from: statement)
      return base.move()
    }
  }

  /// Initializes every property of the model at `base` from the statement's current row; on a
  /// failure, what was initialized is deinitialized again.
  private func initialize(_ base: UnsafeMutableRawPointer, from statement: StoreStatement) throws {
    var index = 0
    do {
      for column in columns {
        try read(column, index: index, from: statement, into: base + column.offset)
        index += 1
      }
    } catch {
      for done in 0..<index { Self.deinitialize(columns[done], at: base + columns[done].offset) }
      throw error
    }
  }

  @inline(__always)
  private func read(
    _ column: Column, index: Int, from statement: StoreStatement, into p: UnsafeMutableRawPointer
  ) throws {
    @inline(__always)
    func put<T>(_ type: T.Type, _ value: () throws -> T) rethrows {
      if column.isOptional {
        let target = p.assumingMemoryBound(to: Optional<T>.self)
        if statement.isNull(at: index) {
          target.initialize(to: nil)
        } else {
          target.initialize(to: try value())
        }
      } else {
        p.assumingMemoryBound(to: T.self).initialize(to: try value())
      }
    }
    @inline(__always)
    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
      guard let value = T(exactly: statement.int64(at: index)) else {
        throw schema.readFailure(T.self, at: index)
      }
      return value
    }
    switch column.field {
    case .int: try put(Int.self) { try integer(Int.self) }
    case .int8: try put(Int8.self) { try integer(Int8.self) }
    case .int16: try put(Int16.self) { try integer(Int16.self) }
    case .int32: try put(Int32.self) { try integer(Int32.self) }
    case .int64: put(Int64.self) { statement.int64(at: index) }
    case .uint: try put(UInt.self) { try integer(UInt.self) }
    case .uint8: try put(UInt8.self) { try integer(UInt8.self) }
    case .uint16: try put(UInt16.self) { try integer(UInt16.self) }
    case .uint32: try put(UInt32.self) { try integer(UInt32.self) }
    case .uint64: try put(UInt64.self) { try integer(UInt64.self) }
    case .double: put(Double.self) { statement.exactDouble(at: index) }
    case .float: put(Float.self) { Float(statement.exactDouble(at: index)) }
    case .bool: put(Bool.self) { statement.int64(at: index) != 0 }
    case .string: put(String.self) { statement.string(at: index) }
    case .date:
      put(Date.self) { Date(timeIntervalSinceReferenceDate: statement.exactDouble(at: index)) }
    case .uuid:
      try put(UUID.self) {
        guard let uuid = UUID(uuidString: statement.string(at: index)) else {
          throw schema.readFailure(UUID.self, at: index)
        }
        return uuid
      }
    case .url:
      try put(URL.self) {
        guard let url = URL(string: statement.string(at: index)) else {
          throw schema.readFailure(URL.self, at: index)
        }
        return url
      }
    case .data: put(Data.self) { statement.data(at: index) }
    }
  }

  /// Deinitializes a property (those holding references).
  private static func deinitialize(_ column: Column, at p: UnsafeMutableRawPointer) {
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

/// Memory a row plan builds one model in, reused row after row by one decoder: a temporary
/// allocation per row (`withUnsafeTemporaryAllocation`) looks a generic type's metadata up every
/// time. The owner calls ``deallocate()``.
struct RowScratch {
  private var memory: UnsafeMutableRawPointer?
  private var byteCount = 0

  /// Memory for one `Model`, or `nil` for a type aligned beyond 16 bytes.
  @inline(__always)
  mutating func memory<Model>(for type: Model.Type) -> UnsafeMutableRawPointer? {
    guard MemoryLayout<Model>.alignment <= 16 else { return nil }
    let size = MemoryLayout<Model>.size
    if let memory, size <= byteCount { return memory }
    memory?.deallocate()
    byteCount = max(size, 16)
    let grown = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 16)
    memory = grown
    return grown
  }

  /// Frees the memory (nothing may be initialized in it).
  func deallocate() { memory?.deallocate() }
}
