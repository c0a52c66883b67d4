import Foundation
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Preferences shared by processes")
struct PreferencesSharingTests {
  let count = Preferences.Key<Int>("count", default: 0)

  @Test func aWriteInOneProcessIsReadInAnother() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("shared.sqlite")
    let preferences = try Preferences(fileURL: url)
    #expect(preferences[count] == 0)
    preferences[count] = 41
    let read = try helper(["prefs-get-int", url.path, "count"], in: folder)
    #expect(read.stdout == "41\n")
    let child = try ChildProcess(
      try executable("kura-testhelper"), ["prefs-set-and-hang", url.path, "count", "42"],
      environment: folder.environment)
    child.waitForLine { $0 == "set" }
    // The same instance, never reopened, sees the other process's write.
    #expect(preferences[count] == 42)
    child.send(SIGKILL)
    _ = child.waitForExit()
  }

  @Test func fourProcessesIncrementingOneKeyLoseNothing() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("counter.sqlite")
    let preferences = try Preferences(fileURL: url)
    let children = try (0..<4).map { _ in
      try ChildProcess(
        try executable("kura-testhelper"), ["prefs-increment", url.path, "count", "250"],
        environment: folder.environment)
    }
    for _ in 0..<50 { try preferences.update(count) { $0 + 1 } }
    for child in children {
      child.waitForLine { $0 == "done" }
      #expect(child.waitForExit() == 0)
    }
    #expect(preferences[count] == 1050)
    #expect(try Preferences(fileURL: url)[count] == 1050)
  }

  /// A process that looks at the suite before opening it for writing reads the `-shm` file
  /// without writing it, so it can't use an index left in a state only a writer can fix (here:
  /// no reader slot marks a frame of the `-wal` file, as after another process's crash): it must
  /// still open the suite, not fail with "attempt to write a readonly database".
  @Test func anIndexOnlyAWriterCanUseDoesNotStopAnotherProcessOpening() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("marks.sqlite")
    _ = try helper(["prefs-increment", url.path, "count", "40"], in: folder)
    // Another process's plain connection (no file watcher to repair the index) keeps the index
    // in use with a commit in the `-wal` file.
    let holder = try Connection(path: url.path)
    try holder.transaction(.immediate) {
      let version = try PreferenceTable.latestVersion(holder) + 1
      try PreferenceTable.put(holder, name: "count", value: .integer(41), version: version)
    }
    // The four reader slots after the two index headers (96 bytes) and the backfill count. The
    // handle stays open until the child is done: closing it would drop this process's locks on
    // the file, the holder's included.
    let shm = try FileHandle(forUpdating: URL(fileURLWithPath: url.path + "-shm"))
    try shm.seek(toOffset: 104)
    try shm.write(contentsOf: Data(repeating: 0xff, count: 16))
    let read = try helper(["prefs-get-int", url.path, "count"], in: folder)
    #expect(read.stdout == "41\n", "\(read.stderr)")
    try shm.close()
    withExtendedLifetime(holder) {}
    #expect(try Preferences(fileURL: url)[count] == 41)
  }

  @Test func aSetThatReturnedSurvivesKillNine() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("durable.sqlite")
    let child = try ChildProcess(
      try executable("kura-testhelper"), ["prefs-set-and-hang", url.path, "count", "2800"],
      environment: folder.environment)
    child.waitForLine { $0 == "set" }
    child.send(SIGKILL)
    _ = child.waitForExit()
    #expect(child.terminationReason == .uncaughtSignal)
    #expect(try Preferences(fileURL: url)[count] == 2800)
  }
}
