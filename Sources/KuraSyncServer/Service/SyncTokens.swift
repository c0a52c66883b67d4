import KuraBase
import KuraStore
import KuraPostgreSQL
import KuraSyncCore
import Foundation

/// The sync server's tokens file: which token hash grants which space, until when.
///
/// One token a line: the space, the token's SHA-256 as 64 hex digits, and optionally
/// `expires=` with an ISO 8601 time (`2027-01-01T00:00:00Z`); `#` starts a comment. Revoke a
/// token by removing its line: the server reads the file again when it changes.
///
/// ```
/// # space     sha-256 of the token                                              expiry
/// family      3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b  expires=2027-01-01T00:00:00Z
/// ```
package struct SyncTokens: Sendable {
  /// What a token grants.
  package struct Grant: Sendable, Hashable {
    package var space: String
    package var expires: Date?

    /// A value of each stored property.
    package init(space: String, expires: Date?) {
      self.space = space
      self.expires = expires
    }
  }

  /// Grants by token hash (lowercase hex).
  package private(set) var grants: [String: Grant] = [:]

  /// Reads the file's text.
  ///
  /// - Throws: ``SyncTokensError`` naming the line that is not `space hash [expires=time]`.
  package init(text: String, file: String) throws {
    for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      let content = line.prefix { $0 != "#" }
      let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
      if words.isEmpty { continue }
      func refuse(_ why: String) -> SyncTokensError {
        SyncTokensError(
          message:
            "Can't read tokens file `\(file)`: line \(number + 1) \(why). Each line is "
            + "`<space> <sha-256 of the token, 64 hex digits> [expires=<ISO 8601 time>]`; "
            + "`kura sync token --space <space>` makes a token and its line.")
      }
      guard words.count <= 3 else { throw refuse("has more than three words") }
      let space = String(words[0])
      guard Self.isValidSpace(space) else {
        throw refuse("names space `\(space)`, which is not 1–100 letters, digits, `.`, `_`, `-`")
      }
      guard words.count >= 2 else { throw refuse("has no token hash") }
      let hash = String(words[1])
      guard hash.utf8.count == 64, hash.utf8.allSatisfy({ Self.hexDigits.contains($0) }) else {
        throw refuse("has a token hash that is not 64 lowercase hex digits")
      }
      var expires: Date?
      if words.count == 3 {
        let word = words[2]
        guard word.hasPrefix("expires="),
          let date = ISO8601DateFormatter().date(from: String(word.dropFirst(8)))
        else { throw refuse("has `\(word)`, not `expires=<ISO 8601 time>`") }
        expires = date
      }
      guard grants[hash] == nil else { throw refuse("repeats a token hash of an earlier line") }
      grants[hash] = Grant(space: space, expires: expires)
    }
  }

  /// The grant of the token whose hash is `hash`, compared in constant time with every hash.
  package func grant(forHash hash: String) -> Grant? {
    let wanted = Array(hash.utf8)
    var found: Grant?
    for (stored, grant) in grants {
      var difference: UInt8 = stored.utf8.count == wanted.count ? 0 : 1
      for (a, b) in zip(stored.utf8, wanted) { difference |= a ^ b }
      if difference == 0 { found = grant }
    }
    return found
  }

  /// Whether `space` is a valid space name: 1–100 ASCII letters, digits, `.`, `_`, `-`.
  package static func isValidSpace(_ space: String) -> Bool {
    (1...100).contains(space.utf8.count)
      && space.utf8.allSatisfy { byte in
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
          || (0x61...0x7A).contains(byte) || byte == 0x2E || byte == 0x5F || byte == 0x2D
      }
  }

  private static let hexDigits = Set("0123456789abcdef".utf8)
}

/// A tokens file that can't be read.
package struct SyncTokensError: Error, CustomStringConvertible {
  /// What is wrong and how to fix it.
  package var message: String
  package var description: String { message }
}
