import Foundation
import KuraTestSupport
import Testing

@testable import Kura

/// A seed-format entry, as the seed app declares it.
private struct Entry: Codable, Identifiable, Sendable, Equatable {
  var id: UUID
  var memo: String
  var cash: Int
  var time: String
}

@Suite("Damaged documents")
struct DocumentDamageTests {
  /// Writes `bytes` as the document, opens it, and returns the error (recording an issue when
  /// opening succeeds); checks the file was left byte for byte as it was.
  private func openError(_ bytes: [UInt8], folder: TemporaryDirectory) throws -> DocumentError {
    let url = folder.file("cashData.json")
    try Data(bytes).write(to: url)
    do {
      _ = try DocumentStore<[Entry]>(.url(url))
    } catch let error as DocumentError {
      #expect(try Data(contentsOf: url) == Data(bytes))
      #expect(error.code == .damaged)
      #expect(error.file == url)
      return error
    }
    Issue.record("a damaged file opened")
    throw CocoaError(.fileReadCorruptFile)
  }

  private func message(_ url: URL, _ detail: String) -> String {
    "Can't open document `\(url.path)`: \(detail). Fix or remove the file; nothing was changed."
  }

  @Test func notJSON() throws {
    let folder = TemporaryDirectory()
    let error = try openError(Array("hello".utf8), folder: folder)
    #expect(error.line == 1 && error.column == 1)
    #expect(
      error.description
        == message(
          folder.file("cashData.json"),
          "line 1, column 1: unexpected character `h`; expected a value"))
  }

  @Test func errorsPointAtTheLineAndColumn() throws {
    let folder = TemporaryDirectory()
    let error = try openError(Array("[\n  {\"memo\": \"高速\" x}\n]".utf8), folder: folder)
    #expect(error.line == 2 && error.column == 17)
    #expect(error.reason == "unexpected character `x`; expected `,` or `}`")
  }

  @Test func truncated() throws {
    let folder = TemporaryDirectory()
    let error = try openError(
      Array(#"[{"id":"3F4D8393-8D86-4C81-AFB9-1854A5E38BDC","memo":"高速代金","cash":28"#.utf8),
      folder: folder)
    #expect(error.line == 1 && error.column == 70)
    #expect(error.reason == "the file ends too early (truncated); expected `,` or `}`")
  }

  @Test func aNumberThatDoesNotFitIsNamedWithItsPlace() throws {
    let folder = TemporaryDirectory()
    // Well-formed JSON, but `cash` is an `Int`: a fraction, then an overflow on line 2.
    let fraction = try openError(
      Array(
        #"[{"id":"3F4D8393-8D86-4C81-AFB9-1854A5E38BDC","memo":"x","cash":1.5,"time":"1:00"}]"#
          .utf8), folder: folder)
    #expect(fraction.line == 1 && fraction.column == 65)
    #expect(
      fraction.reason
        == "the number `1.5` does not fit the value expected there (a whole number without a"
        + " fraction, or one too large)")
    let overflow = try openError(
      Array(
        ("[{\"id\":\"3F4D8393-8D86-4C81-AFB9-1854A5E38BDC\",\"memo\":\"x\",\"cash\":1,"
          + "\"time\":\"1:00\"},\n{\"id\":\"3F4D8393-8D86-4C81-AFB9-1854A5E38BDD\","
          + "\"memo\":\"x\",\"cash\":99999999999999999999,\"time\":\"1:00\"}]").utf8),
      folder: folder)
    #expect(overflow.line == 2 && overflow.column == 64)
    #expect(overflow.reason.hasPrefix("the number `99999999999999999999` does not fit"))
  }

  @Test func empty() throws {
    let folder = TemporaryDirectory()
    let error = try openError([], folder: folder)
    #expect(error.line == nil && error.column == nil)
    #expect(
      error.description
        == message(folder.file("cashData.json"), "the file is empty (0 bytes), not JSON"))
  }

  @Test func onlyWhiteSpace() throws {
    let folder = TemporaryDirectory()
    let error = try openError(Array(" \n\n".utf8), folder: folder)
    #expect(error.reason == "the file holds only white space, not JSON")
  }

  @Test func binary() throws {
    let folder = TemporaryDirectory()
    let error = try openError(
      [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 1], folder: folder)
    #expect(error.line == 1 && error.column == 1)
    #expect(error.reason == "unexpected byte 0x89 (binary data, not JSON text); expected a value")
  }

  @Test func binaryInsideAString() throws {
    let folder = TemporaryDirectory()
    let error = try openError(
      Array("[\"ab".utf8) + [0xFF, 0xFE] + Array("\"]".utf8), folder: folder)
    #expect(error.line == 1 && error.column == 5)
    #expect(error.reason == "invalid UTF-8 byte in a string (binary data, not JSON text)")
  }

  @Test func wrongShapeAtTheTop() throws {
    let folder = TemporaryDirectory()
    let error = try openError(Array(#"{"entries": []}"#.utf8), folder: folder)
    #expect(error.line == nil)
    #expect(
      error.reason
        == "the JSON has the wrong shape at the top level: expected to decode Array<Any> but found a dictionary instead"
    )
  }

  @Test func wrongShapeInsideAnElement() throws {
    let folder = TemporaryDirectory()
    let error = try openError(
      Array(
        #"[{"id":"3F4D8393-8D86-4C81-AFB9-1854A5E38BDC","memo":"高速代金","cash":"2800","time":"22:38"}]"#
          .utf8), folder: folder)
    #expect(
      error.reason
        == "the JSON has the wrong shape at `[0].cash`: expected to decode Int but found a string instead"
    )
  }

  @Test func missingKey() throws {
    let folder = TemporaryDirectory()
    let error = try openError(
      Array(#"[{"id":"3F4D8393-8D86-4C81-AFB9-1854A5E38BDC","memo":"m","time":"1:00"}]"#.utf8),
      folder: folder)
    #expect(error.reason == "the JSON has the wrong shape at `[0]`: the key `cash` is missing")
  }

  @Test func quarantineMovesTheFileAsideAndStartsFresh() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("cashData.json")
    let damaged = Data("[{\"id\": 1,".utf8)
    try damaged.write(to: url)
    let store = try DocumentStore<[Entry]>(
      .url(url), options: DocumentOptions(onDamage: .quarantine, observesOtherProcesses: false))
    #expect(store.value == [])
    let damage = try #require(store.recoveredDamage)
    let moved = try #require(damage.quarantinedFile)
    #expect(moved.lastPathComponent.hasPrefix("cashData.json.damaged-"))
    #expect(try Data(contentsOf: moved) == damaged)
    #expect(!FileManager.default.fileExists(atPath: url.path))
    #expect(
      damage.description
        == "Can't open document `\(url.path)`: line 1, column 11: the file ends too early"
        + " (truncated); expected a key in double quotes. The file was moved to `\(moved.path)` and an empty"
        + " document was started; restore it by hand.")
    // A second damaged file in the same second is not overwritten.
    try damaged.write(to: url)
    let again = try DocumentStore<[Entry]>(
      .url(url), options: DocumentOptions(onDamage: .quarantine, observesOtherProcesses: false))
    let secondMove = try #require(again.recoveredDamage?.quarantinedFile)
    #expect(secondMove != moved)
    #expect(try Data(contentsOf: moved) == damaged)
    #expect(try Data(contentsOf: secondMove) == damaged)
  }

  @Test func aDamagedFileWrittenByAnotherProgramIsReportedNotLoaded() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("cashData.json")
    let store = try DocumentStore<[Entry]>(
      .url(url), options: DocumentOptions(observesOtherProcesses: false))
    let entry = Entry(id: UUID(), memo: "m", cash: 1, time: "1:00")
    try store.append(entry)
    try store.compact()
    try Data("garbage".utf8).write(to: url)
    #expect(throws: DocumentError.self) { try store.reload() }
    #expect(store.value == [entry])
    // Writing over the damaged file is refused.
    #expect(throws: DocumentError.self) {
      try store.append(Entry(id: UUID(), memo: "n", cash: 2, time: "1:00"))
    }
    #expect(try Data(contentsOf: url) == Data("garbage".utf8))
  }
}
