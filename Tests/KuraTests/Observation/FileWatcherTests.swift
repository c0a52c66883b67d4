import Foundation
import Synchronization
import Testing

@testable import Kura

/// How many inotify instances this process holds (Linux; 0 elsewhere).
private func inotifyInstances() -> Int {
  let folder = "/proc/self/fd"
  let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
  return names.filter {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0))
      == "anon_inode:inotify"
  }.count
}

@Suite("One file watcher per process")
struct FileWatcherTests {
  @Test func aThousandObservedSuitesShareOneWatcher() async throws {
    let folder = TemporaryDirectory()
    let key = Preferences.Key<Int>("count", default: 0)
    for group in 0..<10 {
      try FileManager.default.createDirectory(
        at: folder.url.appendingPathComponent("group-\(group)"), withIntermediateDirectories: true)
    }
    // Opened from 8 threads: opening a suite flushes its new WAL, and the flushes overlap.
    let opened = Mutex<[Int: (Preferences, AsyncStream<Int>)]>([:])
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      for number in stride(from: worker, to: 1000, by: 8) {
        let url = folder.url.appendingPathComponent("group-\(number % 10)/suite-\(number).sqlite")
        guard let suite = try? Preferences(fileURL: url) else { continue }
        let stream = suite.changes(of: key)
        opened.withLock { $0[number] = (suite, stream) }
      }
    }
    let all = opened.withLock { $0 }
    try #require(all.count == 1000)
    let suites = (0..<1000).compactMap { all[$0]?.0 }
    let streams = (0..<1000).compactMap { all[$0]?.1 }
    #if os(Linux)
      #expect(inotifyInstances() == 1)
    #endif
    #expect(FileChangeMonitor.shared.counts.polled == 0)
    // The last suite, changed by another process, still wakes its observer.
    let last = try #require(streams.last)
    #expect(try await nextValue(of: last, within: 20) == 0)
    let url = folder.url.appendingPathComponent("group-9/suite-999.sqlite")
    let result = try run(
      try executable("kura-testhelper"), ["prefs-increment", url.path, "count", "1"],
      environment: folder.environment)
    #expect(result.stdout == "done\n")
    #expect(try await nextValue(of: last, within: 20) == 1)
    #expect(suites[999][key] == 1)
  }

  @Test func aThousandObservedDocumentsShareOneWatcher() async throws {
    let folder = TemporaryDirectory()
    var stores: [DocumentStore<[String: Int]>] = []
    for number in 0..<1000 {
      stores.append(
        try DocumentStore(.url(folder.file("document-\(number).json")), defaultValue: [:]))
    }
    #if os(Linux)
      #expect(inotifyInstances() == 1)
    #endif
    #expect(FileChangeMonitor.shared.counts.polled == 0)
    let last = try #require(stores.last)
    let stream = last.changes
    try Data(#"{"count":1}"#.utf8).write(to: folder.file("document-999.json"), options: .atomic)
    #expect(try await nextValue(of: stream, within: 20) == ["count": 1])
  }
}
