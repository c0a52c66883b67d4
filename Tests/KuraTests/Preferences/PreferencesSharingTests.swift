import Foundation
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
