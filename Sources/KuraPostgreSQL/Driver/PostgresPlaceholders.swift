import KuraBase
import KuraStore

/// Rewrites SQLite's parameter placeholders (`?` and `?N`) as PostgreSQL's (`$N`), so the store's
/// shared SQL runs on both engines.
///
/// A bare `?` takes the number after the largest used so far (as in SQLite: `?, ?5, ?` is
/// `$1, $5, $6`); `?N` becomes `$N`. Question marks inside '…' string literals (with `''`
/// escapes, and `E'…'` with backslash escapes), "…" identifiers, `--` and `/* */` comments and
/// `$$`/`$tag$` dollar-quoted bodies are left alone. PostgreSQL's own `?` operators (jsonb's `?`,
/// `?|`, `?&`) can't be written in SQL that goes through here.
///
/// The same pass fits the "…" identifiers longer than PostgreSQL keeps
/// (``PostgresIdentifier/fitted(_:)``), so a long name is one identifier of its own instead of
/// being cut by the server.
package enum PostgresPlaceholders {
  /// The rewritten SQL and the number of parameters it declares (the largest `$N`).
  package struct Rewritten: Equatable {
    /// The SQL with `$N` placeholders.
    package var sql: String
    /// The largest parameter number used, 0 for none.
    package var parameterCount: Int

    /// Creates the value from each of its stored properties.
    package init(sql: String, parameterCount: Int) {
      self.sql = sql
      self.parameterCount = parameterCount
    }
  }

  /// Rewrites `sql`'s `?` and `?N` placeholders as `$N` (unless `placeholders` is `false`),
  /// and its quoted identifiers longer than 63 bytes as their fitted form.
  package static func rewrite(_ sql: String, placeholders: Bool = true) -> Rewritten {
    let bytes = Array(sql.utf8)
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count + 16)
    var highest = 0
    var index = 0
    let count = bytes.count

    /// Copies the bytes from `index` up to `end` (or to the end of the SQL) unchanged.
    func copy(through end: Int) {
      output.append(contentsOf: bytes[index..<min(end, count)])
      index = min(end, count)
    }

    /// Writes the quoted identifier from `index` to its closing quote at `end` fitted.
    func fitIdentifier(through end: Int) {
      var name: [UInt8] = []
      var position = index + 1
      while position < min(end, count) {
        name.append(bytes[position])
        position += bytes[position] == UInt8(ascii: "\"") ? 2 : 1
      }
      let fitted =
        name.count > PostgresIdentifier.longestName
        ? PostgresIdentifier.fitted(bytes: name) : String(decoding: name, as: UTF8.self)
      output.append(UInt8(ascii: "\""))
      for byte in fitted.utf8 {
        output.append(byte)
        if byte == UInt8(ascii: "\"") { output.append(byte) }
      }
      output.append(UInt8(ascii: "\""))
      index = min(end + 1, count)
    }

    while index < count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "'"):
        let backslashEscapes =
          index > 0 && (bytes[index - 1] | 0x20) == UInt8(ascii: "e")
          && (index < 2 || !isIdentifierByte(bytes[index - 2]))
        var end = index + 1
        while end < count {
          if backslashEscapes && bytes[end] == UInt8(ascii: "\\") {
            end += 2
            continue
          }
          if bytes[end] == UInt8(ascii: "'") {
            if end + 1 < count && bytes[end + 1] == UInt8(ascii: "'") {
              end += 2
              continue
            }
            break
          }
          end += 1
        }
        copy(through: end + 1)
      case UInt8(ascii: "\""):
        var end = index + 1
        while end < count {
          if bytes[end] == UInt8(ascii: "\"") {
            if end + 1 < count && bytes[end + 1] == UInt8(ascii: "\"") {
              end += 2
              continue
            }
            break
          }
          end += 1
        }
        if end - index - 1 > PostgresIdentifier.longestName {
          fitIdentifier(through: end)
        } else {
          copy(through: end + 1)
        }
      case UInt8(ascii: "-") where index + 1 < count && bytes[index + 1] == UInt8(ascii: "-"):
        var end = index + 2
        while end < count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
        copy(through: end + 1)
      case UInt8(ascii: "/") where index + 1 < count && bytes[index + 1] == UInt8(ascii: "*"):
        // Block comments nest in PostgreSQL.
        var depth = 1
        var end = index + 2
        while end < count && depth > 0 {
          if bytes[end] == UInt8(ascii: "/") && end + 1 < count
            && bytes[end + 1] == UInt8(ascii: "*")
          {
            depth += 1
            end += 2
          } else if bytes[end] == UInt8(ascii: "*") && end + 1 < count
            && bytes[end + 1] == UInt8(ascii: "/")
          {
            depth -= 1
            end += 2
          } else {
            end += 1
          }
        }
        copy(through: end)
      case UInt8(ascii: "$"):
        // `$tag$…$tag$` or `$$…$$`, unless the `$` continues an identifier (`a$b`) or starts a
        // parameter (`$1`).
        if let tagEnd = dollarTagEnd(bytes, at: index) {
          let tag = bytes[index..<tagEnd]
          var end = tagEnd
          var closed = count
          while end < count {
            if bytes[end] == UInt8(ascii: "$") && bytes[end..<min(end + tag.count, count)] == tag {
              closed = end + tag.count
              break
            }
            end += 1
          }
          copy(through: closed)
        } else {
          if index + 1 < count, isDigit(bytes[index + 1]) {
            var end = index + 1
            var number = 0
            while end < count && isDigit(bytes[end]) {
              number = number &* 10 &+ Int(bytes[end] - UInt8(ascii: "0"))
              end += 1
            }
            highest = max(highest, number)
          }
          copy(through: index + 1)
        }
      case UInt8(ascii: "?") where placeholders:
        var end = index + 1
        var number = 0
        while end < count && isDigit(bytes[end]) {
          number = number &* 10 &+ Int(bytes[end] - UInt8(ascii: "0"))
          end += 1
        }
        if end == index + 1 {
          highest += 1
          number = highest
        } else {
          highest = max(highest, number)
        }
        output.append(UInt8(ascii: "$"))
        output.append(contentsOf: String(number).utf8)
        index = end
      default:
        // Bytes of an identifier: a `$` right after one belongs to it.
        var end = index + 1
        if isIdentifierByte(byte) {
          while end < count && (isIdentifierByte(bytes[end]) || bytes[end] == UInt8(ascii: "$")) {
            end += 1
          }
        }
        copy(through: end)
      }
    }
    let rewritten = output == bytes ? sql : String(decoding: output, as: UTF8.self)
    return Rewritten(sql: rewritten, parameterCount: highest)
  }

  /// `sql` with its quoted identifiers longer than 63 bytes fitted and its placeholders left
  /// alone (for SQL run without parameters).
  package static func fittingIdentifiers(_ sql: String) -> String {
    let bytes = sql.utf8
    guard bytes.count > PostgresIdentifier.longestName + 2 else { return sql }
    // Most SQL run this way (`BEGIN …`, settings) quotes nothing: look for a quote in the
    // string's own bytes first.
    let quoted =
      bytes.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: "\"")) }
      ?? bytes.contains(UInt8(ascii: "\""))
    return quoted ? rewrite(sql, placeholders: false).sql : sql
  }

  /// The index after the opening `$tag$` (or `$$`) that starts at `index`, if one does.
  private static func dollarTagEnd(_ bytes: [UInt8], at index: Int) -> Int? {
    var end = index + 1
    guard end < bytes.count else { return nil }
    if bytes[end] == UInt8(ascii: "$") { return end + 1 }
    guard !isDigit(bytes[end]), isIdentifierByte(bytes[end]) else { return nil }
    while end < bytes.count && isIdentifierByte(bytes[end]) { end += 1 }
    return end < bytes.count && bytes[end] == UInt8(ascii: "$") ? end + 1 : nil
  }

  @inline(__always)
  private static func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }

  /// A letter, digit, `_` or any byte of a non-ASCII character (PostgreSQL's identifier bytes,
  /// apart from `$`).
  @inline(__always)
  private static func isIdentifierByte(_ byte: UInt8) -> Bool {
    (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || isDigit(byte)
      || byte == UInt8(ascii: "_") || byte >= 0x80
  }
}
