import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing
import WarikanKit

/// Runs the built `warikan` with a test folder's environment.
private func warikan(
  _ arguments: [String], _ folder: TemporaryDirectory, input: String? = nil,
  timeZone: String = "UTC"
) throws -> ProcessResult {
  var environment = folder.environment
  environment["TZ"] = timeZone
  return try run(try executable("warikan"), arguments, environment: environment, input: input)
}

/// The entries in the test folder's `cashData.json`, oldest first.
private func savedEntries(_ folder: TemporaryDirectory) throws -> [CashData] {
  try JSONDecoder().decode([CashData].self, from: Data(contentsOf: cashDataURL(folder)))
}

@Suite("warikan end to end")
struct WarikanCommandTests {
  /// `list`, `total` and `split` only read: on a fresh install they create no folder, lock file
  /// or journal; on a bill they change no byte; on a damaged file they report it and move
  /// nothing aside (only `warikan recover` does).
  @Test func readingCommandsLeaveTheFileTreeAsTheyFoundIt() throws {
    let folder = TemporaryDirectory()
    let reads = [["list"], ["list", "--json"], ["total"], ["total", "--json"], ["split", "3"]]
    func unchanged(_ expectedStatus: Int32) throws {
      for arguments in reads {
        let before = try fileTree(folder.url)
        let result = try warikan(arguments, folder)
        #expect(result.status == expectedStatus, "\(arguments): \(result.stderr)")
        #expect(try fileTree(folder.url) == before, "warikan \(arguments) changed the files")
      }
    }
    try unchanged(0)
    #expect(try warikan(["total"], folder).stdout == "¥0 in 0 entries\n")
    #expect(try warikan(["add", "2800", "高速代金"], folder).status == 0)
    #expect(try warikan(["add", "7200"], folder).status == 0)
    try unchanged(0)
    #expect(try warikan(["total"], folder).stdout == "¥10,000 in 2 entries\n")
    try Data("[{\"cash\": 1".utf8).write(to: cashDataURL(folder))
    try unchanged(1)
    let damaged = try warikan(["list"], folder)
    #expect(damaged.stderr.contains("run `warikan recover`"), "\(damaged.stderr)")
  }

  @Test func addThenSplitOnAFreshFolder() throws {
    let folder = TemporaryDirectory()
    let before = ShortTime.string(
      from: Date(), in: try #require(TimeZone(identifier: "Asia/Tokyo")))
    let added = try warikan(["add", "2800", "高速代金"], folder, timeZone: "Asia/Tokyo")
    let after = ShortTime.string(from: Date(), in: try #require(TimeZone(identifier: "Asia/Tokyo")))
    #expect(added.status == 0)
    #expect(added.stderr == "")
    let entry = try #require(try savedEntries(folder).first)
    #expect(entry.time == before || entry.time == after)
    #expect(entry.cash == 2800 && entry.memo == "高速代金")
    #expect(
      added.stdout
        == "Added ¥2,800 高速代金 at \(entry.time) (id \(entry.id.uuidString.prefix(8))).\n"
        + "Total: ¥2,800 in 1 entry.\n")
    #expect(try warikan(["add", "¥7,200"], folder).status == 0)
    let split = try warikan(["split", "3"], folder)
    #expect(split.status == 0)
    #expect(
      split.stdout
        == "¥10,000 for 3 people:\n  1 person pays ¥3,334\n  2 people pay ¥3,333\n"
        + "  ¥3,334 + ¥3,333 + ¥3,333 = ¥10,000\n")
    let json = try warikan(["split", "3", "--json"], folder)
    #expect(
      json.stdout
        == "{\n  \"baseShare\" : 3333,\n  \"people\" : 3,\n  \"remainder\" : 1,\n  \"shares\" : [\n"
        + "    {\n      \"people\" : 1,\n      \"yen\" : 3334\n    },\n"
        + "    {\n      \"people\" : 2,\n      \"yen\" : 3333\n    }\n  ],\n  \"total\" : 10000\n}\n"
    )
    // The most people is split without listing every share, every count grouped.
    let many = try warikan(["split", "100000"], folder)
    #expect(many.status == 0)
    #expect(
      many.stdout
        == "¥10,000 for 100,000 people:\n  10,000 people pay ¥1\n  90,000 people pay ¥0\n")
    // The file on disk is plain JSON (the journal was compacted when warikan closed it).
    #expect(
      try FileManager.default.contentsOfDirectory(
        atPath: cashDataURL(folder).deletingLastPathComponent().path
      ).sorted() == [".cashData.json.lock", "cashData.json"])
  }

  @Test func theTimeFollowsTZ() throws {
    let folder = TemporaryDirectory()
    let zone = "America/Los_Angeles"
    let local = try #require(TimeZone(identifier: zone))
    let before = ShortTime.string(from: Date(), in: local)
    #expect(try warikan(["add", "1"], folder, timeZone: zone).status == 0)
    let after = ShortTime.string(from: Date(), in: local)
    let time = try #require(try savedEntries(folder).first?.time)
    #expect(time == before || time == after)
  }

  @Test func theTimeFollowsAPOSIXRuleInTZ() throws {
    let folder = TemporaryDirectory()
    // `JST-9` is nine hours east of UTC; `GMT+5` five hours west, as `date` shows them.
    for (rule, zone) in [("JST-9", "Asia/Tokyo"), ("GMT+5", "Etc/GMT+5")] {
      let local = try #require(TimeZone(identifier: zone))
      let before = ShortTime.string(from: Date(), in: local)
      let added = try warikan(["add", "1", "--json"], folder, timeZone: rule)
      let after = ShortTime.string(from: Date(), in: local)
      #expect(added.status == 0)
      let time = try JSONDecoder().decode(CashData.self, from: Data(added.stdout.utf8)).time
      #expect(time == before || time == after, "TZ=\(rule)")
    }
  }

  @Test func listsNewestFirstAsTextAndJSON() throws {
    let folder = TemporaryDirectory()
    try placeSeedFile(folder)
    let list = try warikan(["list"], folder)
    #expect(list.status == 0)
    #expect(
      list.stdout
        == "1   6:06  ¥4,500  0B7E21AA  ガソリン\n2  22:38  ¥2,800  3F4D8393  高速代金\n"
        + "Total: ¥7,300 in 2 entries.\n")
    let json = try warikan(["list", "--json"], folder)
    let decoded = try JSONDecoder().decode([CashData].self, from: Data(json.stdout.utf8))
    #expect(decoded == seedEntries.reversed())
    #expect(try warikan(["total"], folder).stdout == "¥7,300 in 2 entries\n")
    #expect(
      try warikan(["total", "--json"], folder).stdout
        == "{\n  \"entries\" : 2,\n  \"total\" : 7300\n}\n")
  }

  @Test func aSeedWrittenFileIsReadAndKeptInItsFormat() throws {
    let folder = TemporaryDirectory()
    try placeSeedFile(folder)
    // Reading commands leave the seed's file byte for byte as it was.
    #expect(try warikan(["total"], folder).status == 0)
    #expect(try warikan(["split", "2"], folder).stdout.hasPrefix("¥7,300 for 2 people:\n"))
    #expect(String(decoding: try Data(contentsOf: cashDataURL(folder)), as: UTF8.self) == seedJSON)
    #expect(try warikan(["add", "100", "お茶"], folder).status == 0)
    let entries = try savedEntries(folder)
    #expect(Array(entries.prefix(2)) == seedEntries)
    #expect(entries.last?.memo == "お茶")
  }

  @Test func deletesByIndexOrIdPrefix() throws {
    let folder = TemporaryDirectory()
    try placeSeedFile(folder)
    let byIndex = try warikan(["delete", "1"], folder)
    #expect(byIndex.status == 0)
    #expect(
      byIndex.stdout == "Deleted ¥4,500 ガソリン at 6:06 (id 0B7E21AA).\nTotal: ¥2,800 in 1 entry.\n")
    let byPrefix = try warikan(["delete", "3f4d8393"], folder)
    #expect(
      byPrefix.stdout == "Deleted ¥2,800 高速代金 at 22:38 (id 3F4D8393).\nTotal: ¥0 in 0 entries.\n")
    #expect(try savedEntries(folder) == [])
    #expect(
      try warikan(["list"], folder).stdout
        == "No entries yet. Add one with `warikan add <yen> [memo]`.\n")
  }

  @Test(arguments: [
    (
      ["add", "12.5"],
      "warikan: error: `12.5` is not an amount in yen: it has a decimal point; yen have no"
        + " fractions. Write a whole number of yen such as 2800, 2,800 or ¥2,800.\n"
        + "See `warikan add --help`.\n"
    ),
    (
      ["add", "abc", "memo"],
      "warikan: error: `abc` is not an amount in yen: `a` is not a digit. Write a whole number of"
        + " yen such as 2800, 2,800 or ¥2,800.\nSee `warikan add --help`.\n"
    ),
    (
      ["add", "-5"],
      "warikan: error: `-5` is not an amount in yen: it is negative. Write a whole number of yen"
        + " such as 2800, 2,800 or ¥2,800.\nSee `warikan add --help`.\n"
    ),
    (
      ["add", "0"],
      "warikan: error: `0` is zero yen: an entry needs an amount above zero.\n"
        + "See `warikan add --help`.\n"
    ),
    (
      ["add"],
      "warikan: error: Missing argument <yen> (the amount in yen, such as 2800 or ¥2,800).\n"
        + "See `warikan add --help`.\n"
    ),
    (
      ["split", "0"],
      "warikan: error: `0` is not a valid value for <people>: expected a whole number from 1 to 100,000.\n"
        + "See `warikan split --help`.\n"
    ),
    (
      ["split", "-2"],
      "warikan: error: `-2` is not a valid value for <people>: expected a whole number from 1 to 100,000.\n"
        + "See `warikan split --help`.\n"
    ),
    (
      ["split", "three"],
      "warikan: error: `three` is not a valid value for <people>: expected a whole number from 1"
        + " to 100,000.\nSee `warikan split --help`.\n"
    ),
    (
      ["reset"],
      "warikan: error: `warikan reset` would delete 2 entries (¥7,300) and standard input is not"
        + " a terminal to ask: run `warikan reset --yes`.\nSee `warikan reset --help`.\n"
    ),
    (
      ["splt", "3"],
      "warikan: error: Unknown command `splt` for `warikan`. Did you mean `split`? Commands: add,"
        + " list, delete, total, split, reset, recover.\nSee `warikan --help`.\n"
    ),
  ])
  func badInputIsAUsageErrorThatQuotesItAndChangesNothing(arguments: [String], message: String)
    throws
  {
    let folder = TemporaryDirectory()
    try placeSeedFile(folder)
    let result = try warikan(arguments, folder)
    #expect(result.status == 64)
    #expect(result.stdout == "")
    #expect(result.stderr == message)
    #expect(String(decoding: try Data(contentsOf: cashDataURL(folder)), as: UTF8.self) == seedJSON)
  }

  /// A well-formed reference to an entry that isn't there fails (1), as `customers delete 9`.
  @Test(arguments: [
    (
      ["delete", "3"],
      "warikan: error: There is no entry number `3`: there are 2 entries. Use a number shown by"
        + " `warikan list` (1 is the newest), or an id prefix with a letter or `-` in it.\n"
    ),
    (
      ["delete", "ffff"],
      "warikan: error: No entry has an id starting with `ffff` (2 entries). See `warikan list`"
        + " for the ids.\n"
    ),
  ])
  func aMissingEntryIsAFailureThatChangesNothing(arguments: [String], message: String) throws {
    let folder = TemporaryDirectory()
    try placeSeedFile(folder)
    let result = try warikan(arguments, folder)
    #expect(result.status == 1)
    #expect(result.stdout == "")
    #expect(result.stderr == message)
    #expect(String(decoding: try Data(contentsOf: cashDataURL(folder)), as: UTF8.self) == seedJSON)
  }

  @Test func aBadAmountOnAFreshFolderCreatesNothing() throws {
    let folder = TemporaryDirectory()
    for amount in ["abc", "0", "12.5"] {
      let result = try warikan(["add", amount], folder)
      #expect(result.status == 64)
      #expect(result.stderr.hasPrefix("warikan: error: `\(amount)` is "))
    }
    let home = folder.url.appendingPathComponent("kura-home")
    #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("apps").path))
  }

  @Test func resetWithYesRemovesEverything() throws {
    let folder = TemporaryDirectory()
    try placeSeedFile(folder)
    let result = try warikan(["reset", "--yes"], folder)
    #expect(result.status == 0)
    #expect(result.stdout == "Deleted 2 entries (¥7,300).\n")
    #expect(!FileManager.default.fileExists(atPath: cashDataURL(folder).path))
    // Nothing is left behind: no journal, no lock file.
    #expect(
      try FileManager.default.contentsOfDirectory(
        atPath: cashDataURL(folder).deletingLastPathComponent().path
      ).filter { $0.contains("cashData") } == [])
    #expect(try warikan(["total"], folder).stdout == "¥0 in 0 entries\n")
  }

  @Test func resetWithNoEntriesNeedsNoQuestion() throws {
    let folder = TemporaryDirectory()
    let result = try warikan(["reset"], folder)
    #expect(result.status == 0)
    #expect(result.stdout == "Deleted 0 entries (¥0).\n")
  }

  @Test func aNegativeTotalInTheFileIsAnErrorNotACrash() throws {
    let folder = TemporaryDirectory()
    try placeSeedFile(
      folder,
      #"[{"id":"AAAA0000-0000-0000-0000-000000000001","memo":"refund","cash":-500,"time":"1:00"}]"#)
    let result = try warikan(["split", "2"], folder)
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "warikan: error: The total is `-¥500`, below zero, so it can't be split: delete the"
        + " entries with negative amounts (see `warikan list`).\n")
  }

  #if os(Linux)
    /// Runs warikan on a pseudo-terminal (util-linux `script`) so it can ask.
    private func onTerminal(_ command: String, _ folder: TemporaryDirectory, input: String) throws
      -> ProcessResult
    {
      let path = try executable("warikan").path
      return try run(
        URL(fileURLWithPath: "/usr/bin/script"), ["-qec", "\(path) \(command)", "/dev/null"],
        environment: folder.environment, input: input)
    }

    @Test func resetAsksOnATerminal() throws {
      try #require(
        FileManager.default.isExecutableFile(atPath: "/usr/bin/script"),
        "/usr/bin/script is missing: run scripts/setup (apt-get install bsdutils)")
      let folder = TemporaryDirectory()
      try placeSeedFile(folder)
      let declined = try onTerminal("reset", folder, input: "n\n")
      #expect(declined.status == 1)
      #expect(declined.stdout.contains("Delete 2 entries (¥7,300)? [y/N] "))
      #expect(declined.stdout.contains("Nothing was deleted."))
      #expect(FileManager.default.fileExists(atPath: cashDataURL(folder).path))
      let accepted = try onTerminal("reset", folder, input: "y\n")
      #expect(accepted.status == 0)
      #expect(accepted.stdout.contains("Deleted 2 entries (¥7,300)."))
      #expect(!FileManager.default.fileExists(atPath: cashDataURL(folder).path))
    }
  #endif

  @Test func aDamagedFileIsReportedAndRecoverMovesItAside() throws {
    let folder = TemporaryDirectory()
    try placeSeedFile(folder, "[{\"id\":")
    let url = cashDataURL(folder)
    let failed = try warikan(["list"], folder)
    #expect(failed.status == 1)
    #expect(
      failed.stderr
        == "warikan: error: Can't open document `\(url.path)`: line 1, column 8: the file ends too"
        + " early (truncated); expected a value. Fix or remove the file; nothing was changed.\n"
        + "To move the damaged file aside and start an empty bill, run `warikan recover`.\n")
    #expect(String(decoding: try Data(contentsOf: url), as: UTF8.self) == "[{\"id\":")
    let recovered = try warikan(["recover"], folder)
    #expect(recovered.status == 0)
    let moved = try FileManager.default.contentsOfDirectory(
      atPath: url.deletingLastPathComponent().path
    ).filter { $0.hasPrefix("cashData.json.damaged-") }
    #expect(moved.count == 1)
    // A success says what was done; it does not start like the failure ("Can't open…").
    #expect(
      recovered.stdout
        == "Recovered `\(url.path)`: it was damaged (line 1, column 8: the file ends too early "
        + "(truncated); expected a value).\nThe file was moved to "
        + "`\(url.deletingLastPathComponent().path)/\(moved.first ?? "")`; restore entries from it "
        + "by hand.\nStarted an empty bill.\n")
    #expect(try warikan(["add", "500"], folder).status == 0)
    #expect(try savedEntries(folder).map(\.cash) == [500])
    #expect(
      try warikan(["recover"], folder).stdout
        == "`\(url.path)` is fine (1 entry); nothing was moved.\n")
  }

  @Test func noArgumentsPrintsHelp() throws {
    let folder = TemporaryDirectory()
    let result = try warikan([], folder)
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("OVERVIEW: Splits a bill: records what was spent and shares"))
    #expect(
      result.stdout.contains("  split                   Splits the total among people exactly"))
  }
}
