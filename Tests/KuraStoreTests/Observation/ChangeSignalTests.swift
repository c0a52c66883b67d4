import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

/// The number after `prefix ` in a helper's output line, such as `ack 12`.
private func number(after prefix: String, in line: String) -> Int? {
  guard line.hasPrefix(prefix + " ") else { return nil }
  return Int(line.dropFirst(prefix.count + 1))
}

@Suite("Change signal")
struct ChangeSignalTests {
  /// Starts a watching reader, then `rounds` writers one after another, each killed with
  /// SIGKILL after a random number (1–4) of acknowledged writes; after each kill the reader must
  /// report the last acknowledged value (or a later one) with no further write.
  private func killWritersAndWatch(
    writer: String, reader: String, file: URL, folder: TemporaryDirectory, rounds: Int
  ) throws {
    let helper = try executable("kura-testhelper")
    let watcher = try ChildProcess(helper, [reader, file.path], environment: folder.environment)
    defer { watcher.send(SIGKILL) }
    let ready = try #require(watcher.waitForLine { $0.hasPrefix("ready ") })
    var acknowledged = try #require(number(after: "ready", in: ready))
    for round in 0..<rounds {
      let child = try ChildProcess(helper, [writer, file.path], environment: folder.environment)
      let target = acknowledged + Int.random(in: 1...4)
      child.waitForLine { (number(after: "ack", in: $0) ?? 0) >= target }
      child.send(SIGKILL)
      _ = child.waitForExit()
      acknowledged = child.outputLines.compactMap { number(after: "ack", in: $0) }.max() ?? 0
      let last = acknowledged
      let seen = watcher.waitForLine(timeout: 20) {
        (number(after: "seen", in: $0) ?? -1) >= last
      }
      guard seen != nil else {
        Issue.record("round \(round): the reader never saw acknowledged value \(last)")
        return
      }
    }
  }

  @Test func aKilledPreferencesWriterLeavesNoReaderStale() throws {
    let folder = TemporaryDirectory()
    try killWritersAndWatch(
      writer: "signal-prefs-loop", reader: "signal-prefs-watch",
      file: folder.file("shared.sqlite"), folder: folder, rounds: 100)
  }

  @Test func aKilledDocumentWriterLeavesNoReaderStale() throws {
    let folder = TemporaryDirectory()
    try killWritersAndWatch(
      writer: "signal-document-loop", reader: "signal-document-watch",
      file: folder.file("entries.json"), folder: folder, rounds: 100)
  }

  /// A commit made by SQLite alone (no Kura code after it, as when the writer dies right after
  /// committing) is seen by the next read and wakes observers.
  @Test func aCommitBySQLiteAloneIsSeenByReadsAndObservers() async throws {
    let folder = TemporaryDirectory()
    let url = folder.file("suite.sqlite")
    let preferences = try Preferences(fileURL: url)
    let key = Preferences.Key<Int>("count", default: 0)
    #expect(preferences[key] == 0)
    let stream = preferences.changes(of: key)
    var iterator = stream.makeAsyncIterator()
    #expect(await iterator.next() == 0)
    let connection = try Connection(path: url.path)
    try connection.transaction(.immediate) {
      let version = try PreferenceTable.latestVersion(connection) + 1
      try PreferenceTable.put(connection, name: "count", value: .integer(7), version: version)
    }
    #expect(preferences[key] == 7)
    let observed = try await nextValue(of: stream, within: 20)
    #expect(observed == 7)
  }

  /// A document replaced by another program (no lock, no journal) is seen by the next read and
  /// wakes observers: the file's identity is the signal.
  @Test func aDocumentReplacedByAnotherProgramIsSeenByReadsAndObservers() async throws {
    let folder = TemporaryDirectory()
    let url = folder.file("entries.json")
    let store = try DocumentStore<[Int]>(.url(url))
    try store.replace(with: [1])
    let stream = store.changes
    try Data("[1,2]".utf8).write(to: url, options: .atomic)
    #expect(store.value == [1, 2])
    try Data("[1,2,3]".utf8).write(to: url, options: .atomic)
    let observed = try await nextValue(of: stream, within: 20)
    #expect(observed == [1, 2, 3])
  }
}
