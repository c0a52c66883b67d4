import Foundation

/// When and where one property value (or one delete) was written: a hybrid-logical-clock time
/// (wall milliseconds and a counter) and the replica that wrote it.
///
/// Stamps are totally ordered — by wall time, then counter, then replica id — so two replicas
/// never hold different winners for one property, also when two stamps carry the same time.
/// Their text form (``text``) is fixed-width lowercase hexadecimal, so comparing texts byte by
/// byte (SQLite's `BINARY`, PostgreSQL's `COLLATE "C"`) is comparing stamps.
struct SyncStamp: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// Milliseconds since 1970 (48 bits are used: up to the year 10889).
  var wall: UInt64
  /// Orders stamps of one millisecond.
  var counter: UInt16
  /// The replica that issued the stamp.
  var replica: UUID

  /// The largest wall time a stamp can carry.
  static let maximumWall: UInt64 = (1 << 48) - 1

  /// The stamp as `wwwwwwwwwwww-cccc-<replica's 32 hex digits>`.
  var text: String {
    let wallText = String(wall, radix: 16)
    let counterText = String(counter, radix: 16)
    return String(repeating: "0", count: max(0, 12 - wallText.count)) + wallText + "-"
      + String(repeating: "0", count: 4 - counterText.count) + counterText + "-"
      + Self.hex(replica)
  }

  var description: String { text }

  /// Reads the text form; `nil` for anything else (wrong length, upper case, not hex).
  ///
  /// Byte by byte, without intermediate strings: every pulled change has a stamp.
  init?(text: String) {
    var text = text
    let parsed = text.withUTF8 { bytes -> SyncStamp? in
      guard bytes.count == 12 + 1 + 4 + 1 + 32, bytes[12] == UInt8(ascii: "-"),
        bytes[17] == UInt8(ascii: "-")
      else { return nil }
      var wall: UInt64 = 0
      for index in 0..<12 {
        guard let digit = Self.hexDigit(bytes[index]) else { return nil }
        wall = wall << 4 | UInt64(digit)
      }
      var counter: UInt16 = 0
      for index in 13..<17 {
        guard let digit = Self.hexDigit(bytes[index]) else { return nil }
        counter = counter << 4 | UInt16(digit)
      }
      guard let replica = Self.uuid(hexBytes: UnsafeBufferPointer(rebasing: bytes[18...])) else {
        return nil
      }
      return SyncStamp(wall: wall, counter: counter, replica: replica)
    }
    guard let parsed else { return nil }
    self = parsed
  }

  init(wall: UInt64, counter: UInt16, replica: UUID) {
    self.wall = wall
    self.counter = counter
    self.replica = replica
  }

  static func < (left: SyncStamp, right: SyncStamp) -> Bool {
    if left.wall != right.wall { return left.wall < right.wall }
    if left.counter != right.counter { return left.counter < right.counter }
    return hex(left.replica) < hex(right.replica)
  }

  /// A lowercase hex digit's value.
  private static func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    default: nil
    }
  }

  /// A UUID's 16 bytes as 32 lowercase hex digits.
  static func hex(_ uuid: UUID) -> String {
    uuid.uuidString.lowercased().filter { $0 != "-" }
  }

  /// A UUID from 32 lowercase hex digits.
  static func uuid(hex: String) -> UUID? {
    var hex = hex
    return hex.withUTF8 { uuid(hexBytes: $0) }
  }

  /// A UUID from the UTF-8 of 32 lowercase hex digits.
  private static func uuid(hexBytes: UnsafeBufferPointer<UInt8>) -> UUID? {
    guard hexBytes.count == 32 else { return nil }
    var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    let valid = withUnsafeMutableBytes(of: &bytes) { raw -> Bool in
      for index in 0..<16 {
        guard let high = hexDigit(hexBytes[2 * index]), let low = hexDigit(hexBytes[2 * index + 1])
        else { return false }
        raw[index] = high << 4 | low
      }
      return true
    }
    return valid ? UUID(uuid: bytes) : nil
  }
}
