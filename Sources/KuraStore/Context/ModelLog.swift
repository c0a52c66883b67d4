import KuraBase
import KuraSQLite

/// The models a ``PendingChanges`` logs (or a fetch collects), in memory it owns: appending one
/// costs no generic metadata lookup (an `Array` of an unspecialized generic type looks its type
/// up on each append), and no model is ever moved once logged. The memory is a list of chunks,
/// each twice the size of the one before (16, 16, 32, 64, … elements): growing allocates the
/// next chunk and leaves the others where they are, where one growing buffer would move every
/// model at each doubling (about 100 instructions per model of a 10,000-model save). Chunk 0
/// holds elements 0–15; chunk `k ≥ 1` holds the `16 << (k - 1)` elements from `16 << (k - 1)`
/// on, so element `i ≥ 16` lies in chunk `bitWidth(i / 16)`.
package final class ModelLog<Element> {
  /// The chunks' memory, `chunkCount` of them (room for `chunkCapacity` pointers).
  @exclusivity(unchecked) private var chunks: UnsafeMutablePointer<UnsafeMutablePointer<Element>>
  @exclusivity(unchecked) private var chunkCount = 0
  @exclusivity(unchecked) private var chunkCapacity = 8
  /// Where the next element goes, and how many more fit in its chunk.
  @exclusivity(unchecked) private var tail: UnsafeMutablePointer<Element>?
  @exclusivity(unchecked) private var tailRoom = 0
  @exclusivity(unchecked) package private(set) var count = 0

  /// The elements of the first chunk; chunk `k ≥ 1` holds `firstChunk << (k - 1)`.
  private static var firstChunk: Int { 16 }

  package init() {
    chunks = .allocate(capacity: chunkCapacity)
  }

  deinit {
    truncate(to: 0)
    for index in 0..<chunkCount { chunks[index].deallocate() }
    chunks.deallocate()
  }

  /// The number of elements chunk `k` holds.
  @inline(__always)
  private static func size(ofChunk k: Int) -> Int { firstChunk << max(k - 1, 0) }

  /// The index of the first element of chunk `k`.
  @inline(__always)
  private static func start(ofChunk k: Int) -> Int { k == 0 ? 0 : firstChunk << (k - 1) }

  /// The chunk of element `index`.
  @inline(__always)
  private static func chunk(of index: Int) -> Int {
    // Chunks 0 and 1 hold 16 each, then chunk k holds 16 << (k - 1) from 16 << (k - 1) on.
    let scaled = index / firstChunk
    return scaled == 0 ? 0 : Int.bitWidth - scaled.leadingZeroBitCount
  }

  /// Where element `index` is.
  @inline(__always)
  private func address(_ index: Int) -> UnsafeMutablePointer<Element> {
    if index < Self.firstChunk { return chunks[0] + index }
    let k = Self.chunk(of: index)
    return chunks[k] + (index - Self.start(ofChunk: k))
  }

  /// Allocates the next chunk (the tail stays where it is).
  private func addChunk() {
    if chunkCount == chunkCapacity {
      let larger = UnsafeMutablePointer<UnsafeMutablePointer<Element>>.allocate(
        capacity: chunkCapacity * 2)
      larger.moveInitialize(from: chunks, count: chunkCount)
      chunks.deallocate()
      chunks = larger
      chunkCapacity *= 2
    }
    (chunks + chunkCount).initialize(to: .allocate(capacity: Self.size(ofChunk: chunkCount)))
    chunkCount += 1
  }

  /// Puts the tail where element `count` goes, allocating its chunk unless a truncation kept
  /// it.
  private func growTail() {
    let k = Self.chunk(of: count)
    if k == chunkCount { addChunk() }
    let offset = count - Self.start(ofChunk: k)
    tail = chunks[k] + offset
    tailRoom = Self.size(ofChunk: k) - offset
  }

  package func append(_ element: consuming Element) {
    if tailRoom == 0 { growTail() }
    let slot = tail.unsafelyUnwrapped
    slot.initialize(to: element)
    tail = slot + 1
    tailRoom -= 1
    count += 1
  }

  /// Appends the element `initialize` writes into the log's memory (no move of it from
  /// elsewhere); when it throws, it must leave that memory uninitialized, and nothing is
  /// appended.
  package func appendInPlace(_ initialize: (UnsafeMutablePointer<Element>) throws -> Void) rethrows
  {
    if tailRoom == 0 { growTail() }
    let slot = tail.unsafelyUnwrapped
    try initialize(slot)
    tail = slot + 1
    tailRoom -= 1
    count += 1
  }

  @inline(__always)
  package subscript(index: Int) -> Element {
    precondition(index >= 0 && index < count, "model log index out of range")
    return address(index).pointee
  }

  /// Where the model at `index` is, valid until the log is truncated below it.
  @inline(__always)
  package func pointer(at index: Int) -> UnsafePointer<Element> {
    precondition(index >= 0 && index < count, "model log index out of range")
    return UnsafePointer(address(index))
  }

  /// Calls `body` with each run of elements from `start` on that lies in one chunk, in order.
  private func forEachRun(
    from start: Int, _ body: (UnsafeMutablePointer<Element>, _ count: Int) -> Void
  ) {
    var index = start
    while index < count {
      let k = Self.chunk(of: index)
      let end = min(Self.start(ofChunk: k) + Self.size(ofChunk: k), count)
      body(address(index), end - index)
      index = end
    }
  }

  /// Drops the models after the first `newCount` (the chunks are kept for the next ones).
  package func truncate(to newCount: Int) {
    guard newCount < count else { return }
    if count <= Self.firstChunk {
      // All in the first chunk (a save of a few models, cleared after it).
      let first = chunks[0]
      (first + newCount).deinitialize(count: count - newCount)
      count = newCount
      tail = first + newCount
      tailRoom = Self.firstChunk - newCount
      return
    }
    forEachRun(from: newCount) { run, length in run.deinitialize(count: length) }
    count = newCount
    // The next element goes where the first dropped one was (its chunk is kept).
    growTail()
  }

  /// The models, in order.
  package var elements: [Element] {
    [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
      guard let target = buffer.baseAddress else { return }
      forEachRun(from: 0) { run, length in
        (target + initialized).initialize(from: run, count: length)
        initialized += length
      }
    }
  }

  /// The models, moved into an array (the log is empty after).
  package func moveToArray() -> [Element] {
    let moved = [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
      guard let target = buffer.baseAddress else { return }
      forEachRun(from: 0) { run, length in
        (target + initialized).moveInitialize(from: run, count: length)
        initialized += length
      }
    }
    count = 0
    tail = nil
    tailRoom = 0
    return moved
  }
}
