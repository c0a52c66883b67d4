import Foundation
import KuraBase
import KuraStore

/// A byte-level reader for the sync protocol's hottest JSON bodies — a pull's page
/// (``SyncPullResponse``) and a save's changes (`[SyncChange]`) — that makes no intermediate
/// JSON tree: Foundation's `JSONDecoder` spent most of an initial sync's CPU (on the replica
/// applying the pages and on the server folding the log) looking up keyed containers and
/// generic metadata.
///
/// It reads only what it can read exactly as `JSONDecoder` with the types' `Codable` would, and
/// returns `nil` for everything else — malformed JSON, a duplicate key, a number with a
/// fraction or an exponent where an integer goes, an unusual value object, depth beyond 64 —
/// so that the callers fall back to `JSONDecoder`, which then decodes it or says why not
/// (``decodePage(_:)``, ``decodeChanges(_:)``). Unknown keys are skipped, as `Codable` skips
/// them. The tests compare both on generated and damaged bodies.
///
/// For example:
///
/// ```swift
/// let page = try SyncJSONReader.decodePage(body)
/// ```
package struct SyncJSONReader {
  private let bytes: UnsafeBufferPointer<UInt8>
  private var index = 0

  private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  /// A pull's page: read here, else by `JSONDecoder` (whose error is thrown).
  package static func decodePage(_ data: Data) throws -> SyncPullResponse {
    if let page = readPage(data) { return page }
    return try JSONDecoder().decode(SyncPullResponse.self, from: data)
  }

  /// A save's changes: read here, else by `JSONDecoder` (whose error is thrown).
  package static func decodeChanges(_ data: Data) throws -> [SyncChange] {
    if let changes = readChanges(data) { return changes }
    return try JSONDecoder().decode([SyncChange].self, from: data)
  }

  /// A save's changes from their text (as the server's log and the local outbox keep them).
  package static func decodeChanges(_ text: String) throws -> [SyncChange] {
    var text = text
    if let changes = text.withUTF8({ bytes in
      read(UnsafeRawBufferPointer(bytes)) { reader in try reader.array { try $0.change() } }
    }) {
      return changes
    }
    return try JSONDecoder().decode([SyncChange].self, from: Data(text.utf8))
  }

  /// A page read here only (`nil` where ``decodePage(_:)`` falls back): for the tests, which
  /// prove the fast path is taken and agrees with `JSONDecoder`.
  package static func readPage(_ data: Data) -> SyncPullResponse? {
    data.withUnsafeBytes { raw in read(raw) { reader in try reader.page() } }
  }

  /// Changes read here only (`nil` where ``decodeChanges(_:)-(Data)`` falls back).
  package static func readChanges(_ data: Data) -> [SyncChange]? {
    data.withUnsafeBytes { raw in read(raw) { reader in try reader.array { try $0.change() } } }
  }

  /// Reads one whole document with `body` (nothing but whitespace after it), or `nil`.
  private static func read<T>(
    _ raw: UnsafeRawBufferPointer, _ body: (inout SyncJSONReader) throws -> T
  ) -> T? {
    let bytes = raw.bindMemory(to: UInt8.self)
    var reader = SyncJSONReader(bytes)
    guard let value = try? body(&reader) else { return nil }
    reader.skipWhitespace()
    return reader.index == bytes.count ? value : nil
  }

  /// Why the reader gave up (never shown: the caller falls back to `JSONDecoder`).
  private struct Unread: Error {}

  // MARK: The protocol's types

  private mutating func page() throws -> SyncPullResponse {
    var saves: [SyncLoggedSave]?
    var head: Int64?
    var longPoll: Bool??
    var last: Int64??
    try object { reader, key in
      switch key {
      case .saves: try Self.set(&saves, try reader.array { try $0.loggedSave() })
      case .head: try Self.set(&head, try reader.integer())
      case .longPoll: try Self.set(&longPoll, try reader.null() ? nil : try reader.bool())
      case .last: try Self.set(&last, try reader.null() ? nil : try reader.integer())
      default: try reader.skipValue(depth: 1)
      }
    }
    guard let saves, let head else { throw Unread() }
    return SyncPullResponse(
      saves: saves, head: head, longPoll: longPoll ?? nil, last: last ?? nil)
  }

  private mutating func loggedSave() throws -> SyncLoggedSave {
    var position: Int64?
    var replica: String?
    var sequence: Int64?
    var changes: [SyncChange]?
    try object { reader, key in
      switch key {
      case .position: try Self.set(&position, try reader.integer())
      case .replica: try Self.set(&replica, try reader.string())
      case .sequence: try Self.set(&sequence, try reader.integer())
      case .changes: try Self.set(&changes, try reader.array { try $0.change() })
      default: try reader.skipValue(depth: 1)
      }
    }
    guard let position, let replica, let sequence, let changes else { throw Unread() }
    return SyncLoggedSave(
      position: position, replica: replica, sequence: sequence, changes: changes)
  }

  private mutating func change() throws -> SyncChange {
    var model: String?
    var id: String?
    var incarnation: Int64?
    var stamp: SyncStamp?
    var property: String?
    var value: DatabaseValue?
    var deleted: Bool?
    try object { reader, key in
      switch key {
      case .model: try Self.set(&model, try reader.string())
      case .id: try Self.set(&id, try reader.string())
      case .incarnation: try Self.set(&incarnation, try reader.integer())
      case .stamp: try Self.set(&stamp, try reader.stamp())
      case .property: try Self.set(&property, try reader.string())
      case .value: try Self.set(&value, try reader.value())
      case .deleted: try Self.set(&deleted, try reader.bool())
      default: try reader.skipValue(depth: 1)
      }
    }
    guard let model, let id, let incarnation, let stamp, !model.isEmpty, !id.isEmpty,
      incarnation >= 1
    else { throw Unread() }
    if deleted == true {
      return .delete(model, id: id, incarnation: incarnation, stamp: stamp)
    }
    guard let property, !property.isEmpty, let value else { throw Unread() }
    return .set(
      model, id: id, incarnation: incarnation, property: property, to: value, stamp: stamp)
  }

  /// A ``DatabaseValue``: `null`, or an object with exactly one of `integer`, `real`, `text`,
  /// `blob` holding a string.
  private mutating func value() throws -> DatabaseValue {
    if try null() { return .null }
    var value: DatabaseValue?
    try object { reader, key in
      guard value == nil else { throw Unread() }
      let text = try reader.string()
      switch key {
      case .integer:
        guard let integer = Int64(text) else { throw Unread() }
        value = .integer(integer)
      case .real:
        guard text.utf8.count == 16, let bits = UInt64(text, radix: 16) else { throw Unread() }
        value = .real(Double(bitPattern: bits))
      case .text: value = .text(text)
      case .blob:
        guard let data = Data(base64Encoded: text) else { throw Unread() }
        value = .blob(data)
      default: throw Unread()
      }
    }
    guard let value else { throw Unread() }
    return value
  }

  private mutating func stamp() throws -> SyncStamp {
    let body = try stringBody()
    guard !body.escaped,
      let stamp = SyncStamp(utf8: UnsafeBufferPointer(rebasing: bytes[body.range]))
    else { throw Unread() }
    return stamp
  }

  /// Sets a member read once (a duplicate key: `nil`, `JSONDecoder` decides).
  private static func set<T>(_ slot: inout T?, _ value: T) throws {
    guard slot == nil else { throw Unread() }
    slot = value
  }

  // MARK: JSON

  /// The keys the protocol's types read (any other is skipped).
  private enum Key: UInt8 {
    case saves, head, longPoll, last, position, replica, sequence, changes
    case model, id, incarnation, stamp, property, value, deleted
    case integer, real, text, blob
    case other

    init(_ key: UnsafeBufferPointer<UInt8>) {
      func equals(_ name: StaticString) -> Bool {
        UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
          .elementsEqual(key)
      }
      switch key.count {
      case 2: self = equals("id") ? .id : .other
      case 4:
        self =
          equals("head")
          ? .head
          : equals("last")
            ? .last
            : equals("real")
              ? .real
              : equals("text") ? .text : equals("blob") ? .blob : .other
      case 5:
        self =
          equals("saves")
          ? .saves
          : equals("model") ? .model : equals("stamp") ? .stamp : equals("value") ? .value : .other
      case 7:
        self =
          equals("replica")
          ? .replica
          : equals("changes")
            ? .changes : equals("deleted") ? .deleted : equals("integer") ? .integer : .other
      case 8:
        self =
          equals("longPoll")
          ? .longPoll
          : equals("position")
            ? .position
            : equals("sequence") ? .sequence : equals("property") ? .property : .other
      case 11: self = equals("incarnation") ? .incarnation : .other
      default: self = .other
      }
    }
  }

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x0A, 0x0D, 0x09: index += 1
      default: return
      }
    }
  }

  private mutating func expect(_ byte: UInt8) throws {
    skipWhitespace()
    guard index < bytes.count, bytes[index] == byte else { throw Unread() }
    index += 1
  }

  /// The next byte after whitespace (not consumed).
  private mutating func peek() throws -> UInt8 {
    skipWhitespace()
    guard index < bytes.count else { throw Unread() }
    return bytes[index]
  }

  /// An object: `member` reads each member's value (after its key and the colon).
  private mutating func object(_ member: (inout SyncJSONReader, Key) throws -> Void) throws {
    try expect(UInt8(ascii: "{"))
    if try peek() == UInt8(ascii: "}") {
      index += 1
      return
    }
    var seen: UInt32 = 0
    while true {
      let body = try stringBody()
      let key: Key
      if body.escaped {
        // An escaped key: its text decides (rare; decoded like any string).
        guard let text = unescape(body.range) else { throw Unread() }
        var copy = text
        key = copy.withUTF8 { Key($0) }
      } else {
        let text = UnsafeBufferPointer(rebasing: bytes[body.range])
        key = Key(text)
        // An unknown key is skipped, but its bytes must be UTF-8 as JSONDecoder requires.
        if key == .other, String(validating: text, as: UTF8.self) == nil { throw Unread() }
      }
      // A known key twice: `JSONDecoder` decides which counts.
      if key != .other {
        let bit: UInt32 = 1 << key.rawValue
        guard seen & bit == 0 else { throw Unread() }
        seen |= bit
      }
      try expect(UInt8(ascii: ":"))
      try member(&self, key)
      let next = try peek()
      index += 1
      if next == UInt8(ascii: "}") { return }
      guard next == UInt8(ascii: ",") else { throw Unread() }
    }
  }

  /// An array of what `element` reads.
  private mutating func array<T>(_ element: (inout SyncJSONReader) throws -> T) throws -> [T] {
    try expect(UInt8(ascii: "["))
    var elements: [T] = []
    if try peek() == UInt8(ascii: "]") {
      index += 1
      return elements
    }
    while true {
      elements.append(try element(&self))
      let next = try peek()
      index += 1
      if next == UInt8(ascii: "]") { return elements }
      guard next == UInt8(ascii: ",") else { throw Unread() }
    }
  }

  /// `null` (consumed), or `false` with nothing consumed.
  private mutating func null() throws -> Bool {
    guard try peek() == UInt8(ascii: "n") else { return false }
    try literal("null")
    return true
  }

  private mutating func bool() throws -> Bool {
    switch try peek() {
    case UInt8(ascii: "t"):
      try literal("true")
      return true
    case UInt8(ascii: "f"):
      try literal("false")
      return false
    default: throw Unread()
    }
  }

  private mutating func literal(_ word: StaticString) throws {
    let count = word.utf8CodeUnitCount
    guard index + count <= bytes.count,
      UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(
        bytes[index..<index + count])
    else { throw Unread() }
    index += count
  }

  /// An integer in JSON's grammar without fraction or exponent, that fits an `Int64`.
  private mutating func integer() throws -> Int64 {
    skipWhitespace()
    let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
    if negative { index += 1 }
    let start = index
    var magnitude: UInt64 = 0
    while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
      let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
      let (sum, carry) = times.addingReportingOverflow(UInt64(bytes[index] - 0x30))
      guard !overflow, !carry else { throw Unread() }
      magnitude = sum
      index += 1
    }
    let digits = index - start
    // No digits, a leading zero, or a fraction or exponent: `JSONDecoder` decides.
    guard digits > 0, digits == 1 || bytes[start] != 0x30 else { throw Unread() }
    if index < bytes.count,
      [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(
        bytes[index])
    {
      throw Unread()
    }
    if negative {
      // `-0` too: `JSONDecoder` decides.
      guard magnitude != 0, magnitude <= UInt64(Int64.max) + 1 else { throw Unread() }
      return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
    }
    guard magnitude <= UInt64(Int64.max) else { throw Unread() }
    return Int64(magnitude)
  }

  /// A string's text.
  private mutating func string() throws -> String {
    let body = try stringBody()
    if body.escaped {
      guard let text = unescape(body.range) else { throw Unread() }
      return text
    }
    guard
      let text = String(validating: UnsafeBufferPointer(rebasing: bytes[body.range]), as: UTF8.self)
    else { throw Unread() }
    return text
  }

  /// A string's bytes between its quotes (consumed), and whether it holds escapes; a raw
  /// control character ends the reading.
  private mutating func stringBody() throws -> (range: Range<Int>, escaped: Bool) {
    try expect(UInt8(ascii: "\""))
    let start = index
    var escaped = false
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        index += 1
        return (start..<index - 1, escaped)
      }
      if byte < 0x20 { throw Unread() }
      if byte == UInt8(ascii: "\\") {
        escaped = true
        index += 1
      }
      index += 1
    }
    throw Unread()
  }

  /// The text of a string's bytes with escapes, or `nil` (a bad escape, a lone surrogate,
  /// bytes that are not UTF-8).
  private func unescape(_ range: Range<Int>) -> String? {
    var out: [UInt8] = []
    out.reserveCapacity(range.count)
    var i = range.lowerBound
    func hex4(_ at: Int) -> UInt32? {
      guard at + 4 <= range.upperBound else { return nil }
      var value: UInt32 = 0
      for k in at..<at + 4 {
        let byte = bytes[k]
        let digit: UInt8
        switch byte {
        case 0x30...0x39: digit = byte - 0x30
        case 0x41...0x46: digit = byte - 0x41 + 10
        case 0x61...0x66: digit = byte - 0x61 + 10
        default: return nil
        }
        value = value << 4 | UInt32(digit)
      }
      return value
    }
    while i < range.upperBound {
      let byte = bytes[i]
      guard byte == UInt8(ascii: "\\") else {
        out.append(byte)
        i += 1
        continue
      }
      guard i + 1 < range.upperBound else { return nil }
      let code = bytes[i + 1]
      i += 2
      switch code {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(code)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "u"):
        guard var scalar = hex4(i) else { return nil }
        i += 4
        if (0xD800..<0xDC00).contains(scalar) {
          guard i + 6 <= range.upperBound, bytes[i] == UInt8(ascii: "\\"),
            bytes[i + 1] == UInt8(ascii: "u"), let low = hex4(i + 2),
            (0xDC00..<0xE000).contains(low)
          else { return nil }
          i += 6
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00..<0xE000).contains(scalar) {
          return nil
        }
        guard let unicode = Unicode.Scalar(scalar) else { return nil }
        out.append(contentsOf: unicode.utf8)
      default: return nil
      }
    }
    return out.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) }
  }

  /// Skips any JSON value, checking its grammar (strings' bytes too).
  private mutating func skipValue(depth: Int) throws {
    guard depth < 64 else { throw Unread() }
    switch try peek() {
    // The members' and elements' own grammar, as ``object(_:)`` and ``array(_:)`` read it (a
    // known key twice in a skipped object leaves it to `JSONDecoder` too).
    case UInt8(ascii: "{"): try object { reader, _ in try reader.skipValue(depth: depth + 1) }
    case UInt8(ascii: "["): _ = try array { try $0.skipValue(depth: depth + 1) }
    case UInt8(ascii: "\""): _ = try string()
    case UInt8(ascii: "t"): try literal("true")
    case UInt8(ascii: "f"): try literal("false")
    case UInt8(ascii: "n"): try literal("null")
    default: try skipNumber()
    }
  }

  /// A number in JSON's grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
  private mutating func skipNumber() throws {
    func digits() -> Int {
      let start = index
      while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
      return index - start
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
    let start = index
    let whole = digits()
    guard whole > 0, whole == 1 || bytes[start] != 0x30 else { throw Unread() }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard digits() > 0 else { throw Unread() }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
      {
        index += 1
      }
      guard digits() > 0 else { throw Unread() }
    }
  }
}
