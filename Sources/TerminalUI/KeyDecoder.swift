/// Turns the bytes read from a terminal in raw mode into ``Key`` values.
///
/// Bytes may arrive split anywhere (in the middle of an escape sequence or of a multi-byte UTF-8
/// character): the decoder keeps an incomplete tail until the next call. A lone Escape cannot be
/// told apart from the start of a sequence until the input pauses; the caller waits briefly when
/// ``hasIncompleteInput`` is true and then calls ``flush()``.
///
/// For example:
///
/// ```swift
/// var decoder = KeyDecoder()
/// decoder.decode([0xE5, 0x89])       // [] — the first bytes of 割
/// decoder.decode([0xB2, 0x0D])       // [.character("割"), .enter]
/// ```
package struct KeyDecoder: Sendable {
  private var pending: [UInt8] = []

  /// Creates a decoder with no pending input.
  package init() {}

  /// Whether bytes are held back waiting for the rest of a sequence.
  package var hasIncompleteInput: Bool { !pending.isEmpty }

  /// Decodes as many keys as the bytes received so far allow.
  ///
  /// - Parameter bytes: The bytes just read.
  /// - Returns: The complete keys, in order.
  package mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
    pending.append(contentsOf: bytes)
    var keys: [Key] = []
    var index = 0
    while index < pending.count {
      guard let (key, length) = Self.decodeOne(pending, from: index) else { break }
      if let key { keys.append(key) }
      index += length
    }
    pending.removeFirst(index)
    return keys
  }

  /// Decodes what is held back as if no more bytes will come: a lone ESC becomes ``Key/escape``,
  /// an incomplete sequence or character is dropped.
  ///
  /// - Returns: The keys that the held-back bytes stand for.
  package mutating func flush() -> [Key] {
    guard !pending.isEmpty else { return [] }
    var keys: [Key] = []
    if pending.first == 0x1B {
      keys.append(.escape)
      let rest = Array(pending.dropFirst())
      pending = []
      // What followed a lone ESC (an Alt-modified key, or ESC ESC) is decoded on its own.
      keys += decode(rest)
      if !pending.isEmpty { keys += flush() }
      return keys
    }
    pending = []
    return keys
  }

  /// Decodes one key at `start`; `nil` when more bytes are needed. A `nil` key with a length
  /// means bytes were consumed without producing a key (an unknown sequence).
  private static func decodeOne(_ bytes: [UInt8], from start: Int) -> (Key?, Int)? {
    let byte = bytes[start]
    switch byte {
    case 0x1B:
      return decodeEscape(bytes, from: start)
    case 0x09:
      return (.tab, 1)
    case 0x0D, 0x0A:
      return (.enter, 1)
    case 0x7F, 0x08:
      return (.backspace, 1)
    case 0x00:
      return (.control("@"), 1)
    case 0x01...0x1A:
      let letter = Character(Unicode.Scalar(byte + 0x60))
      return (.control(letter), 1)
    case 0x1C...0x1F:
      return (nil, 1)
    case 0x20...0x7E:
      return (.character(Character(Unicode.Scalar(byte))), 1)
    default:
      return decodeUTF8(bytes, from: start)
    }
  }

  private static func decodeEscape(_ bytes: [UInt8], from start: Int) -> (Key?, Int)? {
    guard start + 1 < bytes.count else { return nil }
    let introducer = bytes[start + 1]
    if introducer == UInt8(ascii: "[") {
      // CSI: parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, one final byte 0x40–0x7E.
      var index = start + 2
      var parameters: [UInt8] = []
      while index < bytes.count, (0x20...0x3F).contains(bytes[index]) {
        parameters.append(bytes[index])
        index += 1
      }
      guard index < bytes.count else { return nil }
      let final = bytes[index]
      let length = index - start + 1
      guard (0x40...0x7E).contains(final) else { return (nil, length) }
      return (csiKey(final: final, parameters: parameters), length)
    }
    if introducer == UInt8(ascii: "O") {
      guard start + 2 < bytes.count else { return nil }
      let key: Key? =
        switch bytes[start + 2] {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        case UInt8(ascii: "M"): .enter
        default: nil
        }
      return (key, 3)
    }
    // ESC followed by anything else: Escape itself; the next byte is decoded on its own.
    return (.escape, 1)
  }

  private static func csiKey(final: UInt8, parameters: [UInt8]) -> Key? {
    switch final {
    case UInt8(ascii: "A"): return .up
    case UInt8(ascii: "B"): return .down
    case UInt8(ascii: "C"): return .right
    case UInt8(ascii: "D"): return .left
    case UInt8(ascii: "H"): return .home
    case UInt8(ascii: "F"): return .end
    case UInt8(ascii: "Z"): return .backTab
    case UInt8(ascii: "~"):
      let first = String(decoding: parameters, as: UTF8.self).split(separator: ";").first ?? ""
      switch first {
      case "1", "7": return .home
      case "4", "8": return .end
      case "3": return .delete
      case "5": return .pageUp
      case "6": return .pageDown
      default: return nil
      }
    default:
      return nil
    }
  }

  private static func decodeUTF8(_ bytes: [UInt8], from start: Int) -> (Key?, Int)? {
    let lead = bytes[start]
    let length: Int
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0...0xEF: length = 3
    case 0xF0...0xF4: length = 4
    default: return (nil, 1)  // A stray continuation byte or an invalid lead byte.
    }
    var index = start + 1
    while index < min(start + length, bytes.count) {
      guard (0x80...0xBF).contains(bytes[index]) else { return (nil, index - start) }
      index += 1
    }
    guard start + length <= bytes.count else { return nil }
    var iterator = bytes[start..<(start + length)].makeIterator()
    var utf8 = UTF8()
    guard case .scalarValue(let scalar) = utf8.decode(&iterator) else { return (nil, length) }
    // C1 control characters are not printable.
    if (0x80...0x9F).contains(scalar.value) { return (nil, length) }
    return (.character(Character(scalar)), length)
  }
}
