import Foundation
import KuraBase

/// The journal kept beside a collection document (`.<name>.journal`): a header tying it to one
/// version of the JSON file, then one framed record per change.
///
/// Layout (little-endian):
///
/// ```
/// header  "KURAJNL1" | base length: UInt64 | base hash: UInt64 | header hash: UInt64
/// record  0xA5 | payload length: UInt32 | payload hash: UInt64 | payload
/// payload operation: UInt8 (append, update, remove) | JSON (the element, or {"id": …})
/// ```
///
/// A record is written with a single `write`; one cut short by a crash is a torn tail (it was
/// never acknowledged), ignored by readers and cut off by the next writer. Any other bytes that
/// are not an intact record — damage in the middle, an unknown header — are reported as a
/// damaged document and the journal is kept. A journal whose base does not match the JSON file
/// is stale (its changes were already compacted into the file) and ignored.
package enum DocumentJournal {
  package static let magic = Array("KURAJNL1".utf8)
  package static let headerSize = 32
  package static let recordHeaderSize = 13
  package static let recordMarker: UInt8 = 0xA5
  /// The largest payload a writer puts in one record: a larger change rewrites the whole file
  /// instead (which costs no more, and has no size limit). Readers accept any complete record
  /// (up to the 4 GiB a record's length can name).
  package static let maximumPayload = 64 * 1024 * 1024

  /// One change recorded in the journal.
  package enum Operation: UInt8, Sendable {
    case append = 1
    case update = 2
    case remove = 3
    /// Written just before the file is replaced by one holding every record: its payload is the
    /// new file's base. A journal whose base no longer matches the file but that ends with this
    /// marker for the current file was compacted; any other such journal holds changes the file
    /// lacks (another program replaced the file), and is set aside rather than dropped.
    case compacted = 4
  }

  /// A decoded record: the operation and its JSON payload.
  package struct Record {
    package var operation: Operation
    package var json: Data
  }

  /// The base a journal applies to: the length and hash of the JSON file's bytes.
  package struct Base: Equatable, Sendable {
    package var length: UInt64
    package var hash: UInt64

    package init(of data: Data) {
      length = UInt64(data.count)
      hash = DocumentJournal.hash(data)
    }

    package init(length: UInt64, hash: UInt64) {
      self.length = length
      self.hash = hash
    }
  }

  /// The header bytes for a base.
  package static func header(for base: Base) -> Data {
    var bytes = magic
    append(base.length, to: &bytes)
    append(base.hash, to: &bytes)
    append(hash(Data(bytes)), to: &bytes)
    return Data(bytes)
  }

  /// What a journal's first bytes say.
  package enum Header: Equatable {
    /// A header for this base.
    case valid(Base)
    /// Fewer bytes than a header, all of them a possible start of one: a writer was killed
    /// between creating the journal and writing its header (no record can follow).
    case torn
    /// A journal written by another version of Kura (the magic's version differs).
    case unknownVersion(String)
    /// Bytes that are not a Kura journal header, or one whose check does not match.
    case damaged(String)
  }

  /// Reads a journal's header.
  package static func header(of data: Data) -> Header {
    let start = data.startIndex
    let prefix = Array(data.prefix(8))
    if data.count < headerSize {
      // A header is written with one write right after the file is created.
      if prefix == Array(magic.prefix(prefix.count)) { return .torn }
    }
    if prefix.count == 8, Array(prefix.prefix(7)) == Array(magic.prefix(7)), prefix != magic {
      let version = String(decoding: prefix, as: UTF8.self)
      return .unknownVersion(version)
    }
    guard data.count >= headerSize, prefix == magic else {
      return .damaged("it does not start with a Kura journal header")
    }
    let length = readUInt64(data, at: start + 8)
    let baseHash = readUInt64(data, at: start + 16)
    let check = readUInt64(data, at: start + 24)
    guard check == hash(data[start..<(start + 24)]) else {
      return .damaged("its header's check does not match")
    }
    return .valid(Base(length: length, hash: baseHash))
  }

  /// The marker record written before a compaction into a file with this base.
  package static func compactionMarker(for base: Base) -> Data {
    var bytes: [UInt8] = []
    append(base.length, to: &bytes)
    append(base.hash, to: &bytes)
    return frame(.compacted, json: Data(bytes))
  }

  /// Whether a journal (header included) holds changes that a file with `current` base lacks.
  /// `false` when its header is torn, it has no records, or it ends with a compaction marker
  /// for that very file; `true` when it can't be read to the end (it is then kept).
  package static func holdsUnmergedChanges(_ journal: Data, current: Base?) -> Bool {
    switch header(of: journal) {
    case .torn: return false
    case .unknownVersion, .damaged: return true
    case .valid: break
    }
    let scan = scan(journal.dropFirst(headerSize))
    if scan.damage != nil { return true }
    guard let last = scan.records.last else { return false }
    guard last.operation == .compacted, last.json.count == 16, let current else { return true }
    let start = last.json.startIndex
    let marked = Base(
      length: readUInt64(last.json, at: start), hash: readUInt64(last.json, at: start + 8))
    return marked != current
  }

  /// A framed record.
  package static func frame(_ operation: Operation, json: Data) -> Data {
    var payload = Data([operation.rawValue])
    payload.append(json)
    var bytes: [UInt8] = [recordMarker]
    append(UInt32(payload.count), to: &bytes)
    append(hash(payload), to: &bytes)
    var data = Data(bytes)
    data.append(payload)
    return data
  }

  /// The records of a journal's body, and what follows the last complete one.
  package struct Scan {
    /// The complete, intact records, in order.
    package var records: [Record]
    /// The number of bytes they span.
    package var length: Int
    /// Why the bytes after them are damage rather than a torn tail; `nil` when there are no
    /// such bytes or they are a torn tail (the start of one record cut short by a crash, which
    /// was never acknowledged and may be dropped). The damage starts `length` bytes in.
    package var damage: String?
  }

  /// Decodes the complete records at the start of `data` (a journal's body, or the part of it
  /// after the records already read) and tells a torn tail from damage.
  ///
  /// Bytes after the last intact record are a torn tail only when they can be the start of a
  /// single record that a killed writer did not finish: the record marker followed by fewer
  /// bytes than its header or its declared payload, or only zero bytes (a file extended but
  /// never written, after a power cut), and no intact record anywhere after them. Anything
  /// else — a record whose check fails, bytes that are not a record, an intact record after
  /// the break — is damage: the changes past it can't be read and the journal must be kept.
  package static func scan(_ data: Data) -> Scan {
    var records: [Record] = []
    var offset = data.startIndex
    while offset < data.endIndex, let (record, next) = record(in: data, at: offset) {
      records.append(record)
      offset = next
    }
    let length = offset - data.startIndex
    guard offset < data.endIndex else { return Scan(records: records, length: length) }
    var resume = offset + 1
    while let found = data[resume...].firstIndex(of: recordMarker) {
      if record(in: data, at: found) != nil {
        return Scan(
          records: records, length: length,
          damage: "a record is damaged and intact records follow it")
      }
      resume = found + 1
    }
    let rest = data[offset...]
    if rest.allSatisfy({ $0 == 0 }) { return Scan(records: records, length: length) }
    guard data[offset] == recordMarker else {
      return Scan(
        records: records, length: length, damage: "the bytes there are not a record")
    }
    if rest.count < recordHeaderSize { return Scan(records: records, length: length) }
    let declared = Int(readUInt32(data, at: offset + 1))
    if declared >= 1, rest.count - recordHeaderSize < declared {
      return Scan(records: records, length: length)
    }
    return Scan(
      records: records, length: length,
      damage: "the last record is damaged (its check does not match)")
  }

  /// The intact record starting at `offset` and the offset after it; `nil` when the bytes
  /// there are not a complete record whose check matches.
  private static func record(in data: Data, at offset: Int) -> (Record, Int)? {
    guard data.endIndex - offset >= recordHeaderSize, data[offset] == recordMarker else {
      return nil
    }
    let length = Int(readUInt32(data, at: offset + 1))
    let stored = readUInt64(data, at: offset + 5)
    let payloadStart = offset + recordHeaderSize
    guard length >= 1, data.endIndex - payloadStart >= length else { return nil }
    let payload = data[payloadStart..<(payloadStart + length)]
    guard hash(payload) == stored, let operation = Operation(rawValue: payload[payload.startIndex])
    else { return nil }
    return (Record(operation: operation, json: Data(payload.dropFirst())), payloadStart + length)
  }

  /// FNV-1a, 64 bits: a fast check that bytes are the ones written (not a cryptographic hash).
  package static func hash<Bytes: DataProtocol>(_ data: Bytes) -> UInt64 {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    for region in data.regions {
      region.withUnsafeBytes { buffer in
        for byte in buffer {
          value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
      }
    }
    return value
  }

  private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  private static func readUInt64(_ data: Data, at offset: Int) -> UInt64 {
    var value: UInt64 = 0
    for index in 0..<8 { value |= UInt64(data[offset + index]) << (8 * UInt64(index)) }
    return value
  }

  private static func readUInt32(_ data: Data, at offset: Int) -> UInt32 {
    var value: UInt32 = 0
    for index in 0..<4 { value |= UInt32(data[offset + index]) << (8 * UInt32(index)) }
    return value
  }
}
