import Foundation
import KuraBase
import KuraSQLite

extension RowPlan {
  /// The model in the statement's current row (columns in schema order), built in `scratch`
  /// and moved out.
  @inline(__always)
  package func decode<Model>(
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

  /// Initializes the model at `target` from the statement's current row; on a failure it is
  /// left uninitialized.
  @inline(__always)
  package func initialize<Model>(
    _ target: UnsafeMutablePointer<Model>, from statement: StoreStatement
  )
    throws
  {
    try initialize(UnsafeMutableRawPointer(target), from: statement)
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
  /// failure, what was initialized is deinitialized again (``StoreStatement/readRow(_:into:)``).
  @inline(__always)
  private func initialize(_ base: UnsafeMutableRawPointer, from statement: StoreStatement) throws {
    try statement.readRow(layout, into: base)
  }
}

/// Memory a row plan builds one model in, reused row after row by one decoder: a temporary
/// allocation per row (`withUnsafeTemporaryAllocation`) looks a generic type's metadata up every
/// time. The owner calls ``deallocate()``.
package struct RowScratch {
  private var memory: UnsafeMutableRawPointer?
  private var byteCount = 0

  /// Memory for one `Model`, or `nil` for a type aligned beyond 16 bytes.
  @inline(__always)
  package mutating func memory<Model>(for type: Model.Type) -> UnsafeMutableRawPointer? {
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
  package func deallocate() { memory?.deallocate() }
}
