import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraSyncServer
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Sync tokens")
struct SyncTokensTests {
  /// FIPS 180-4's examples (NIST's "SHA256.pdf" and "SHA2_Additional.pdf") and a million `a`s.
  @Test func sha256MatchesThePublishedVectors() {
    #expect(
      SHA256.hexDigest("abc")
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      SHA256.hexDigest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(
      SHA256.hexDigest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    #expect(
      SHA256.hexDigest(String(repeating: "a", count: 1_000_000))
        == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    // 55 and 56 bytes: the two lengths around the padding's block boundary.
    #expect(
      SHA256.hexDigest(String(repeating: "a", count: 55))
        == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
    #expect(
      SHA256.hexDigest(String(repeating: "a", count: 56))
        == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
  }

  /// A token is `kura_` and 43 base64url characters: never a word a command line takes for an
  /// option (a token starting with `-` broke `kura sync soak-replica … <token>`).
  @Test func aTokenHasItsPrefixAndNeverStartsWithADash() throws {
    for _ in 0..<200 {
      let token = try SyncToken(space: "family").token
      #expect(token.hasPrefix("kura_"))
      #expect(token.utf8.count == 48)
      #expect(token.dropFirst(5).allSatisfy { $0.isLetter || $0.isNumber || "-_".contains($0) })
    }
  }

  @Test func aTokensFileLineThatIsNotSpaceHashExpiryIsNamed() throws {
    let hash = SHA256.hexDigest("token")
    let tokens = try SyncTokens(
      text: "# comment\nfamily \(hash) expires=2030-01-01T00:00:00Z  # trailing\n\n", file: "t")
    #expect(
      tokens.grant(forHash: hash)
        == .init(
          space: "family", expires: ISO8601DateFormatter().date(from: "2030-01-01T00:00:00Z"),
          credential: "token:\(hash)"))
    #expect(tokens.grant(forHash: SHA256.hexDigest("other")) == nil)
    let bad: [(String, String)] = [
      ("family", "line 1 has no token hash"),
      (
        "family \(hash.uppercased())", "line 1 has a token hash that is not 64 lowercase hex digits"
      ),
      ("\n fam/ily \(hash)", "line 2 names space `fam/ily`"),
      (
        "family \(hash) soon", "line 1 has `soon`, not `device=<name>` or `expires=<ISO 8601 time>`"
      ),
      ("family \(hash) device=", "line 1 names device ``"),
      ("family \(hash) device=a device=b", "line 1 has `device=b`"),
      ("a \(hash)\nb \(hash)", "line 2 repeats a token hash of an earlier line"),
    ]
    for (text, expected) in bad {
      #expect {
        try SyncTokens(text: text, file: "/etc/kura/tokens")
      } throws: { error in
        let message = (error as? SyncTokensError)?.message ?? ""
        return message.hasPrefix("Can't read tokens file `/etc/kura/tokens`: \(expected)")
          && message.contains("`kura sync token --space <space>` makes a token and its line.")
      }
    }
  }

  /// A device's line binds its replicas to the device's name; CRLF line ends read as LF (a
  /// CRLF file was one line before, "has more than three words").
  @Test func aDeviceLineGrantsItsDeviceAndCRLFLinesReadAsLF() throws {
    let phone = try SyncToken(
      space: "family", device: "alice-phone", expires: "2030-01-01T00:00:00Z")
    #expect(phone.line.hasSuffix(" device=alice-phone expires=2030-01-01T00:00:00Z"))
    let shared = try SyncToken(space: "family")
    let tokens = try SyncTokens(text: "\(phone.line)\r\n\(shared.line)\r\n", file: "t")
    let grant = try #require(tokens.grant(forHash: SHA256.hexDigest(phone.token)))
    #expect(grant.device == "alice-phone")
    #expect(grant.credential == "device:alice-phone")
    let sharedHash = SHA256.hexDigest(shared.token)
    #expect(tokens.grant(forHash: sharedHash)?.credential == "token:\(sharedHash)")
  }

  /// Space and device names are exact ASCII bytes: a look-alike or a second Unicode spelling
  /// is refused when the token is made.
  @Test(arguments: [
    "\u{212A}yoto", "Cafe\u{301}", "Caf\u{E9}", "ｆamily", "", String(repeating: "a", count: 101),
  ])
  func aNameThatIsNotPlainASCIIIsRefused(_ name: String) throws {
    #expect(throws: SyncTokensError.self) { try SyncToken(space: name) }
    #expect(throws: SyncTokensError.self) { try SyncToken(space: "family", device: name) }
  }
}
