/// Finds the first syntax error in JSON text, for error messages that point at a line and
/// column (the decoder's own messages differ between platforms).
package enum JSONSyntax {
  /// The byte offset and description of the first error; `nil` when the text is valid JSON.
  package static func firstError(in bytes: [UInt8]) -> (offset: Int, reason: String)? {
    var scanner = Scanner(bytes: bytes)
    do throws(Failure) {
      scanner.skipSpace()
      if scanner.index == bytes.count {
        return (0, "the file holds only white space, not JSON")
      }
      try scanner.value(depth: 0)
      scanner.skipSpace()
      if scanner.index < bytes.count {
        throw Failure(offset: scanner.index, reason: "\(scanner.describe()) after the JSON value")
      }
      return nil
    } catch {
      return (error.offset, error.reason)
    }
  }

  /// The byte ranges of the numbers in valid JSON text, in order; `nil` when the text is not
  /// valid JSON.
  package static func numberRanges(in bytes: [UInt8]) -> [Range<Int>]? {
    var scanner = Scanner(bytes: bytes)
    scanner.numbers = []
    do throws(Failure) {
      scanner.skipSpace()
      try scanner.value(depth: 0)
      scanner.skipSpace()
      guard scanner.index == bytes.count else { return nil }
      return scanner.numbers
    } catch {
      return nil
    }
  }

  package struct Failure: Error {
    package var offset: Int
    package var reason: String
  }

  package struct Scanner {
    package let bytes: [UInt8]
    package var index = 0
    /// When not `nil`, the range of every number scanned is appended.
    package var numbers: [Range<Int>]?

    package mutating func skipSpace() {
      while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// What the byte at the current index is, in words.
    package func describe() -> String {
      guard index < bytes.count else { return "the file ends too early (truncated)" }
      let byte = bytes[index]
      if byte >= 0x20 && byte < 0x7F {
        return "unexpected character `\(String(UnicodeScalar(byte)))`"
      }
      if byte >= 0x80 {
        if let scalar = String(bytes: bytes[index..<min(index + 4, bytes.count)], encoding: .utf8)?
          .unicodeScalars.first ?? decodeScalar()
        {
          return "unexpected character `\(String(scalar))`"
        }
      }
      let hex = String(byte, radix: 16, uppercase: true)
      return "unexpected byte 0x\(hex.count == 1 ? "0" + hex : hex) (binary data, not JSON text)"
    }

    private func decodeScalar() -> UnicodeScalar? {
      var iterator = bytes[index...].makeIterator()
      var decoder = UTF8()
      if case .scalarValue(let scalar) = decoder.decode(&iterator) { return scalar }
      return nil
    }

    package func fail(_ expected: String) -> Failure {
      Failure(offset: index, reason: "\(describe()); expected \(expected)")
    }

    package mutating func value(depth: Int) throws(Failure) {
      guard depth < 512 else {
        throw Failure(offset: index, reason: "the JSON is nested too deeply")
      }
      guard index < bytes.count else { throw fail("a value") }
      switch bytes[index] {
      case UInt8(ascii: "{"):
        index += 1
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
          index += 1
          return
        }
        while true {
          skipSpace()
          guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            throw fail("a key in double quotes")
          }
          try string()
          skipSpace()
          guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("`:`") }
          index += 1
          skipSpace()
          try value(depth: depth + 1)
          skipSpace()
          guard index < bytes.count else { throw fail("`,` or `}`") }
          if bytes[index] == UInt8(ascii: ",") {
            index += 1
            continue
          }
          guard bytes[index] == UInt8(ascii: "}") else { throw fail("`,` or `}`") }
          index += 1
          return
        }
      case UInt8(ascii: "["):
        index += 1
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
          index += 1
          return
        }
        while true {
          skipSpace()
          try value(depth: depth + 1)
          skipSpace()
          guard index < bytes.count else { throw fail("`,` or `]`") }
          if bytes[index] == UInt8(ascii: ",") {
            index += 1
            continue
          }
          guard bytes[index] == UInt8(ascii: "]") else { throw fail("`,` or `]`") }
          index += 1
          return
        }
      case UInt8(ascii: "\""):
        try string()
      case UInt8(ascii: "t"): try literal("true")
      case UInt8(ascii: "f"): try literal("false")
      case UInt8(ascii: "n"): try literal("null")
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        try number()
      default:
        throw fail("a value")
      }
    }

    package mutating func literal(_ word: String) throws(Failure) {
      for byte in word.utf8 {
        guard index < bytes.count, bytes[index] == byte else { throw fail("`\(word)`") }
        index += 1
      }
    }

    package mutating func digits() throws(Failure) {
      guard index < bytes.count, (0x30...0x39).contains(bytes[index]) else {
        throw fail("a digit")
      }
      while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
    }

    package mutating func number() throws(Failure) {
      let start = index
      defer { numbers?.append(start..<index) }
      if bytes[index] == UInt8(ascii: "-") { index += 1 }
      if index < bytes.count, bytes[index] == UInt8(ascii: "0") {
        index += 1  // A leading zero stands alone: `01` is not a number.
      } else {
        try digits()
      }
      if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
        index += 1
        try digits()
      }
      if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")
      {
        index += 1
        if index < bytes.count,
          bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
        {
          index += 1
        }
        try digits()
      }
    }

    package mutating func string() throws(Failure) {
      index += 1
      while index < bytes.count {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "\""):
          index += 1
          return
        case UInt8(ascii: "\\"):
          index += 1
          guard index < bytes.count else { throw fail("an escaped character") }
          if bytes[index] == UInt8(ascii: "u") {
            for _ in 0..<4 {
              index += 1
              guard index < bytes.count, bytes[index].isHexDigit else {
                throw fail("four hexadecimal digits after `\\u`")
              }
            }
            index += 1
          } else if Array("\"\\/bfnrt".utf8).contains(bytes[index]) {
            index += 1
          } else {
            throw fail("an escape such as `\\n` or `\\\"`")
          }
        case 0..<0x20:
          throw fail("the string to end with `\"` (control characters must be escaped)")
        case 0x80...:
          let start = index
          var iterator = bytes[index...].makeIterator()
          var decoder = UTF8()
          guard case .scalarValue(let scalar) = decoder.decode(&iterator) else {
            throw Failure(
              offset: start, reason: "invalid UTF-8 byte in a string (binary data, not JSON text)")
          }
          index += UTF8.width(scalar)
        default:
          index += 1
        }
      }
      throw fail("the string to end with `\"`")
    }
  }
}

extension UInt8 {
  fileprivate var isHexDigit: Bool {
    (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
  }
}
