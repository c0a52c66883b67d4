import Foundation
import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

/// The sync server's tokens file: which token hash grants which space, until when.
///
/// One token a line: the space, the token's SHA-256 as 64 hex digits, and optionally
/// `device=` with the device's name and `expires=` with an ISO 8601 time
/// (`2027-01-01T00:00:00Z`); `#` starts a comment; CRLF line ends read as LF. Revoke a token by
/// removing its line: the server reads the file again when it changes.
///
/// ```
/// # space     sha-256 of the token                                              device, expiry
/// family      3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b  device=alice-phone
/// ```
///
/// A replica belongs to the credential that first registered it (see ``Grant/credential``):
/// the device's name when its line has one, otherwise the token.
package struct SyncTokens: Sendable {
  /// What a token grants.
  package struct Grant: Sendable, Hashable {
    package var space: String
    package var expires: Date?
    /// The device's name (`device=`), if the line gives one.
    package var device: String? = nil
    /// What a replica registered with this token is bound to: `device:<name>` for a device's
    /// token (so a device keeps its replicas when its token is replaced), otherwise
    /// `token:<sha-256>`.
    package var credential: String = ""

    /// Creates the value from each of its stored properties.
    package init(
      space: String, expires: Date? = nil, device: String? = nil, credential: String = ""
    ) {
      self.space = space
      self.expires = expires
      self.device = device
      self.credential = credential
    }
  }

  /// Grants by token hash (lowercase hex).
  package private(set) var grants: [String: Grant] = [:]

  /// Reads the file's text.
  ///
  /// - Throws: ``SyncTokensError`` naming the line that is not `space hash [expires=time]`.
  package init(text: String, file: String) throws {
    // Split on LF bytes: a Character split would take CRLF for one character, not a line end.
    let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map {
      String(decoding: $0.last == 0x0D ? $0.dropLast() : $0, as: UTF8.self)
    }
    for (number, line) in lines.enumerated() {
      let content = line.prefix { $0 != "#" }
      let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
      if words.isEmpty { continue }
      func refuse(_ why: String) -> SyncTokensError {
        SyncTokensError(
          message:
            "Can't read tokens file `\(file)`: line \(number + 1) \(why). Each line is "
            + "`<space> <sha-256 of the token, 64 hex digits> [device=<name>] "
            + "[expires=<ISO 8601 time>]`; `kura sync token --space <space>` makes a token and "
            + "its line.")
      }
      guard words.count <= 4 else { throw refuse("has more than four words") }
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
      var device: String?
      for word in words.dropFirst(2) {
        if word.hasPrefix("expires="), expires == nil,
          let date = ISO8601DateFormatter().date(from: String(word.dropFirst(8)))
        {
          expires = date
        } else if word.hasPrefix("device="), device == nil {
          let name = String(word.dropFirst(7))
          guard Self.isValidSpace(name) else {
            throw refuse(
              "names device `\(name.prefix(100))`, which is not 1–100 letters, digits, `.`, `_`, "
                + "`-`")
          }
          device = name
        } else {
          throw refuse(
            "has `\(word.prefix(100))`, not `device=<name>` or `expires=<ISO 8601 time>`")
        }
      }
      guard grants[hash] == nil else { throw refuse("repeats a token hash of an earlier line") }
      grants[hash] = Grant(
        space: space, expires: expires, device: device,
        credential: device.map { "device:\($0)" } ?? "token:\(hash)")
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

  /// Whether `space` is a valid space (or device) name: 1–100 ASCII letters, digits, `.`,
  /// `_`, `-` — so a name has one spelling, and no two names look alike (no confusables, no
  /// normalization forms). Names are compared as bytes.
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
