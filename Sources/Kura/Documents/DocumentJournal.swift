import Foundation

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
/// A record is written with a single `write`; one cut short by a crash fails its length or hash
/// check and ends the journal there (it was never acknowledged). A journal whose base does not
/// match the JSON file is stale (its changes were already compacted into the file) and ignored.
enum DocumentJournal {
  static let magic = Array("KURAJNL1".utf8)
  static let headerSize = 32
  static let recordHeaderSize = 13
  static let recordMarker: UInt8 = 0xA5
  static let maximumPayload = 64 * 1024 * 1024

  /// One change recorded in the journal.
  enum Operation: UInt8, Sendable {
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
  struct Record {
    var operation: Operation
    var json: Data
  }

  /// The base a journal applies to: the length and hash of the JSON file's bytes.
  struct Base: Equatable, Sendable {
    var length: UInt64
    var hash: UInt64

    init(of data: Data) {
      length = UInt64(data.count)
      hash = DocumentJournal.hash(data)
    }

    init(length: UInt64, hash: UInt64) {
      self.length = length
      self.hash = hash
    }
  }

  /// The header bytes for a base.
  static func header(for base: Base) -> Data {
    var bytes = magic
    append(base.length, to: &bytes)
    append(base.hash, to: &bytes)
    append(hash(Data(bytes)), to: &bytes)
    return Data(bytes)
  }

  /// The base named by a journal's header; `nil` when the header is missing or torn.
  static func base(ofHeader data: Data) -> Base? {
    guard data.count >= headerSize, Array(data.prefix(8)) == magic else { return nil }
    let start = data.startIndex
    let length = readUInt64(data, at: start + 8)
    let baseHash = readUInt64(data, at: start + 16)
    let check = readUInt64(data, at: start + 24)
    guard check == hash(data[start..<(start + 24)]) else { return nil }
    return Base(length: length, hash: baseHash)
  }

  /// The marker record written before a compaction into a file with this base.
  static func compactionMarker(for base: Base) -> Data {
    var bytes: [UInt8] = []
    append(base.length, to: &bytes)
    append(base.hash, to: &bytes)
    return frame(.compacted, json: Data(bytes))
  }

  /// Whether a journal (header included) holds changes that a file with `current` base lacks.
  /// `false` when its header is torn, it has no records, or it ends with a compaction marker
  /// for that very file.
  static func holdsUnmergedChanges(_ journal: Data, current: Base?) -> Bool {
    guard base(ofHeader: journal) != nil else { return false }
    let (records, _) = records(in: journal.dropFirst(headerSize))
    guard let last = records.last else { return false }
    guard last.operation == .compacted, last.json.count == 16, let current else { return true }
    let start = last.json.startIndex
    let marked = Base(
      length: readUInt64(last.json, at: start), hash: readUInt64(last.json, at: start + 8))
    return marked != current
  }

  /// A framed record.
  static func frame(_ operation: Operation, json: Data) -> Data {
    var payload = Data([operation.rawValue])
    payload.append(json)
    var bytes: [UInt8] = [recordMarker]
    append(UInt32(payload.count), to: &bytes)
    append(hash(payload), to: &bytes)
    var data = Data(bytes)
    data.append(payload)
    return data
  }

  /// Decodes the complete records at the start of `data`, stopping at the first torn or
  /// corrupt one.
  ///
  /// - Returns: The records and the number of bytes they span.
  static func records(in data: Data) -> (records: [Record], length: Int) {
    var records: [Record] = []
    var offset = data.startIndex
    while data.endIndex - offset >= recordHeaderSize {
      guard data[offset] == recordMarker else { break }
      let length = Int(readUInt32(data, at: offset + 1))
      let stored = readUInt64(data, at: offset + 5)
      let payloadStart = offset + recordHeaderSize
      guard length >= 1, length <= maximumPayload, data.endIndex - payloadStart >= length else {
        break
      }
      let payload = data[payloadStart..<(payloadStart + length)]
      guard hash(payload) == stored,
        let operation = Operation(rawValue: payload[payload.startIndex])
      else { break }
      records.append(Record(operation: operation, json: Data(payload.dropFirst())))
      offset = payloadStart + length
    }
    return (records, offset - data.startIndex)
  }

  /// FNV-1a, 64 bits: a fast check that bytes are the ones written (not a cryptographic hash).
  static func hash<Bytes: DataProtocol>(_ data: Bytes) -> UInt64 {
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
