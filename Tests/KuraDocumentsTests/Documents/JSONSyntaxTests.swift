import Foundation
import KuraTestSupport
import Testing

@testable import Kura

@Suite("JSON syntax check")
struct JSONSyntaxTests {
  @Test(arguments: [
    #"[]"#, #"{}"#, " [ 1 , -2.5e+3 , 0.0E-1 , true , false , null ] ",
    #"{"a":{"b":[{"c":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}]}}"#, #""only a string""#, "42",
    "[\"高速代金 🚗\"]",
  ])
  func acceptsValidJSON(text: String) throws {
    #expect(JSONSyntax.firstError(in: Array(text.utf8)) == nil)
    #expect(throws: Never.self) {
      try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
    }
  }

  @Test(arguments: [
    ("[1,]", 3, "unexpected character `]`; expected a value"),
    ("[01]", 2, "unexpected character `1`; expected `,` or `]`"),
    ("{\"a\" 1}", 5, "unexpected character `1`; expected `:`"),
    ("{'a':1}", 1, "unexpected character `'`; expected a key in double quotes"),
    ("[1] x", 4, "unexpected character `x` after the JSON value"),
    (
      "[\"a\tb\"]", 3,
      "unexpected byte 0x09 (binary data, not JSON text); expected the string to end with `\"` (control characters must be escaped)"
    ),
    ("[\"\\x\"]", 3, "unexpected character `x`; expected an escape such as `\\n` or `\\\"`"),
    ("[tru]", 4, "unexpected character `]`; expected `true`"),
    ("[1.]", 3, "unexpected character `]`; expected a digit"),
    ("[-]", 2, "unexpected character `]`; expected a digit"),
    ("[\"abc", 5, "the file ends too early (truncated); expected the string to end with `\"`"),
  ])
  func pointsAtTheFirstError(text: String, offset: Int, reason: String) throws {
    let error = try #require(JSONSyntax.firstError(in: Array(text.utf8)))
    #expect(error.offset == offset)
    #expect(error.reason == reason)
  }

  @Test func deepNestingIsAnErrorNotAStackOverflow() throws {
    let text = String(repeating: "[", count: 100_000)
    let error = try #require(JSONSyntax.firstError(in: Array(text.utf8)))
    #expect(error.reason == "the JSON is nested too deeply")
    #expect(error.offset == 512)
  }
}
