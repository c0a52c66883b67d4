import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

/// Checks the first line of a `watch-suites`/`watch-documents` helper: every file observed, one
/// inotify instance (Linux), nothing polled.
private func expectWatching(
  _ line: String?, _ count: Int, sourceLocation: SourceLocation = #_sourceLocation
) {
  #if os(Linux)
    #expect(line == "watching \(count) inotify 1 polled 0", sourceLocation: sourceLocation)
  #else
    #expect(line?.hasPrefix("watching \(count) ") == true, sourceLocation: sourceLocation)
    #expect(line?.hasSuffix(" polled 0") == true, sourceLocation: sourceLocation)
  #endif
}

// Each check runs in a child process: it holds thousands of file descriptors, and Foundation's
// `Process.run()` (which the sharing tests running alongside call) can crash reading
// `/proc/self/fd` while this process has that many open.
@Suite("One file watcher per process")
struct FileWatcherTests {
  @Test func aThousandObservedSuitesShareOneWatcher() throws {
    try watchAThousand("watch-suites") { folder in
      // The last suite, changed by another process, still wakes its observer.
      let url = folder.url.appendingPathComponent("group-9/suite-999.sqlite")
      let result = try run(
        try executable("kura-testhelper"), ["prefs-increment", url.path, "count", "1"],
        environment: folder.environment)
      #expect(result.stdout == "done\n")
    }
  }

  @Test func aThousandObservedDocumentsShareOneWatcher() throws {
    try watchAThousand("watch-documents") { folder in
      try Data(#"{"count":1}"#.utf8).write(to: folder.file("document-999.json"), options: .atomic)
    }
  }

  /// Starts the helper `command` over 1,000 files in a new folder, checks that they share one
  /// watcher and that the last one's observer saw its first value (0), runs `change` (which
  /// makes the last file's value 1) and checks that the observer sees it.
  private func watchAThousand(
    _ command: String, sourceLocation: SourceLocation = #_sourceLocation,
    change: (TemporaryDirectory) throws -> Void
  ) throws {
    let folder = TemporaryDirectory()
    let child = try ChildProcess(
      try executable("kura-testhelper"), [command, folder.url.path, "1000"],
      environment: folder.environment)
    defer {
      child.send(SIGKILL)
      _ = child.waitForExit()
    }
    func line(timeout: TimeInterval = 30, _ predicate: (String) -> Bool) -> String? {
      child.waitForLine(timeout: timeout, where: predicate, sourceLocation: sourceLocation)
    }
    expectWatching(
      line(timeout: 120) { $0.hasPrefix("watching") }, 1000, sourceLocation: sourceLocation)
    #expect(line { $0 == "seen 0" } != nil, sourceLocation: sourceLocation)
    try change(folder)
    #expect(line { $0 == "seen 1" } != nil, sourceLocation: sourceLocation)
  }
}
