import Foundation
import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

/// A new random token for a space, and its line for the sync server's tokens file (which keeps
/// only the token's SHA-256).
package struct SyncToken: Sendable, Encodable {
  /// The space the token grants.
  package var space: String
  /// The token: `kura_` and 43 characters of base64url (32 random bytes). The prefix keeps a
  /// token from starting with `-`, which a command line would read as an option (a soak run
  /// failed so: `Unknown option -TgB0…`), and says what the secret is when one is found.
  package var token: String
  /// The device the token is for, if it is one device's.
  package var device: String?
  /// The tokens-file line: `<space> <sha-256 hex> [device=<name>] [expires=<time>]`.
  package var line: String

  /// Makes a token, for one device when `device` is given (a device's token revokes alone,
  /// and its replicas are bound to the device's name).
  ///
  /// - Throws: ``SyncTokensError`` for a space or device name that is not 1–100 ASCII letters,
  ///   digits, `.`, `_`, `-` (names are compared as bytes: a name that looks like another, or
  ///   has two Unicode spellings, is refused here, once).
  package init(space: String, device: String? = nil, expires: String? = nil) throws {
    guard SyncTokens.isValidSpace(space) else {
      throw SyncTokensError(
        message:
          "`\(space)` is not a valid space name: use 1–100 ASCII letters, digits, `.`, `_` or "
          + "`-` (a name is compared byte for byte, so look-alike letters are refused).")
    }
    if let device, !SyncTokens.isValidSpace(device) {
      throw SyncTokensError(
        message:
          "`\(device)` is not a valid device name: use 1–100 ASCII letters, digits, `.`, `_` or "
          + "`-`, such as alice-phone.")
    }
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let token =
      "kura_"
      + Data(bytes).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
    self.space = space
    self.token = token
    self.device = device
    line =
      "\(space) \(SHA256.hexDigest(token))" + (device.map { " device=\($0)" } ?? "")
      + (expires.map { " expires=\($0)" } ?? "")
  }
}
