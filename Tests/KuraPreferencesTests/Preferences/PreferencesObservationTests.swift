import Foundation
import KuraTestSupport
import Observation
import Synchronization
import Testing

@testable import Kura

/// Counts the times an observation fired.
private final class FireCount: Sendable {
  let count = Mutex(0)
  func fire() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}

@Suite("Preferences observation")
struct PreferencesObservationTests {
  let name = Preferences.Key<String>("name", default: "")
  let other = Preferences.Key<String>("other", default: "")

  @Test func observingOneKeyIgnoresChangesToAnother() throws {
    let preferences = Preferences.inMemory
    let fired = FireCount()
    _ = withObservationTracking {
      preferences[name]
    } onChange: {
      fired.fire()
    }
    preferences[other] = "x"
    try preferences.remove(other)
    preferences.registerDefaults(["other": "y"])
    #expect(fired.value == 0)
    preferences[name] = "Luna"
    #expect(fired.value == 1)
  }

  @Test func anotherInstanceOnTheSameFileFiresObservers() throws {
    let folder = TemporaryDirectory()
    let observed = try Preferences(fileURL: folder.file("observed.sqlite"))
    let writer = try Preferences(fileURL: folder.file("observed.sqlite"))
    let fired = DispatchSemaphore(value: 0)
    _ = withObservationTracking {
      observed[name]
    } onChange: {
      fired.signal()
    }
    writer[name] = "Harry"
    #expect(fired.wait(timeout: .now() + 10) == .success)
    #expect(observed[name] == "Harry")
  }

  @Test func changesYieldTheCurrentValueThenEachChange() async throws {
    let (name, other) = (self.name, self.other)
    try await withinSeconds(30) {
      let preferences = Preferences.inMemory
      preferences[name] = "first"
      var iterator = preferences.changes(of: name).makeAsyncIterator()
      #expect(await iterator.next() == "first")
      preferences[other] = "ignored"
      preferences[name] = "second"
      #expect(await iterator.next() == "second")
      try preferences.remove(name)
      #expect(await iterator.next() == "")
    }
  }

  @Test func changesFromAnotherProcessReachAnAsyncSequence() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("shared.sqlite")
    let preferences = try Preferences(fileURL: url)
    let key = Preferences.Key<Int>("count", default: 0)
    let child = try ChildProcess(
      try executable("kura-testhelper"), ["prefs-await", url.path, "count", "3"],
      environment: folder.environment)
    child.waitForLine { $0 == "value 0" }
    preferences[key] = 3
    child.waitForLine { $0 == "value 3" }
    #expect(child.waitForExit() == 0)
  }

  @Test func anotherProcessFiresOnlyTheObservedKey() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("shared.sqlite")
    let preferences = try Preferences(fileURL: url)
    let child = try ChildProcess(
      try executable("kura-testhelper"), ["prefs-observe", url.path, "name", "other"],
      environment: folder.environment)
    child.waitForLine { $0 == "ready" }
    // The child has seen the change to the other key before the watched key changes; had that
    // change fired the watched key's tracking, the child would print `fired ` (empty) and exit.
    preferences[other] = "unrelated"
    child.waitForLine { $0 == "other unrelated" }
    preferences[name] = "Ron"
    child.waitForLine { $0.hasPrefix("fired") }
    #expect(child.waitForExit() == 0)
    #expect(child.outputLines.filter { $0.hasPrefix("fired") } == ["fired Ron"])
  }
}
