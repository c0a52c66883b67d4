import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import TerminalUI
import Testing

@testable import Kura
@testable import KuraCLI

/// Stored text holding escape sequences, control characters and bidi overrides: every
/// line-mode output shows it escaped; `--json` keeps it exact.
@Suite("Hostile stored text")
struct HostileTextTests {
  let folder = TemporaryDirectory()

  /// A colour change, a window title, a carriage return, a backspace, a bidi override and a C1
  /// control (CSI), between letters so no command trims them away.
  static let hostile = "A\u{1B}[31mB\u{1B}]0;pwned\u{07}C\rD\u{08}E\u{202E}F\u{9B}2JG"
  /// How every text output shows it.
  static let shown = #"A\u{1B}[31mB\u{1B}]0;pwned\u{07}C\u{0D}D\u{08}E\u{202E}F\u{9B}2JG"#

  func tool(_ name: String, _ arguments: String..., store: TestStore? = nil) throws
    -> ProcessResult
  {
    let result = try run(
      try executable(name), arguments, environment: store?.environment ?? folder.environment)
    #expect(result.status == 0, "\(name) \(arguments): \(result.stderr)")
    return result
  }

  /// Output that holds no character able to drive a terminal (line feeds aside).
  func expectSafe(_ output: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let unsafe = output.unicodeScalars.filter { $0 != "\n" && VisibleText.needsEscape($0) }
    #expect(unsafe.isEmpty, "raw control characters in: \(output)", sourceLocation: sourceLocation)
  }

  @Test func escapingMakesEveryControlVisibleAndKeepsTheRest() {
    #expect(visible(Self.hostile) == Self.shown)
    #expect(visible("高速代金 🍣 café") == "高速代金 🍣 café")
    #expect(visible("a\tb\nc\u{7F}\u{2066}") == #"a\u{09}b\u{0A}c\u{7F}\u{2066}"#)
    #expect(visibleLines("one\u{1B}\ntwo") == "one\\u{1B}\ntwo")
  }

  @Test func warikanAddAndListShowTheMemoEscaped() throws {
    let added = try tool("warikan", "add", "2800", Self.hostile)
    expectSafe(added.stdout)
    #expect(added.stdout.contains("¥2,800 \(Self.shown) at "))
    let list = try tool("warikan", "list")
    expectSafe(list.stdout)
    #expect(list.stdout.contains("  \(Self.shown)\n"))
    let deleted = try tool("warikan", "delete", "1")
    expectSafe(deleted.stdout)
    #expect(deleted.stdout.contains(Self.shown))
  }

  @Test func warikanListJSONKeepsTheExactMemo() throws {
    _ = try tool("warikan", "add", "100", Self.hostile)
    let json = try tool("warikan", "list", "--json").stdout
    struct Entry: Decodable { var memo: String }
    let entries = try JSONDecoder().decode([Entry].self, from: Data(json.utf8))
    #expect(entries.map(\.memo) == [Self.hostile])
  }

  @Test func customersAddListAndDeleteShowTheNameEscaped() throws {
    let added = try tool("customers", "add", "12", Self.hostile)
    expectSafe(added.stdout)
    #expect(added.stdout == "Added No.12: \(Self.shown)\n")
    let list = try tool("customers", "list")
    #expect(list.stdout == "1  No.12: \(Self.shown)\n")
    let json = try tool("customers", "list", "--json").stdout
    #expect(json.contains(#""customerName" : "A\u001b[31mB"#))
    let fields = try tool("customers", "fields", "set", "basket", Self.hostile)
    #expect(fields.stdout == "basket = \(Self.shown)\n")
    let shownFields = try tool("customers", "fields")
    expectSafe(shownFields.stdout)
    #expect(shownFields.stdout.contains("basket = \(Self.shown)  "))
    let deleted = try tool("customers", "delete", "1")
    #expect(deleted.stdout == "Deleted No.12: \(Self.shown)\n")
  }

  @Test func kuraDefaultsReadShowsKeysAndValuesEscaped() throws {
    _ = try tool("kura", "defaults", "write", "customers", "memo", Self.hostile)
    _ = try tool("kura", "defaults", "write", "customers", "k\u{1B}[2J", "x")
    let one = try tool("kura", "defaults", "read", "customers", "memo")
    #expect(one.stdout == Self.shown + "\n")
    let suite = try tool("kura", "defaults", "read", "customers")
    #expect(suite.stdout == "k\\u{1B}[2J = x\nmemo = \(Self.shown)\n")
    let all = try tool("kura", "defaults", "read")
    #expect(all.stdout == "customers:\n  k\\u{1B}[2J = x\n  memo = \(Self.shown)\n")
    let json = try tool("kura", "defaults", "read", "customers", "memo", "--json").stdout
    #expect(try JSONDecoder().decode(String.self, from: Data(json.utf8)) == Self.hostile)
  }

  @Test func kuraDefaultsWatchShowsChangesEscaped() throws {
    _ = try tool("kura", "defaults", "write", "customers", "memo", "plain")
    let watcher = try ChildProcess(
      try executable("kura"), ["defaults", "watch", "customers"], environment: folder.environment)
    watcher.waitForLine(onStandardError: true) { $0.hasPrefix("Watching") }
    _ = try tool("kura", "defaults", "write", "customers", "memo", Self.hostile)
    watcher.waitForLine { $0.hasPrefix("memo = ") }
    watcher.send(SIGINT)
    #expect(watcher.waitForExit() == 0)
    #expect(watcher.outputLines == ["memo = \(Self.shown)"])
  }

  @Test(arguments: TestEngine.enabled)
  func kuraStoreDumpShowsValuesEscaped(_ engine: TestEngine) throws {
    let store = try studentsStore(engine)
    _ = try tool("students", "add", "--name", Self.hostile, store: store)
    let dump = try tool("kura", "store", "dump", store.argument, "Student", store: store)
    expectSafe(dump.stdout.replacingOccurrences(of: "\t", with: " "))
    // Dump writes tab, line feed, carriage return and backslash its own way (\t \n \r \\).
    let shown = Self.shown.replacingOccurrences(of: #"\u{0D}"#, with: #"\r"#)
    #expect(dump.stdout.contains("\t\(shown)\t") || dump.stdout.contains("\t\(shown)\n"))
  }

  @Test(arguments: TestEngine.enabled)
  func studentsShowNamesEscaped(_ engine: TestEngine) throws {
    let store = try studentsStore(engine)
    let added = try tool("students", "add", "--name", Self.hostile, store: store)
    #expect(added.stdout == "Added \(Self.shown).\n")
    #expect(try tool("students", "list", store: store).stdout == Self.shown + "\n")
    #expect(
      try tool("students", "delete-last", store: store).stdout == "Deleted \(Self.shown).\n")
  }

  @Test(arguments: TestEngine.enabled)
  func wishlistShowsTripAndActivityNamesEscaped(_ engine: TestEngine) throws {
    let store = try wishlistStore(engine)
    let trip = try tool("wishlist", "trip", "add", Self.hostile, store: store)
    expectSafe(trip.stdout)
    #expect(trip.stdout.hasPrefix("Added trip \(Self.shown) ("))
    let id = String(trip.stdout.split(separator: "(").last?.prefix(8) ?? "")
    let activity = try tool("wishlist", "activity", "add", id, "X\u{1B}[1mY", store: store)
    #expect(activity.stdout == "Added X\\u{1B}[1mY to \(Self.shown).\n")
    for arguments in [
      ["trip", "list"], ["recent"], ["activity", "list", id], ["search", "pwned"],
      ["activity", "done", id, "X\u{1B}[1mY"],
    ] {
      let result = try run(try executable("wishlist"), arguments, environment: store.environment)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      expectSafe(result.stdout)
      #expect(result.stdout.contains(Self.shown) || result.stdout.contains("X\\u{1B}[1mY"))
    }
    let missing = try run(
      try executable("wishlist"), ["trip", "delete", "\u{1B}[2Jnope"],
      environment: store.environment)
    #expect(missing.status == 1)
    expectSafe(missing.stderr)
    #expect(missing.stderr.contains("`\\u{1B}[2Jnope`"))
  }

  /// The issue's string: a colour change, a bidi override, and the invisible and line-breaking
  /// characters that used to pass through raw (U+200B, U+FEFF, U+2028, U+2029).
  static let sneaky = "\u{1B}[31mRED\u{202E}abc\u{200B}d\u{FEFF}e\u{2028}f\u{2029}g"
  static let sneakyShown = #"\u{1B}[31mRED\u{202E}abc\u{200B}d\u{FEFF}e\u{2028}f\u{2029}g"#

  @Test func theInvisibleAndLineBreakingCharactersAreEscapedToo() {
    #expect(visible(Self.sneaky) == Self.sneakyShown)
    // Emoji sequences keep their joiner (U+200D).
    #expect(visible("👩\u{200D}💻") == "👩\u{200D}💻")
  }

  /// Every command that echoes what it was given, or what is stored, with the issue's string:
  /// nothing reaches the terminal raw, on standard output or standard error, whether the
  /// command accepts the input or refuses it.
  @Test func everyCommandThatEchoesInputEscapesIt() throws {
    let e = Self.sneaky
    // A scene file of that name, made by hand (no Kura call accepts the name any more).
    let scenes = folder.url.appendingPathComponent("kura-home/apps/customers/Scenes")
    try FileManager.default.createDirectory(at: scenes, withIntermediateDirectories: true)
    try Preferences(fileURL: scenes.appendingPathComponent(e + ".sqlite"))
      .setValue(.string("Ramen"), forKey: "menu")
    // A key and value of that text (`write` prints nothing: the commands below show them).
    _ = try tool("kura", "defaults", "write", "customers", e, e)
    let storeFolder = folder.url.appendingPathComponent("stores")
    try FileManager.default.createDirectory(at: storeFolder, withIntermediateDirectories: true)
    let store = storeFolder.appendingPathComponent("students.sqlite").path
    // A store file of that name is refused (the rule of every name Kura turns into a file).
    let namedStore = storeFolder.appendingPathComponent(e + ".sqlite").path
    let commands: [(tool: String, arguments: [String], succeeds: Bool)] = [
      ("customers", ["add", "1", e], true),
      ("customers", ["list"], true),
      ("customers", ["fields", "set", "basket", e], true),
      ("customers", ["fields"], true),
      ("customers", ["fields", "scenes"], true),
      ("customers", ["fields", "--scene", e], false),
      ("customers", ["fields", "set", "menu", "x", "--scene", e], false),
      ("customers", ["fields", "discard-scene", "--scene", e], false),
      ("customers", ["dictionary", "--group", "group." + e], false),
      ("customers", ["delete", "1"], true),
      ("kura", ["paths", "--app", e], false),
      ("kura", ["paths", "--group", "group." + e], false),
      ("kura", ["defaults", "read", "customers", e], true),
      ("kura", ["defaults", "read", "customers"], true),
      ("kura", ["defaults", "read", e], false),
      ("kura", ["defaults", "watch", e], false),
      ("kura", ["defaults", "delete", "customers", e], true),
      ("kura", ["defaults", "write", e, "k", "v"], false),
      ("students", ["add", "--name", e, "--store", store], true),
      ("students", ["list", "--store", store], true),
      ("students", ["path", "--store", namedStore], true),
      ("students", ["add", "--store", namedStore], false),
      ("wishlist", ["trip", "add", "Kyoto", "--store", namedStore], false),
      ("kura", ["store", "info", namedStore], false),
      ("students", ["delete-last", "--store", store], true),
      ("wishlist", ["trip", "add", e], true),
      ("wishlist", ["activity", "add", e, e], true),
      ("wishlist", ["activity", "list", e], true),
      ("wishlist", ["activity", "done", e, e], true),
      ("wishlist", ["trip", "list"], true),
      ("wishlist", ["recent"], true),
      ("wishlist", ["search", e], true),
      ("wishlist", ["activity", "rename", e, e, e + "2"], true),
      ("wishlist", ["activity", "delete", e, e + "2"], true),
      ("wishlist", ["trip", "delete", e + "x"], false),
      ("wishlist", ["trip", "rename", e, e + "2"], true),
      ("wishlist", ["trip", "delete", e + "2"], true),
      ("warikan", ["add", "100", e], true),
      ("warikan", ["list"], true),
      ("warikan", ["delete", "1"], true),
    ]
    for command in commands {
      let result = try run(
        try executable(command.tool), command.arguments, environment: folder.environment)
      let label = "\(command.tool) \(command.arguments)"
      // A refusal may be a usage error (64) or another failure (1): either is not 0.
      #expect((result.status == 0) == command.succeeds, "\(label): \(result.stderr)")
      expectSafe(result.stdout + result.stderr)
      let output = result.stdout + result.stderr
      // Each echoes the string (the scene listing, its file name); `recent` and `trip list`
      // show the trip's name, `search` the activity's.
      #expect(
        output.contains(#"\u{1B}[31mRED\u{202E}abc"#) && output.contains(#"\u{2028}f\u{2029}g"#),
        "\(label) did not echo the string escaped: \(output)")
    }
  }
}
