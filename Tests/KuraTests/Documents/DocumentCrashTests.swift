import Foundation
import Testing
import WarikanKit

@testable import Kura

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Documents survive kill -9")
struct DocumentCrashTests {
  /// Starts `document-append-loop`, waits until it has acknowledged `count` appends (or exited),
  /// kills it with SIGKILL, and returns every id it acknowledged (complete lines only).
  private func appendThenKill(_ url: URL, after count: Int, threshold: Int) throws -> [String] {
    let process = Process()
    process.executableURL = try executable("kura-testhelper")
    process.arguments = ["document-append-loop", url.path, String(threshold)]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    var data = Data()
    while data.count(where: { $0 == 0x0A }) < count {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      data.append(chunk)
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    data.append(output.fileHandleForReading.readDataToEndOfFile())
    #expect(process.terminationReason == .uncaughtSignal)
    let text = String(decoding: data, as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    lines.removeLast()  // the part after the last newline is not a complete acknowledgement
    return lines
  }

  @Test func appendsSurviveKillAtRandomMoments() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("cashData.json")
    var acknowledged: [String] = []
    var generator = SystemRandomNumberGenerator()
    for round in 0..<60 {
      // Round 0..<5 kill right after start (during open and replay); later rounds after a random
      // number of acknowledged appends. A small threshold makes kills land in compactions too.
      let count = round < 5 ? 0 : Int.random(in: 1...30, using: &generator)
      acknowledged += try appendThenKill(url, after: count, threshold: 1024)
      // The JSON file always parses, whatever moment the kill hit.
      if FileManager.default.fileExists(atPath: url.path) {
        let file = try Data(contentsOf: url)
        #expect(throws: Never.self) { try JSONDecoder().decode([CashData].self, from: file) }
      }
      // Every acknowledged append is in the document.
      let store = try DocumentStore<[CashData]>(
        .url(url), options: DocumentOptions(observesOtherProcesses: false))
      let ids = Set(store.value.map(\.id.uuidString))
      let missing = acknowledged.filter { !ids.contains($0) }
      #expect(missing.isEmpty, "round \(round): lost \(missing.count) acknowledged appends")
      #expect(ids.count == store.value.count, "round \(round): an entry was applied twice")
    }
    #expect(acknowledged.count > 100)
    // After a clean close the file alone is plain JSON holding everything.
    let store = try DocumentStore<[CashData]>(
      .url(url), options: DocumentOptions(observesOtherProcesses: false))
    try store.close()
    let entries = try JSONDecoder().decode([CashData].self, from: Data(contentsOf: url))
    #expect(Set(acknowledged).isSubset(of: Set(entries.map(\.id.uuidString))))
  }
}
