import Foundation
import KuraBase
import KuraSQLite

/// The compact form of a history row's change set (a BLOB in `changes`): a format byte, then
/// per model its name and its inserted, updated and deleted id lists, each a count followed by
/// the ids; names and ids are a length and UTF-8 bytes; counts and lengths are LEB128 varints.
/// Written without any escaping or JSON building; rows written before as JSON text are still read.
package enum ChangeHistoryFormat {
  package static let binary: UInt8 = 1

  /// Writes `changes` in the compact form into `bytes`, which then holds exactly that: the
  /// size is counted first and the bytes written in place (no append per byte), in storage kept
  /// from save to save (resized only when the size changed).
  package static func write(_ changes: SavedChanges, into bytes: inout [UInt8]) {
    var size = 1
    changes.forEach { model, modelChanges in
      size += textSize(model) + listSize(modelChanges.insertedIDs)
      size += listSize(modelChanges.updated) + listSize(modelChanges.deleted)
    }
    if bytes.count > size {
      bytes.removeLast(bytes.count - size)
    } else if bytes.count < size {
      bytes.append(contentsOf: repeatElement(0, count: size - bytes.count))
    }
    bytes.withUnsafeMutableBufferPointer { buffer in
      buffer[0] = binary
      var at = 1
      changes.forEach { model, modelChanges in
        put(model, into: buffer, at: &at)
        put(modelChanges.insertedIDs, into: buffer, at: &at)
        put(modelChanges.updated, into: buffer, at: &at)
        put(modelChanges.deleted, into: buffer, at: &at)
      }
    }
  }

  private static func varintSize(_ value: Int) -> Int {
    var value = UInt(value)
    var size = 1
    while value >= 0x80 {
      value >>= 7
      size += 1
    }
    return size
  }

  private static func textSize(_ text: String) -> Int {
    let count = text.utf8.count
    return varintSize(count) + count
  }

  private static func listSize(_ ids: [String]) -> Int {
    var size = varintSize(ids.count)
    for id in ids { size += textSize(id) }
    return size
  }

  private static func put(
    _ value: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at index: inout Int
  ) {
    var value = UInt(value)
    while value >= 0x80 {
      buffer[index] = UInt8(truncatingIfNeeded: value) | 0x80
      index += 1
      value >>= 7
    }
    buffer[index] = UInt8(value)
    index += 1
  }

  private static func listSize(_ ids: ChangeSet.ModelChanges.IDList) -> Int {
    switch ids {
    case .texts(let texts): return listSize(texts)
    case .integers(let integers):
      // A length byte (at most 20 digits and a sign) and the digits.
      var size = varintSize(integers.count)
      for id in integers { size += 1 + decimalLength(id) }
      return size
    }
  }

  /// Writes ids as the overload taking `[String]` writes their texts; integers are written as
  /// their decimal digits straight into the buffer.
  private static func put(
    _ ids: ChangeSet.ModelChanges.IDList, into buffer: UnsafeMutableBufferPointer<UInt8>,
    at index: inout Int
  ) {
    switch ids {
    case .texts(let texts): put(texts, into: buffer, at: &index)
    case .integers(let integers):
      put(integers.count, into: buffer, at: &index)
      guard let base = buffer.baseAddress else { return }
      for id in integers {
        let length = decimalLength(id)
        buffer[index] = UInt8(truncatingIfNeeded: length)
        writeDecimal(id, endingAt: base + index + 1 + length)
        index += 1 + length
      }
    }
  }

  private static func put(
    _ ids: [String], into buffer: UnsafeMutableBufferPointer<UInt8>, at index: inout Int
  ) {
    put(ids.count, into: buffer, at: &index)
    for id in ids { put(id, into: buffer, at: &index) }
  }

  private static func put(
    _ text: String, into buffer: UnsafeMutableBufferPointer<UInt8>, at index: inout Int
  ) {
    var text = text
    text.withUTF8 { utf8 in
      put(utf8.count, into: buffer, at: &index)
      guard let source = utf8.baseAddress, let target = buffer.baseAddress, utf8.count > 0
      else { return }
      (target + index).update(from: source, count: utf8.count)
      index += utf8.count
    }
  }

  /// The change sets by model of a compact row.
  package static func decode(_ data: Data) throws -> [String: ChangeSet.ModelChanges] {
    let bytes = [UInt8](data)
    var position = 0
    func failure() -> StoreError {
      StoreError(
        .decodingFailed,
        message:
          "Can't read a change set of the store's history: its compact form is damaged at byte "
          + "\(position). Check the store with `kura store check`.")
    }
    func varint() throws -> Int {
      var value = 0
      var shift = 0
      while position < bytes.count, shift < 63 {
        let byte = bytes[position]
        position += 1
        value |= Int(byte & 0x7f) << shift
        if byte < 0x80 { return value }
        shift += 7
      }
      throw failure()
    }
    func text() throws -> String {
      let count = try varint()
      guard count <= bytes.count - position else { throw failure() }
      defer { position += count }
      return String(decoding: bytes[position..<(position + count)], as: UTF8.self)
    }
    guard bytes.first == binary else { throw failure() }
    position = 1
    var changes: [String: ChangeSet.ModelChanges] = [:]
    while position < bytes.count {
      let model = try text()
      var lists: [[String]] = []
      for _ in 0..<3 {
        let count = try varint()
        guard count <= bytes.count - position else { throw failure() }
        var list: [String] = []
        list.reserveCapacity(count)
        for _ in 0..<count { list.append(try text()) }
        lists.append(list)
      }
      changes[model] = ChangeSet.ModelChanges(
        inserted: lists[0], updated: lists[1], deleted: lists[2])
    }
    return changes
  }
}
