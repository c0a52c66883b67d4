import KuraBase
import KuraStore

/// PostgreSQL's names that fit: the server keeps identifiers of at most 63 bytes
/// (`NAMEDATALEN - 1`) and cuts longer ones, so two long names equal in their first 63 bytes
/// would be one. A quoted identifier longer than that is sent as its *fitted* form instead: its
/// first bytes (at most 46, cut at a character's start) for the reader, `_`, and 16 hexadecimal
/// digits of the FNV-1a hash of the whole name — the same on every machine and in every version,
/// so every statement (and every process) names the same table, column or index.
///
/// The statements of ``PostgresConnection`` fit the `"…"` identifiers of their SQL by
/// themselves (``PostgresPlaceholders/rewrite(_:placeholders:)``); a name used as a value — in
/// a query of the catalog — is fitted with ``fitted(_:)`` by whoever compares it.
package enum PostgresIdentifier {
  /// The most bytes PostgreSQL keeps of a name.
  package static let longestName = 63

  /// The number of hexadecimal digits of the hash that ends a fitted name.
  package static let hashDigits = 16

  /// `name` when it is at most ``longestName`` bytes long; otherwise its first bytes, `_` and
  /// the hash of the whole name (at most 63 bytes).
  package static func fitted(_ name: String) -> String {
    let bytes = name.utf8
    guard bytes.count > longestName else { return name }
    return fitted(bytes: Array(bytes))
  }

  /// The fitted form of a name of more than ``longestName`` bytes, given as its UTF-8 bytes.
  package static func fitted(bytes: [UInt8]) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    var end = longestName - 1 - hashDigits
    // Cut before a character's first byte, not inside a character (continuation bytes are
    // 0b10xxxxxx).
    while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
    let digits = String(hash, radix: 16)
    let padding = String(repeating: "0", count: hashDigits - digits.count)
    return String(decoding: bytes[..<end], as: UTF8.self) + "_" + padding + digits
  }

  /// Whether `identifier` has the shape of a fitted name (it ends with `_` and the hash's
  /// digits): only such a name read from the catalog may stand for a longer one.
  package static func mayBeFitted(_ identifier: String) -> Bool {
    let bytes = identifier.utf8
    guard bytes.count > hashDigits + 1 else { return false }
    var index = bytes.endIndex
    for _ in 0..<hashDigits {
      index = bytes.index(before: index)
      let byte = bytes[index]
      guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) else { return false }
    }
    return bytes[bytes.index(before: index)] == UInt8(ascii: "_")
  }
}
