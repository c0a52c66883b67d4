import Foundation
import KuraTestSupport
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
  /// Starts a looping helper command, waits until it has acknowledged `count` changes (or
  /// exited), kills it with SIGKILL, and returns every line it acknowledged (complete lines only).
  private func runThenKill(_ arguments: [String], after count: Int) throws -> [String] {
    let process = Process()
    process.executableURL = try executable("kura-testhelper")
    process.arguments = arguments
    let output = childPipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try launch(process)
    var data = Data()
    while data.count(where: { $0 == 0x0A }) < count {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      data.append(chunk)
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    data.append(output.fileHandleForReading.readDataToEndOfFile())
    try? output.fileHandleForReading.close()  // not left to the pipe's deinit (`launch(_:)`)
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
      acknowledged += try runThenKill(
        ["document-append-loop", url.path, "1024"], after: count)
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

  /// The counter document `document-increment-loop` updates.
  private struct Counter: Codable, Sendable {
    var count = 0
  }

  @Test func wholeFileUpdatesSurviveKillAtRandomMoments() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("counter.json")
    var lastAcknowledged = 0
    var generator = SystemRandomNumberGenerator()
    for round in 0..<25 {
      let count = round < 3 ? 0 : Int.random(in: 1...15, using: &generator)
      let lines = try runThenKill(["document-increment-loop", url.path], after: count)
      lastAcknowledged = lines.last.flatMap { Int($0) } ?? lastAcknowledged
      // The file is the old value or the new one, never torn: it always decodes, and it holds
      // at least the last acknowledged count (at most one more: an update not yet acknowledged).
      guard FileManager.default.fileExists(atPath: url.path) else {
        #expect(lastAcknowledged == 0, "round \(round): the file vanished")
        continue
      }
      let counter = try JSONDecoder().decode(Counter.self, from: Data(contentsOf: url))
      #expect(counter.count >= lastAcknowledged, "round \(round): an acknowledged update was lost")
      #expect(counter.count <= lastAcknowledged + 1, "round \(round)")
      lastAcknowledged = counter.count
    }
    #expect(lastAcknowledged > 20)
  }

  @Test func temporaryFilesOfKilledSavesAreRemovedOnTheNextOpen() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("counter.json")
    let isTemporary = { (name: String) in name.hasPrefix(".counter.json.tmp-") }
    var leftByKills = 0
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      _ = try runThenKill(
        ["document-increment-loop", url.path], after: Int.random(in: 1...3, using: &generator))
      leftByKills += try fileNames(in: folder.url).filter(isTemporary).count
    }
    // Another program's file that only looks alike is not touched.
    let lookalike = folder.file(".counter.json.tmp-notes")
    try Data("keep".utf8).write(to: lookalike)
    let store = try DocumentStore(
      .url(url), defaultValue: Counter(), options: DocumentOptions(observesOtherProcesses: false))
    #expect(store.value.count > 0)
    #expect(try fileNames(in: folder.url).filter(isTemporary) == [".counter.json.tmp-notes"])
    // Kills did land inside saves (each helper's own open cleared the previous ones).
    #expect(leftByKills > 0)
  }
}
