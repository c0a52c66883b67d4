import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

@testable import Kura

@Suite("kura defaults")
struct DefaultsCommandTests {
  let folder = TemporaryDirectory()

  func kura(_ arguments: String...) throws -> ProcessResult {
    try run(try executable("kura"), ["defaults"] + arguments, environment: folder.environment)
  }

  var home: String { folder.url.appendingPathComponent("kura-home").path }

  @Test func writeThenReadEachType() throws {
    #expect(try kura("write", "customers", "name", "高速 代金").status == 0)
    #expect(try kura("write", "customers", "count", "42", "--int").status == 0)
    #expect(try kura("write", "customers", "ratio", "2.5", "--double").status == 0)
    #expect(try kura("write", "customers", "on", "yes", "--bool").status == 0)
    #expect(try kura("write", "customers", "since", "2026-11-30T10:15:00Z", "--date").status == 0)
    #expect(try kura("write", "customers", "tags", #"{"a":[1,"b"]}"#, "--json").status == 0)
    #expect(try kura("write", "customers", "text", "7", "--string").status == 0)
    #expect(try kura("read", "customers", "count").stdout == "42\n")
    #expect(try kura("read", "customers", "tags").stdout == "{\"a\" = (1, \"b\")}\n")
    #expect(
      try kura("read", "customers").stdout
        == """
        count = 42
        name = 高速 代金
        on = true
        ratio = 2.5
        since = 2026-11-30T10:15:00Z
        tags = {"a" = (1, "b")}
        text = 7

        """)
    #expect(
      try kura("read", "customers", "--json").stdout
        == """
        {
          "count" : 42,
          "name" : "高速 代金",
          "on" : true,
          "ratio" : 2.5,
          "since" : "2026-11-30T10:15:00Z",
          "tags" : {
            "a" : [
              1,
              "b"
            ]
          },
          "text" : "7"
        }

        """)
    // The stored types are the typed ones: code reads them with typed keys.
    let preferences = try Preferences(suite: "customers", environment: folder.environment)
    #expect(preferences[Preferences.Key<Int>("count", default: 0)] == 42)
    #expect(preferences[Preferences.Key<Bool>("on", default: false)] == true)
    #expect(
      preferences[Preferences.Key<Date>("since", default: .distantPast)]
        == Date(timeIntervalSince1970: 1_796_033_700))
    #expect(preferences[Preferences.Key<String>("text", default: "")] == "7")
  }

  @Test func domainsListsAppAndGroupSuites() throws {
    #expect(try kura("domains").stdout == "")
    _ = try kura("write", "group.iOS17.M_Kaku", "fruits", "apple")
    _ = try kura("write", "customers", "basket", "eggs")
    #expect(try kura("domains").stdout == "customers\ngroup.iOS17.M_Kaku\n")
    #expect(
      try kura("domains", "--json").stdout
        == """
        [
          {
            "kind" : "app",
            "path" : "\(home)/apps/customers/Preferences/customers.sqlite",
            "suite" : "customers"
          },
          {
            "kind" : "group",
            "path" : "\(home)/groups/group.iOS17.M_Kaku/Preferences/group.iOS17.M_Kaku.sqlite",
            "suite" : "group.iOS17.M_Kaku"
          }
        ]

        """)
    #expect(
      try kura("read").stdout
        == "customers:\n  basket = eggs\ngroup.iOS17.M_Kaku:\n  fruits = apple\n")
    #expect(
      try kura("read", "--json").stdout
        == """
        {
          "customers" : {
            "basket" : "eggs"
          },
          "group.iOS17.M_Kaku" : {
            "fruits" : "apple"
          }
        }

        """)
  }

  @Test func deleteRemovesAKeyOrEveryKeyAndSaysWhat() throws {
    _ = try kura("write", "customers", "a", "1")
    _ = try kura("write", "customers", "b", "2")
    _ = try kura("write", "customers", "c", "3")
    let one = try kura("delete", "customers", "a")
    #expect(one.status == 0)
    #expect(one.stdout == "Removed `a` from `customers`.\n")
    #expect(try kura("read", "customers").stdout == "b = 2\nc = 3\n")
    // Every key of a suite: not without a question or --yes (standard input is a pipe here).
    let unasked = try kura("delete", "customers")
    #expect(unasked.status == 64)
    #expect(
      unasked.stderr
        == "kura: error: `kura defaults delete customers` would remove every key of the suite "
        + "(2 keys of `customers`) and standard input is not a terminal to ask: run `kura "
        + "defaults delete customers --yes`, or give the key to remove.\n"
        + "See `kura defaults delete --help`.\n")
    #expect(try kura("read", "customers").stdout == "b = 2\nc = 3\n")
    let all = try kura("delete", "customers", "--yes")
    #expect(all.status == 0)
    #expect(all.stdout == "Removed 2 keys of `customers`: b, c.\n")
    #expect(try kura("read", "customers").stdout == "")
    #expect(
      try kura("delete", "customers").stdout == "`customers` holds no keys; nothing was removed.\n")
    #expect(try kura("domains").stdout == "customers\n")
  }

  #if os(Linux)
    @Test func deletingEveryKeyAsksOnATerminal() throws {
      try #require(
        FileManager.default.isExecutableFile(atPath: "/usr/bin/script"),
        "script is not installed: run scripts/setup (apt-get install bsdutils)")
      _ = try kura("write", "customers", "a", "1")
      let path = try executable("kura").path
      func onTerminal(_ input: String) throws -> ProcessResult {
        try run(
          URL(fileURLWithPath: "/usr/bin/script"),
          ["-qec", "\(path) defaults delete customers", "/dev/null"],
          environment: folder.environment, input: input)
      }
      let declined = try onTerminal("n\n")
      #expect(declined.status == 1)
      #expect(declined.stdout.contains("Remove 1 key of `customers` (a)? [y/N] "))
      #expect(declined.stdout.contains("Nothing was removed."))
      #expect(try kura("read", "customers").stdout == "a = 1\n")
      let accepted = try onTerminal("y\n")
      #expect(accepted.status == 0)
      #expect(accepted.stdout.contains("Removed 1 key of `customers`: a."))
      #expect(try kura("read", "customers").stdout == "")
    }
  #endif

  @Test func readingEverySuiteShowsTheReadableOnesAndReportsTheOthers() throws {
    _ = try kura("write", "customers", "count", "1", "--int")
    let bad = "\(home)/apps/broken/Preferences/broken.sqlite"
    try FileManager.default.createDirectory(
      atPath: (bad as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data("not a database".utf8).write(to: URL(fileURLWithPath: bad))
    let result = try kura("read")
    #expect(result.status == 1)
    #expect(result.stdout == "customers:\n  count = 1\n")
    #expect(
      result.stderr
        == "kura: error: Can't open preferences `\(bad)`: file is not a database. Nothing was"
        + " changed; move the file away to start the suite afresh, or restore it from a backup.\n")
    #expect(try Data(contentsOf: URL(fileURLWithPath: bad)) == Data("not a database".utf8))
  }

  @Test func badInputGetsOneLineAndChangesNothing() throws {
    _ = try kura("write", "customers", "count", "1", "--int")
    let cases: [([String], String)] = [
      (
        ["write", "customers", "count", "4x", "--int"],
        "kura: error: Can't read `4x` as an integer: expected a whole number such as 42.\n"
      ),
      (
        ["write", "customers", "count", "maybe", "--bool"],
        "kura: error: Can't read `maybe` as a bool: expected true, false, yes, no, 1 or 0.\n"
      ),
      (
        ["write", "customers", "count", "[1,", "--json"],
        "kura: error: Can't read `[1,` as JSON: expected JSON such as {\"a\": [1, 2]}.\n"
      ),
      (
        ["write", "customers", "count", "[1, null]", "--json"],
        "kura: error: Can't read `[1, null]` as JSON: null is not a value; leave it out or give a"
          + " value instead.\n"
      ),
      (
        ["write", "customers", "count", "tomorrow", "--date"],
        "kura: error: Can't read `tomorrow` as a date: expected an ISO 8601 date such as "
          + "2026-11-30T10:15:00Z.\n"
      ),
      (
        ["write", "customers", "count", "x", "--double"],
        "kura: error: Can't read `x` as a double: expected a number such as 2.5.\n"
      ),
      (
        ["read", "nosuch"],
        "kura: error: Can't find suite `nosuch`: no file at "
          + "`\(home)/apps/nosuch/Preferences/nosuch.sqlite`. "
          + "Check the name with `kura defaults domains`, or write a value to create it.\n"
      ),
      (
        ["read", "customers", "missing"],
        "kura: error: Can't find key `missing` in suite `customers`: it holds no value. "
          + "List the keys with `kura defaults read customers`.\n"
      ),
      (
        ["delete", "customers", "missing"],
        "kura: error: Can't find key `missing` in suite `customers`: it holds no value. "
          + "List the keys with `kura defaults read customers`.\n"
      ),
      (
        ["delete", "group.nosuch"],
        "kura: error: Can't find suite `group.nosuch`: no file at "
          + "`\(home)/groups/group.nosuch/Preferences/group.nosuch.sqlite`. "
          + "Check the name with `kura defaults domains`, or write a value to create it.\n"
      ),
      (
        ["write", "bad/suite", "k", "v"],
        "kura: error: Can't use suite name `bad/suite`: it contains `/`. Use an app identifier "
          + "such as `com.example.app` or an App Group identifier such as `group.com.example`.\n"
      ),
      (
        ["watch", "nosuch"],
        "kura: error: Can't find suite `nosuch`: no file at "
          + "`\(home)/apps/nosuch/Preferences/nosuch.sqlite`. "
          + "Check the name with `kura defaults domains`, or write a value to create it.\n"
      ),
    ]
    for (arguments, message) in cases {
      let result = try run(
        try executable("kura"), ["defaults"] + arguments, environment: folder.environment)
      // A value that doesn't read as the type asked for, or a refused suite name, is a usage
      // error (64, with the hint).
      let isBadValue =
        message.hasPrefix("kura: error: Can't read `")
        || message.hasPrefix("kura: error: Can't use suite name")
      #expect(result.status == (isBadValue ? 64 : 1), "\(arguments)")
      #expect(
        result.stderr
          == (isBadValue ? message + "See `kura defaults write --help`.\n" : message))
      #expect(result.stdout == "")
    }
    let both = try kura("write", "customers", "count", "2", "--int", "--bool")
    #expect(both.status == 64)
    #expect(
      both.stderr
        == "kura: error: Give one type flag, not `--int` and `--bool`.\n"
        + "See `kura defaults write --help`.\n")
    let emptyKey = try kura("write", "customers", "", "x")
    #expect(emptyKey.status == 64)
    #expect(
      emptyKey.stderr
        == "kura: error: The key is empty: give the name of the key to write, such as `fruits`.\n"
        + "See `kura defaults write --help`.\n")
    #expect(try kura("read", "customers", "count").stdout == "1\n")
    #expect(try kura("domains").stdout == "customers\n")
  }

  @Test func watchPrintsChangesFromAnyProcessUntilInterrupted() throws {
    _ = try kura("write", "group.iOS17.M_Kaku", "fruits", "apple")
    let watcher = try ChildProcess(
      try executable("kura"), ["defaults", "watch", "group.iOS17.M_Kaku"],
      environment: folder.environment)
    watcher.waitForLine(onStandardError: true) { $0.hasPrefix("Watching") }
    _ = try kura("write", "group.iOS17.M_Kaku", "fruits", "banana")
    watcher.waitForLine { $0 == "fruits = banana" }
    let shared = try Preferences(suite: "group.iOS17.M_Kaku", environment: folder.environment)
    try shared.remove(Preferences.Key<String>("fruits", default: ""))
    watcher.waitForLine { $0 == "fruits removed" }
    watcher.send(SIGINT)
    #expect(watcher.waitForExit() == 0)
    #expect(watcher.outputLines == ["fruits = banana", "fruits removed"])
  }

  @Test func watchOneKeyAsJSON() throws {
    _ = try kura("write", "customers", "count", "1", "--int")
    let watcher = try ChildProcess(
      try executable("kura"), ["defaults", "watch", "customers", "count", "--json"],
      environment: folder.environment)
    watcher.waitForLine(onStandardError: true) { $0.hasPrefix("Watching") }
    _ = try kura("write", "customers", "other", "x")
    _ = try kura("write", "customers", "count", "2", "--int")
    watcher.waitForLine { $0 == #"{"key":"count","value":2}"# }
    watcher.send(SIGINT)
    #expect(watcher.waitForExit() == 0)
    #expect(watcher.outputLines == [#"{"key":"count","value":2}"#])
  }
}
