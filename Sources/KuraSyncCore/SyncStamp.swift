import Foundation
import KuraBase
import KuraStore

/// When and where one property value (or one delete) was written: a hybrid-logical-clock time
/// (wall milliseconds and a counter) and the replica that wrote it.
///
/// Stamps are totally ordered — by wall time, then counter, then replica id — so two replicas
/// never hold different winners for one property, also when two stamps carry the same time.
/// Their text form (``text``) is fixed-width lowercase hexadecimal, so comparing texts byte by
/// byte (SQLite's `BINARY`, PostgreSQL's `COLLATE "C"`) is comparing stamps.
package struct SyncStamp: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// Milliseconds since 1970 (48 bits are used: up to the year 10889).
  package var wall: UInt64
  /// Orders stamps of one millisecond.
  package var counter: UInt16
  /// The replica that issued the stamp.
  package var replica: UUID

  /// The largest wall time a stamp can carry.
  package static let maximumWall: UInt64 = (1 << 48) - 1

  /// The stamp as `wwwwwwwwwwww-cccc-<replica's 32 hex digits>`.
  package var text: String {
    // Written digit by digit into the string's own storage: every save and pulled change
    // writes stamps, and formatting them through `String(_:radix:)` and padding cost about
    // 3,000 instructions each.
    String(unsafeUninitializedCapacity: Self.textLength) { buffer in
      var wall = wall
      for index in stride(from: 11, through: 0, by: -1) {
        buffer[index] = Self.hexDigit(UInt8(truncatingIfNeeded: wall & 0xF))
        wall >>= 4
      }
      buffer[12] = UInt8(ascii: "-")
      var counter = counter
      for index in stride(from: 16, through: 13, by: -1) {
        buffer[index] = Self.hexDigit(UInt8(truncatingIfNeeded: counter & 0xF))
        counter >>= 4
      }
      buffer[17] = UInt8(ascii: "-")
      Self.writeHex(replica, into: UnsafeMutableBufferPointer(rebasing: buffer[18...]))
      return Self.textLength
    }
  }

  /// The length of ``text``.
  package static let textLength = 12 + 1 + 4 + 1 + 32

  package var description: String { text }

  /// Reads the text form; `nil` for anything else (wrong length, upper case, not hex).
  ///
  /// Byte by byte, without intermediate strings: every pulled change has a stamp.
  package init?(text: String) {
    var text = text
    let parsed = text.withUTF8 { Self.parse($0) }
    guard let parsed else { return nil }
    self = parsed
  }

  /// Reads the text form from its UTF-8 bytes; `nil` for anything else.
  package init?(utf8: UnsafeBufferPointer<UInt8>) {
    guard let parsed = Self.parse(utf8) else { return nil }
    self = parsed
  }

  /// The stamp `utf8` spells in the text form, or `nil`.
  private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) -> SyncStamp? {
    guard utf8.count == textLength, utf8[12] == UInt8(ascii: "-"), utf8[17] == UInt8(ascii: "-")
    else { return nil }
    var wall: UInt64 = 0
    for index in 0..<12 {
      guard let digit = hexValue(utf8[index]) else { return nil }
      wall = wall << 4 | UInt64(digit)
    }
    var counter: UInt16 = 0
    for index in 13..<17 {
      guard let digit = hexValue(utf8[index]) else { return nil }
      counter = counter << 4 | UInt16(digit)
    }
    guard let replica = uuid(hexDigits: UnsafeBufferPointer(rebasing: utf8[18...])) else {
      return nil
    }
    return SyncStamp(wall: wall, counter: counter, replica: replica)
  }

  package init(wall: UInt64, counter: UInt16, replica: UUID) {
    self.wall = wall
    self.counter = counter
    self.replica = replica
  }

  package static func < (left: SyncStamp, right: SyncStamp) -> Bool {
    if left.wall != right.wall { return left.wall < right.wall }
    if left.counter != right.counter { return left.counter < right.counter }
    // Byte by byte: the order of the replicas' hex texts (each byte is two lowercase digits).
    return withUnsafeBytes(of: left.replica.uuid) { leftBytes in
      withUnsafeBytes(of: right.replica.uuid) { rightBytes in
        leftBytes.lexicographicallyPrecedes(rightBytes)
      }
    }
  }

  /// The value of one lowercase hex digit, or `nil`.
  @inline(__always)
  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte &- UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte &- UInt8(ascii: "a") &+ 10
    default: return nil
    }
  }

  /// The lowercase hex digit of a value below 16.
  @inline(__always)
  private static func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") &+ value : UInt8(ascii: "a") &+ (value &- 10)
  }

  /// Writes a UUID's 16 bytes as 32 lowercase hex digits into `buffer` (32 bytes long).
  private static func writeHex(_ uuid: UUID, into buffer: UnsafeMutableBufferPointer<UInt8>) {
    withUnsafeBytes(of: uuid.uuid) { bytes in
      for (index, byte) in bytes.enumerated() {
        buffer[buffer.startIndex + 2 * index] = hexDigit(byte >> 4)
        buffer[buffer.startIndex + 2 * index + 1] = hexDigit(byte & 0xF)
      }
    }
  }

  /// A UUID's 16 bytes as 32 lowercase hex digits.
  package static func hex(_ uuid: UUID) -> String {
    String(unsafeUninitializedCapacity: 32) { buffer in
      writeHex(uuid, into: buffer)
      return 32
    }
  }

  /// A UUID from 32 lowercase hex digits.
  package static func uuid(hex: String) -> UUID? {
    var hex = hex
    return hex.withUTF8 { uuid(hexDigits: $0) }
  }

  /// A UUID from the 32 lowercase hex digits of `digits`, or `nil`.
  private static func uuid(hexDigits digits: UnsafeBufferPointer<UInt8>) -> UUID? {
    guard digits.count == 32 else { return nil }
    var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    let valid = withUnsafeMutableBytes(of: &bytes) { output in
      for index in 0..<16 {
        guard let high = hexValue(digits[digits.startIndex + 2 * index]),
          let low = hexValue(digits[digits.startIndex + 2 * index + 1])
        else { return false }
        output[index] = high << 4 | low
      }
      return true
    }
    return valid ? UUID(uuid: bytes) : nil
  }
}
