import Foundation
import KuraTestSupport
import Testing

@testable import Kura

extension Preferences.Key {
  fileprivate static var launchCount: Preferences.Key<Int> { .init("launchCount", default: 0) }
  fileprivate static var sortOption: Preferences.Key<FixtureSort> {
    .init("sortOption", default: .title)
  }
}

/// A type using the property wrapper.
private struct WrappedSettings {
  @Preference var sortOption: FixtureSort
  @Preference var launchCount: Int
  let store: Preferences
  init(store: Preferences) {
    self.store = store
    _sortOption = Preference(.sortOption, store: store)
    _launchCount = Preference(.launchCount, store: store)
  }
}

@Suite("Preferences")
struct PreferencesTests {
  @Test func subscriptReadsDefaultsThenStoredValues() throws {
    let preferences = Preferences.inMemory
    #expect(preferences[.launchCount] == 0)
    preferences[.launchCount] += 2
    #expect(preferences[.launchCount] == 2)
    #expect(preferences.lastWriteError == nil)
    try preferences.remove(.launchCount)
    #expect(preferences[.launchCount] == 0)
    #expect(!preferences.contains(.launchCount))
  }

  @Test func registeredDefaultsComeBetweenStoredValuesAndKeyDefaults() throws {
    let preferences = Preferences.inMemory
    preferences.registerDefaults(["launchCount": 10, "sortOption": "date"])
    #expect(preferences[.launchCount] == 10)
    #expect(preferences[.sortOption] == .date)
    #expect(!preferences.contains(.launchCount))
    preferences[.launchCount] = 3
    #expect(preferences[.launchCount] == 3)
    #expect(preferences.dictionaryRepresentation() == ["launchCount": 3])
  }

  @Test func batchWritesAllOrNothing() throws {
    let folder = TemporaryDirectory()
    let preferences = try Preferences(fileURL: folder.file("batch.sqlite"))
    struct Stop: Error {}
    #expect(throws: Stop.self) {
      try preferences.batch { batch in
        batch[.launchCount] = 5
        batch[.sortOption] = .date
        throw Stop()
      }
    }
    #expect(preferences[.launchCount] == 0)
    #expect(preferences.keys == [])
    try preferences.batch { batch in
      batch[.launchCount] = 5
      batch[.sortOption] = .date
      batch[.launchCount] = batch[.launchCount] + 1
    }
    let reopened = try Preferences(fileURL: folder.file("batch.sqlite"))
    #expect(reopened[.launchCount] == 6)
    #expect(reopened[.sortOption] == .date)
  }

  @Test func updateReturnsTheNewValue() throws {
    let preferences = Preferences.inMemory
    #expect(try preferences.update(.launchCount) { $0 + 1 } == 1)
    #expect(try preferences.update(.launchCount) { $0 * 10 } == 10)
    #expect(preferences[.launchCount] == 10)
  }

  @Test func updateNeverReplacesAValueThatDoesNotDecode() throws {
    let preferences = Preferences.inMemory
    try preferences.setValue(.string("seven"), forKey: "launchCount")
    #expect(preferences[.launchCount] == 0)
    #expect(
      throws: PreferencesError.undecodableValue(
        key: "launchCount", suite: "inMemory", storedType: "string", expectedType: "Int")
    ) {
      try preferences.update(.launchCount) { $0 + 1 }
    }
    #expect(preferences.value(forKey: "launchCount") == .string("seven"))
    #expect(
      "\(PreferencesError.undecodableValue(key: "k", suite: "app", storedType: "string", expectedType: "Int"))"
        == "Can't update key `k` in suite `app`: its stored value (string) can't be read as `Int`. Nothing"
        + " was changed; look at it with `kura defaults read app k`, then remove it"
        + " (`kura defaults delete app k`) or set a new value.")
    // With no value stored, the update starts from the default as before.
    try preferences.remove(.launchCount)
    #expect(try preferences.update(.launchCount) { $0 + 1 } == 1)
  }

  @Test func resetRemovesEveryKey() throws {
    let folder = TemporaryDirectory()
    let preferences = try Preferences(fileURL: folder.file("reset.sqlite"))
    preferences[.launchCount] = 1
    preferences[.sortOption] = .completion
    #expect(preferences.keys == ["launchCount", "sortOption"])
    try preferences.reset()
    #expect(preferences.keys == [])
    #expect(try Preferences(fileURL: folder.file("reset.sqlite")).keys == [])
  }

  @Test func propertyWrapperReadsAndWrites() throws {
    let store = Preferences.inMemory
    let settings = WrappedSettings(store: store)
    settings.sortOption = .completion
    settings.launchCount += 1
    #expect(store[.sortOption] == .completion)
    #expect(store[.launchCount] == 1)
    #expect(settings.$sortOption.key.name == "sortOption")
  }

  @Test func suitesLiveWhereLocationsSay() throws {
    let folder = TemporaryDirectory()
    let environment = folder.environment
    let home = folder.url.appendingPathComponent("kura-home").path
    #expect(
      try Preferences.fileURL(forSuite: "group.iOS17.M_Kaku", environment: environment).path
        == home + "/groups/group.iOS17.M_Kaku/Preferences/group.iOS17.M_Kaku.sqlite")
    #expect(
      try Preferences.fileURL(forSuite: "customers", environment: environment).path
        == home + "/apps/customers/Preferences/customers.sqlite")
    let shared = try Preferences(suite: "group.iOS17.M_Kaku", environment: environment)
    shared[.launchCount] = 4
    let app = try Preferences(locations: Locations.app("customers", environment: environment))
    app[.launchCount] = 1
    #expect(
      Preferences.suiteNames(environment: environment) == ["customers", "group.iOS17.M_Kaku"])
    #expect(
      try Preferences.existing(suite: "group.iOS17.M_Kaku", environment: environment)[.launchCount]
        == 4)
  }

  @Test func badSuiteNamesAreRejectedWithTheirReason() throws {
    let environment = TemporaryDirectory().environment
    #expect(throws: PreferencesError.invalidSuiteName(suite: "a/b", reason: "it contains `/`")) {
      try Preferences(suite: "a/b", environment: environment)
    }
    #expect(throws: PreferencesError.invalidSuiteName(suite: "group.", reason: "it names no group"))
    {
      try Preferences(suite: "group.", environment: environment)
    }
    #expect(throws: PreferencesError.invalidSuiteName(suite: "", reason: "it is empty")) {
      try Preferences(suite: "", environment: environment)
    }
    #expect(
      PreferencesError.invalidSuiteName(suite: "a/b", reason: "it contains `/`").description
        == "Can't use suite name `a/b`: it contains `/`. Use an app identifier such as "
        + "`com.example.app` or an App Group identifier such as `group.com.example`.")
  }

  @Test func anExistingSuiteMustHaveAFile() throws {
    let folder = TemporaryDirectory()
    let path = folder.url.path + "/kura-home/apps/nothing/Preferences/nothing.sqlite"
    #expect(throws: PreferencesError.suiteNotFound(suite: "nothing", path: path)) {
      try Preferences.existing(suite: "nothing", environment: folder.environment)
    }
    #expect(!FileManager.default.fileExists(atPath: path))
  }

  @Test func aFileThatIsNotADatabaseIsReported() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("garbage.sqlite")
    try Data(repeating: 7, count: 4096).write(to: url)
    #expect(
      throws: PreferencesError.cannotOpen(path: url.path, reason: "file is not a database")
    ) {
      try Preferences(fileURL: url)
    }
    // The advice fits the problem: permissions don't make a file SQLite.
    #expect(
      "\(PreferencesError.cannotOpen(path: url.path, reason: "file is not a database"))"
        == "Can't open preferences `\(url.path)`: file is not a database. Nothing was changed;"
        + " move the file away to start the suite afresh, or restore it from a backup.")
    #expect(try Data(contentsOf: url) == Data(repeating: 7, count: 4096))
  }

  @Test func anotherProgramsDatabaseIsRefusedAndLeftAsItWas() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("other.sqlite")
    do {
      let other = try Connection(path: url.path)
      try other.execute("CREATE TABLE invoice (id INTEGER PRIMARY KEY); CREATE TABLE customer (id)")
      try other.execute("INSERT INTO invoice VALUES (7); INSERT INTO customer VALUES ('kept')")
    }
    let before = try Data(contentsOf: url)
    let namesBefore = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    let reason =
      "it is another program's SQLite database (tables `customer`, `invoice`), not a preferences"
      + " suite"
    #expect(throws: PreferencesError.cannotOpen(path: url.path, reason: reason)) {
      try Preferences(fileURL: url)
    }
    #expect(
      "\(PreferencesError.cannotOpen(path: url.path, reason: reason))"
        == "Can't open preferences `\(url.path)`: \(reason). Nothing was changed; use another suite"
        + " name, or move the file away.")
    // The file is byte for byte as the other program left it, and no file was added beside it.
    #expect(try Data(contentsOf: url) == before)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == namesBefore)
  }

  @Test func secondInstanceSeesWritesWithoutReopening() throws {
    let folder = TemporaryDirectory()
    let first = try Preferences(fileURL: folder.file("two.sqlite"))
    let second = try Preferences(fileURL: folder.file("two.sqlite"))
    #expect(second[.launchCount] == 0)
    first[.launchCount] = 9
    #expect(second[.launchCount] == 9)
    try first.remove(.launchCount)
    #expect(second[.launchCount] == 0)
    #expect(second.keys == [])
  }

  @Test func concurrentUpdatesFromThreadsAndInstancesLoseNothing() async throws {
    let folder = TemporaryDirectory()
    let url = folder.file("threads.sqlite")
    let first = try Preferences(fileURL: url)
    let second = try Preferences(fileURL: url)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<4 {
        let preferences = index.isMultiple(of: 2) ? first : second
        group.addTask {
          for _ in 0..<50 { try preferences.update(.launchCount) { $0 + 1 } }
        }
      }
      try await group.waitForAll()
    }
    #expect(first[.launchCount] == 200)
    #expect(second[.launchCount] == 200)
  }

  @Test func aDictionaryOfMixedValuesIsSharedBetweenScreens() throws {
    // Seed §5: a [String: Any] dictionary edited by two screens; here typed, and shared by two
    // instances of the suite (two screens, or an app and its extension).
    let folder = TemporaryDirectory()
    let environment = folder.environment
    let dictionary = Preferences.Key<[String: PreferenceValue]>("my_dict", default: [:])
    let firstScreen = try Preferences(suite: "group.example.dictionary", environment: environment)
    let secondScreen = try Preferences(suite: "group.example.dictionary", environment: environment)
    let firstID = UUID().uuidString
    let secondID = UUID().uuidString
    try firstScreen.update(dictionary) { $0.merging([firstID: "FirstView"]) { $1 } }
    try secondScreen.update(dictionary) { $0.merging([secondID: "SecondView"]) { $1 } }
    #expect(firstScreen[dictionary] == [firstID: "FirstView", secondID: "SecondView"])
    firstScreen[dictionary] = [:]
    #expect(secondScreen[dictionary] == [:])
  }
}
