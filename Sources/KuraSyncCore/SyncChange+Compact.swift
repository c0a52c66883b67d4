import Foundation
import KuraBase
import KuraStore

/// The compact form of one save's changes that the outbox keeps (a BLOB; earlier versions kept
/// the JSON of ``SyncChange``, a TEXT, which is still read): every save with sync on writes
/// one, and encoding the changes with `JSONEncoder` was the largest part of what sync added to
/// a save.
///
/// The form: a version byte (1), the number of changes, then each change: a flags byte
/// (`1`: a delete, `2`: the model, id and incarnation of the change before, `4`: its stamp),
/// then what the flags don't say is the same — the model and id, the incarnation, the stamp's
/// wall time, counter and replica's 16 bytes — and for a set, the property and the value (a
/// kind byte: 0 null, 1 integer, 2 real by its bits, 3 text, 4 blob). Numbers are LEB128
/// varints (an integer value zigzagged), texts and blobs a varint length and their bytes.
extension SyncChange {
  /// The version byte that starts the compact form.
  private static let compactVersion: UInt8 = 1

  private enum CompactFlag {
    static let deleted: UInt8 = 1
    static let sameRecord: UInt8 = 2
    static let sameStamp: UInt8 = 4
    static let all: UInt8 = 7
  }

  /// A value's kind byte in the compact forms.
  package enum CompactKind: UInt8 {
    case null, integer, real, text, blob
  }

  /// The compact form of `changes`.
  package static func compactEncoding(of changes: [SyncChange]) -> [UInt8] {
    var writer = CompactWriter()
    writer.bytes.reserveCapacity(16 + changes.count * 48)
    writer.bytes.append(compactVersion)
    writer.varint(UInt64(changes.count))
    var previous: SyncChange?
    for change in changes {
      var flags: UInt8 = change.deleted ? CompactFlag.deleted : 0
      let sameRecord =
        previous.map {
          $0.incarnation == change.incarnation && $0.model.utf8.elementsEqual(change.model.utf8)
            && $0.id.utf8.elementsEqual(change.id.utf8)
        } ?? false
      if sameRecord { flags |= CompactFlag.sameRecord }
      if previous?.stamp == change.stamp { flags |= CompactFlag.sameStamp }
      writer.bytes.append(flags)
      if !sameRecord {
        writer.text(change.model)
        writer.text(change.id)
        writer.varint(UInt64(bitPattern: change.incarnation))
      }
      if flags & CompactFlag.sameStamp == 0 {
        writer.varint(change.stamp.wall)
        writer.varint(UInt64(change.stamp.counter))
        withUnsafeBytes(of: change.stamp.replica.uuid) { writer.bytes.append(contentsOf: $0) }
      }
      if !change.deleted {
        writer.text(change.property ?? "")
        writer.value(change.value ?? .null)
      }
      previous = change
    }
    return writer.bytes
  }

  /// The changes of a compact form, or `nil` when `bytes` is not one (damaged, truncated, or
  /// breaking a rule ``SyncChange``'s JSON form checks too).
  package static func changes(compact bytes: UnsafeRawBufferPointer) -> [SyncChange]? {
    var reader = CompactReader(bytes: bytes)
    guard reader.byte() == compactVersion, let count = reader.varint(),
      count <= UInt64(bytes.count)
    else { return nil }
    var changes: [SyncChange] = []
    changes.reserveCapacity(Int(count))
    var previous: SyncChange?
    for _ in 0..<count {
      guard let flags = reader.byte(), flags & ~CompactFlag.all == 0 else { return nil }
      let model: String
      let id: String
      let incarnation: Int64
      if flags & CompactFlag.sameRecord != 0 {
        guard let previous else { return nil }
        (model, id, incarnation) = (previous.model, previous.id, previous.incarnation)
      } else {
        guard let modelText = reader.text(), !modelText.isEmpty, let idText = reader.text(),
          !idText.isEmpty, let number = reader.varint(), number >= 1, number <= Int64.max
        else { return nil }
        (model, id, incarnation) = (modelText, idText, Int64(number))
      }
      let stamp: SyncStamp
      if flags & CompactFlag.sameStamp != 0 {
        guard let previous else { return nil }
        stamp = previous.stamp
      } else {
        guard let full = reader.stamp() else { return nil }
        stamp = full
      }
      var change = SyncChange(
        model: model, id: id, incarnation: incarnation, stamp: stamp, property: nil, value: nil,
        deleted: false)
      change.deleted = flags & CompactFlag.deleted != 0
      if change.deleted {
        change.property = nil
        change.value = nil
      } else {
        guard let property = reader.text(), !property.isEmpty, let value = reader.value()
        else { return nil }
        change.property = property
        change.value = value
      }
      changes.append(change)
      previous = change
    }
    return reader.isAtEnd ? changes : nil
  }

  /// Appends the compact forms' parts to a byte array (this one's, and the registers'
  /// ``SyncRecordState/compactRegisters(_:)``).
  package struct CompactWriter {
    package var bytes: [UInt8] = []

    package mutating func varint(_ value: UInt64) {
      var value = value
      while value >= 0x80 {
        bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
        value >>= 7
      }
      bytes.append(UInt8(value))
    }

    package mutating func text(_ text: String) {
      varint(UInt64(text.utf8.count))
      bytes.append(contentsOf: text.utf8)
    }

    package mutating func value(_ value: DatabaseValue) {
      switch value {
      case .null: bytes.append(CompactKind.null.rawValue)
      case .integer(let integer):
        bytes.append(CompactKind.integer.rawValue)
        varint(UInt64(bitPattern: (integer << 1) ^ (integer >> 63)))
      case .real(let real):
        bytes.append(CompactKind.real.rawValue)
        withUnsafeBytes(of: real.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
      case .text(let text):
        bytes.append(CompactKind.text.rawValue)
        self.text(text)
      case .blob(let data):
        bytes.append(CompactKind.blob.rawValue)
        varint(UInt64(data.count))
        bytes.append(contentsOf: data)
      }
    }
  }

  /// Reads the compact forms' parts, each `nil` past the end or when malformed.
  package struct CompactReader {
    package let bytes: UnsafeRawBufferPointer
    package var offset = 0

    package var isAtEnd: Bool { offset == bytes.count }

    package mutating func byte() -> UInt8? {
      guard offset < bytes.count else { return nil }
      defer { offset += 1 }
      return bytes[offset]
    }

    package mutating func varint() -> UInt64? {
      var value: UInt64 = 0
      var shift: UInt64 = 0
      while let byte = byte() {
        guard shift < 64, shift < 63 || byte <= 1 else { return nil }
        value |= UInt64(byte & 0x7F) << shift
        if byte & 0x80 == 0 { return value }
        shift += 7
      }
      return nil
    }

    package mutating func slice() -> UnsafeRawBufferPointer? {
      guard let length = varint(), length <= UInt64(bytes.count - offset) else { return nil }
      defer { offset += Int(length) }
      return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(length))])
    }

    package mutating func text() -> String? {
      guard let slice = slice() else { return nil }
      return String(validating: slice.bindMemory(to: UInt8.self), as: UTF8.self)
    }

    package mutating func uuid() -> UUID? {
      guard bytes.count - offset >= 16 else { return nil }
      var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
      withUnsafeMutableBytes(of: &uuid) {
        $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 16)]))
      }
      offset += 16
      return UUID(uuid: uuid)
    }

    /// A stamp written in full: its wall time and counter as varints, then its replica.
    package mutating func stamp() -> SyncStamp? {
      guard let wall = varint(), wall <= SyncStamp.maximumWall,
        let counter = varint(), counter <= UInt64(UInt16.max),
        let replica = uuid()
      else { return nil }
      return SyncStamp(wall: wall, counter: UInt16(counter), replica: replica)
    }

    package mutating func value() -> DatabaseValue? {
      guard let kind = byte().flatMap(CompactKind.init(rawValue:)) else { return nil }
      switch kind {
      case .null: return .null
      case .integer:
        guard let zigzag = varint() else { return nil }
        return .integer(Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1))))
      case .real:
        guard bytes.count - offset >= 8 else { return nil }
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        offset += 8
        return .real(Double(bitPattern: bits))
      case .text: return text().map { .text($0) }
      case .blob: return slice().map { .blob(Data($0)) }
      }
    }
  }
}
