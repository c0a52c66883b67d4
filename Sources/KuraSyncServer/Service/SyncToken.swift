import KuraBase
import KuraStore
import KuraPostgreSQL
import KuraSyncCore
import Foundation

/// A new random token for a space, and its line for the sync server's tokens file (which keeps
/// only the token's SHA-256).
package struct SyncToken: Sendable, Encodable {
  /// The space the token grants.
  package var space: String
  /// The token: `kura_` and 43 characters of base64url (32 random bytes). The prefix keeps a
  /// token from starting with `-`, which a command line would read as an option (a soak run
  /// failed so: `Unknown option -TgB0…`), and says what the secret is when one is found.
  package var token: String
  /// The tokens-file line: `<space> <sha-256 hex> [expires=<time>]`.
  package var line: String

  /// Makes a token.
  ///
  /// - Throws: ``SyncTokensError`` for a space name that is not 1–100 letters, digits, `.`,
  ///   `_`, `-`.
  package init(space: String, expires: String? = nil) throws {
    guard SyncTokens.isValidSpace(space) else {
      throw SyncTokensError(
        message:
          "`\(space)` is not a valid space name: use 1–100 letters, digits, `.`, `_` or `-`.")
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
    line = "\(space) \(SHA256.hexDigest(token))" + (expires.map { " expires=\($0)" } ?? "")
  }
}
