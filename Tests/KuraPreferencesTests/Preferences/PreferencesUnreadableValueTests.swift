import Foundation
import KuraTestSupport
import Testing

@testable import Kura

extension Preferences.Key {
  fileprivate static var names: Preferences.Key<[String]> { .init("names", default: []) }
}

/// Stores a row this version can't read, as a newer version (or a cut write) would leave it.
private func storeRaw(_ url: URL, key: String, type: String, value: DatabaseValue) throws {
  let connection = try Connection(path: url.path)
  try connection.run(
    """
    INSERT INTO kura_preference (key, type, value, version)
    VALUES (?, ?, ?, (SELECT coalesce(max(version), 0) + 1 FROM kura_preference))
    ON CONFLICT (key) DO UPDATE SET type = excluded.type, value = excluded.value,
      version = excluded.version
    """, [.text(key), .text(type), value])
}

@Suite("Preference values this version can't read")
struct PreferencesUnreadableValueTests {
  @Test(arguments: [
    (
      "futuretype9", DatabaseValue.text("{\"z\":1}"), "`futuretype9` is a type this version of Kura"
    ),
    (
      "array", DatabaseValue.text("{\"a\":[{\"s\":\"Ta"),
      "its stored array value can't be read back"
    ),
  ])
  func noWritePathThatReadsFirstReplacesIt(type: String, value: DatabaseValue, reason: String)
    throws
  {
    let folder = TemporaryDirectory()
    let url = folder.file("app.sqlite")
    let preferences = try Preferences(fileURL: url, suiteName: "app")
    preferences[.names] = ["kept"]
    try storeRaw(url, key: "names", type: type, value: value)
    // (The raw write bumps no change signal, so the first instance's in-memory copy is stale;
    // its writes read the file and are checked below.)
    let reader = try Preferences(fileURL: url, suiteName: "app")
    do {
      let suite = reader
      // Reads that can't throw give the default; the ones that can report it.
      #expect(suite[.names] == [])
      #expect(suite.value(forKey: "names") == nil)
      #expect(suite.contains(.names))
      #expect(suite.unreadableKeys == ["names"])
      #expect {
        try suite.storedValue(forKey: "names")
      } throws: { error in
        guard let error = error as? PreferencesError, error.code == .unreadableValue,
          error.key == "names", error.suite == "app", error.storedType == type,
          let why = error.reason
        else { return false }
        return why.hasPrefix(reason)
      }
    }
    for suite in [preferences, reader] {
      #expect(throws: PreferencesError.self) { try suite.update(.names) { $0 + ["new"] } }
      #expect(throws: PreferencesError.self) {
        try suite.batch { batch in batch[.names] = batch[.names] + ["new"] }
      }
      #expect(throws: PreferencesError.self) {
        try suite.batch { batch in _ = try batch.storedValue(forKey: "names") }
      }
    }
    let connection = try Connection(path: url.path)
    let stored = try connection.queryFirst(
      "SELECT type, value FROM kura_preference WHERE key = 'names'"
    ) { ($0.string(at: 0), $0.value(at: 1)) }
    #expect(stored?.0 == type && stored?.1 == value)
    // Replacing it outright (no read first) or removing it is still possible.
    try reader.remove(.names)
    #expect(!reader.contains(.names) && reader.unreadableKeys == [])
  }

  @Test func theMessageSaysWhatToDo() {
    let error = PreferencesError.unreadableValue(
      key: "k", suite: "app", storedType: "futuretype9",
      reason: "`futuretype9` is a type this version of Kura does not know (written by a newer one?)"
    )
    #expect(
      error.description
        == "Can't read key `k` in suite `app`: `futuretype9` is a type this version of Kura does"
        + " not know (written by a newer one?). Nothing was changed; remove it"
        + " (`kura defaults delete app k`) or set a new value, or use the version of the app that"
        + " wrote it.")
  }

  @Test func theToolsReportItAndRefuseToReplaceIt() throws {
    let folder = TemporaryDirectory()
    let environment = folder.environment
    let customers = try executable("customers")
    let kura = try executable("kura")
    #expect(try run(customers, ["add", "12", "Taro"], environment: environment).status == 0)
    let url = try Preferences.fileURL(forSuite: "customers", environment: environment)
    try storeRaw(url, key: "顧客情報保存", type: "futuretype9", value: .text("?"))

    let read = try run(kura, ["defaults", "read", "customers", "顧客情報保存"], environment: environment)
    #expect(read.status == 1)
    #expect(read.stdout == "")
    #expect(
      read.stderr
        == "kura: error: Can't read key `顧客情報保存` in suite `customers`: `futuretype9` is a type"
        + " this version of Kura does not know (written by a newer one?). Nothing was changed;"
        + " remove it (`kura defaults delete customers 顧客情報保存`) or set a new value, or use the"
        + " version of the app that wrote it.\n")
    let all = try run(kura, ["defaults", "read", "customers"], environment: environment)
    #expect(all.status == 1)
    #expect(all.stderr.contains("`futuretype9` is a type this version of Kura does not know"))

    let list = try run(customers, ["list"], environment: environment)
    #expect(list.status == 1)
    #expect(!list.stdout.contains("No customers yet"))
    #expect(list.stderr.contains("`futuretype9` is a type this version of Kura does not know"))
    let add = try run(customers, ["add", "99", "Probe"], environment: environment)
    #expect(add.status == 1)
    #expect(add.stdout == "")
    let connection = try Connection(path: url.path)
    #expect(
      try connection.queryFirst("SELECT type FROM kura_preference WHERE key = '顧客情報保存'") {
        $0.string(at: 0)
      } == "futuretype9")
    #expect(
      try run(kura, ["defaults", "delete", "customers", "顧客情報保存"], environment: environment)
        .status == 0)
    #expect(try run(customers, ["list"], environment: environment).stdout.hasPrefix("No customers"))
  }

  @Test func watchDoesNotShowAnUnreadableValueAsRemoved() throws {
    let folder = TemporaryDirectory()
    let environment = folder.environment
    let kura = try executable("kura")
    #expect(
      try run(kura, ["defaults", "write", "app", "a", "1"], environment: environment).status == 0)
    let watcher = try ChildProcess(kura, ["defaults", "watch", "app"], environment: environment)
    watcher.waitForLine(onStandardError: true) { $0.hasPrefix("Watching") }
    let url = try Preferences.fileURL(forSuite: "app", environment: environment)
    try storeRaw(url, key: "a", type: "futuretype9", value: .text("?"))
    // The raw write bumps no change signal; this one does, and the watcher reads both rows.
    #expect(
      try run(kura, ["defaults", "write", "app", "b", "2"], environment: environment).status == 0)
    watcher.waitForLine { $0 == "b = 2" }
    watcher.waitForLine(onStandardError: true) {
      $0.hasPrefix("kura: warning: Can't read key `a` in suite `app`: `futuretype9` is a type")
    }
    watcher.send(SIGINT)
    #expect(watcher.waitForExit() == 0)
    #expect(watcher.outputLines == ["b = 2"])
  }
}
