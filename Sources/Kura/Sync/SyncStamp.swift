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
  init?(text: String) {
    let utf8 = Array(text.utf8)
    guard utf8.count == 12 + 1 + 4 + 1 + 32, utf8[12] == UInt8(ascii: "-"),
      utf8[17] == UInt8(ascii: "-"),
      utf8.enumerated().allSatisfy({ $0.offset == 12 || $0.offset == 17 || Self.isHex($0.element) }
      ),
      let wall = UInt64(String(decoding: utf8[0..<12], as: UTF8.self), radix: 16),
      let counter = UInt16(String(decoding: utf8[13..<17], as: UTF8.self), radix: 16)
    else { return nil }
    let replicaHex = String(decoding: utf8[18...], as: UTF8.self)
    guard let replica = Self.uuid(hex: replicaHex) else { return nil }
    self.init(wall: wall, counter: counter, replica: replica)
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

  private static func isHex(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
      || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
  }

  /// A UUID's 16 bytes as 32 lowercase hex digits.
  static func hex(_ uuid: UUID) -> String {
    uuid.uuidString.lowercased().filter { $0 != "-" }
  }

  /// A UUID from 32 lowercase hex digits.
  static func uuid(hex: String) -> UUID? {
    guard hex.utf8.count == 32, hex.utf8.allSatisfy(isHex) else { return nil }
    let characters = Array(hex)
    let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }
    return UUID(uuidString: groups.joined(separator: "-"))
  }
}
