import Foundation
import KuraTestSupport
import Observation
import Testing
import WarikanKit

@testable import Kura

/// A whole-value counter document, as `kura-testhelper document-increment` writes it.
private struct CounterDocument: Codable, Sendable, Equatable {
  var count = 0
}

@Suite("Documents shared by processes")
struct DocumentSharingTests {
  /// Starts `kura-testhelper` with arguments; returns the running process and its output pipe.
  private func start(_ arguments: [String]) throws -> (Process, Pipe) {
    let process = Process()
    process.executableURL = try executable("kura-testhelper")
    process.arguments = arguments
    let output = childPipe()
    process.standardOutput = output
    try launch(process)
    return (process, output)
  }

  private func finish(_ child: (Process, Pipe)) -> String {
    let data = child.1.fileHandleForReading.readDataToEndOfFile()
    try? child.1.fileHandleForReading.close()  // not left to the pipe's deinit (`launch(_:)`)
    child.0.waitUntilExit()
    #expect(child.0.terminationStatus == 0)
    return String(decoding: data, as: UTF8.self)
  }

  @Test func twoProcessesAppendingAtOnceLoseNothing() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("cashData.json")
    let first = try start(["document-append", url.path, "300", "A"])
    let second = try start(["document-append", url.path, "300", "B"])
    #expect(finish(first) == "done\n")
    #expect(finish(second) == "done\n")
    let entries = try JSONDecoder().decode([CashData].self, from: Data(contentsOf: url))
    #expect(entries.count == 600)
    #expect(Set(entries.map(\.memo)).count == 600)
    #expect(entries.filter { $0.memo.hasPrefix("A ") }.map(\.cash) == Array(0..<300))
    #expect(entries.filter { $0.memo.hasPrefix("B ") }.map(\.cash) == Array(0..<300))
  }

  @Test func twoProcessesUpdatingTheWholeValueLoseNoUpdate() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("counter.json")
    let first = try start(["document-increment", url.path, "150"])
    let second = try start(["document-increment", url.path, "150"])
    #expect(finish(first) == "done\n")
    #expect(finish(second) == "done\n")
    let store = try DocumentStore(.url(url), defaultValue: CounterDocument())
    #expect(store.value == CounterDocument(count: 300))
  }

  @Test func anotherProcessesChangeIsLoadedAndObserversFire() async throws {
    let folder = TemporaryDirectory()
    let url = folder.file("cashData.json")
    let store = try DocumentStore<[CashData]>(.url(url))
    let changes = store.changes
    let observed = AsyncStream<Void>.makeStream()
    withObservationTracking {
      _ = store.value
    } onChange: {
      observed.continuation.yield()
    }
    #expect(finish(try start(["document-append", url.path, "1", "other"])) == "done\n")
    let value = try await firstValue(of: changes, within: 10) { !$0.isEmpty }
    #expect(value?.map(\.memo) == ["other 0"])
    #expect(try await nextValue(of: observed.stream, within: 10) != nil)
    #expect(store.value.map(\.memo) == ["other 0"])
    // A removal by another process shows up too.
    let firstID = try #require(store.value.first?.id.uuidString)
    #expect(finish(try start(["document-remove-first", url.path])) == firstID + "\n")
    let afterRemoval = try await firstValue(of: changes, within: 10) { $0.isEmpty }
    #expect(afterRemoval == [])
  }
}
