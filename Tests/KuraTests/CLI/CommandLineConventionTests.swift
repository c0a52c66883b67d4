import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

@testable import KuraCLI

/// One convention for every tool: exit codes (documented in `--help`), `--version`, `--json`,
/// range-aware number errors, full-width digits, messages that say what to do.
@Suite("One command-line convention")
struct CommandLineConventionTests {
  let folder = TemporaryDirectory()

  func tool(_ name: String, _ arguments: String...) throws -> ProcessResult {
    try run(try executable(name), arguments, environment: folder.environment)
  }

  @Test(arguments: ["kura", "warikan", "customers", "students", "wishlist", "kura-bench"])
  func everyToolPrintsItsVersionAndDocumentsItsExitCodes(name: String) throws {
    let version = try tool(name, "--version")
    #expect(version.status == 0)
    #expect(version.stdout == "\(name) 0.1.0\n")
    let help = try tool(name, "--help")
    #expect(help.status == 0)
    #expect(help.stdout.contains("EXIT STATUS:"))
    #expect(help.stdout.contains("64"))
  }

  @Test func kuraBenchHelpListsTheSuites() throws {
    let help = try tool("kura-bench", "--help")
    #expect(help.stdout.contains("SUITES"))
    for suite in ["sqlite", "documents", "store", "preferences", "relations", "terminal"] {
      #expect(help.stdout.contains("\n  \(suite)\n") || help.stdout.hasSuffix("  \(suite)\n"))
    }
    let unknown = try tool("kura-bench", "nosuch")
    #expect(unknown.status == 64)
    #expect(unknown.stdout == "")
    #expect(unknown.stderr.hasPrefix("kura-bench: error: unknown suite `nosuch`; suites: sqlite"))
  }

  @Test func kuraBenchSuiteHelpProfilesAndTheirUsageErrors() throws {
    let help = try tool("kura-bench", "sqlite", "--help")
    #expect(help.status == 0)
    #expect(help.stdout.hasPrefix("OVERVIEW: The SQLite layer"))
    #expect(help.stdout.contains("\n  lookups  a primary-key lookup, each its own read\n"))
    // Full-width digits for --rows; the fetch profile's operations are the rows it read.
    let fetch = try tool("kura-bench", "store", "--rows", "２０００", "--profile", "fetch", "c")
    #expect(fetch.status == 0)
    #expect(fetch.stdout == "profiled store fetch on c: 2000 operations\n")
    let json = try tool(
      "kura-bench", "store", "--rows", "1000", "--profile", "fetch", "c", "--json")
    #expect(
      json.stdout == #"{"operations":1000,"side":"c","suite":"store","workload":"fetch"}"# + "\n")
    let failures: [([String], String)] = [
      (
        ["store", "--profile", "bogus", "c"],
        "unknown profile workload `bogus` of the store suite; workloads: insert, "
          + "insert-no-history, fetch, saves, saves-no-history, lookups. See "
          + "`kura-bench store --help`."
      ),
      (
        ["store", "--profile", "insert", "bogus"],
        "unknown profile side `bogus`: `kura` (Kura) or `c` (the baseline). See "
          + "`kura-bench store --help`."
      ),
      (
        ["store", "--profile"],
        "`--profile` needs a workload and a side (`kura` or `c`), such as "
          + "`kura-bench store --profile lookups kura`. See `kura-bench --help`."
      ),
      (
        ["--profile", "lookups", "kura"],
        "`--profile` runs one workload of one suite: name the suite, such as "
          + "`kura-bench store --profile lookups kura`. See `kura-bench --help`."
      ),
      (
        ["store", "--rows", "many"],
        "`--rows many` is not a whole number of at least 1,000, such as `--rows 100000`. See "
          + "`kura-bench --help`."
      ),
    ]
    for (arguments, message) in failures {
      let result = try run(try executable("kura-bench"), arguments, environment: folder.environment)
      #expect(result.status == 64, "\(arguments)")
      #expect(result.stdout == "", "\(arguments)")
      #expect(result.stderr == "kura-bench: error: \(message)\n", "\(arguments)")
    }
  }

  @Test func aBadValueExits64WithTheHelpHintEverywhere() throws {
    let int = try tool("kura", "defaults", "write", "customers", "count", "abc", "--int")
    #expect(int.status == 64)
    #expect(
      int.stderr
        == "kura: error: Can't read `abc` as an integer: expected a whole number such as 42.\n"
        + "See `kura defaults write --help`.\n")
    let unknownSubcommand = try tool("customers", "fields", "get", "--help")
    #expect(unknownSubcommand.status == 64)
    #expect(
      unknownSubcommand.stderr.hasPrefix(
        "customers: error: Unknown command `get` for `customers fields`. Did you mean `set`?"))
    let schema = try tool("kura", "store", "migrate", "x.store", "--schema", "/nonexistent.json")
    #expect(schema.status == 64)
    #expect(
      schema.stderr
        == "kura: error: `/nonexistent.json` is not a valid value for --schema: there is no such "
        + "file. Write one with `kura store schema --json x.store > models.json` and edit it.\n"
        + "See `kura store migrate --help`.\n")
  }

  @Test func numberErrorsStateTheRangeOfThatArgument() throws {
    let huge = try tool("warikan", "split", "99999999999999999999")
    #expect(huge.status == 64)
    #expect(
      huge.stderr
        == "warikan: error: `99999999999999999999` is not a valid value for <people>: it is out of "
        + "range; expected a whole number from 1 to 100,000.\nSee `warikan split --help`.\n")
    let zero = try tool("warikan", "split", "0")
    #expect(zero.status == 64)
    #expect(
      zero.stderr.hasPrefix("warikan: error: `0` is not a valid value for <people>: expected"))
    let limit = try tool("wishlist", "recent", "--limit", "0")
    #expect(limit.status == 64)
    #expect(
      limit.stderr.hasPrefix(
        "wishlist: error: `0` is not a valid value for --limit: expected a whole number of 1 or "
          + "more."))
  }

  @Test func fullWidthDigitsAreAcceptedEverywhere() throws {
    #expect(try tool("warikan", "add", "２８００").status == 0)
    let split = try tool("warikan", "split", "３")
    #expect(split.status == 0)
    #expect(split.stdout.hasPrefix("¥2,800 for 3 people:"))
    #expect(try tool("warikan", "delete", "１").status == 0)
    #expect(try tool("customers", "add", "１２", "Taro").stdout == "Added No.12: Taro\n")
    #expect(try tool("kura", "defaults", "write", "customers", "n", "４２", "--int").status == 0)
    #expect(try tool("kura", "defaults", "read", "customers", "n").stdout == "42\n")
  }

  @Test func splittingAmongMorePeopleThanYenWarns() throws {
    _ = try tool("warikan", "add", "100")
    let split = try tool("warikan", "split", "1000")
    #expect(split.status == 0)
    #expect(split.stdout == "¥100 for 1,000 people:\n  100 people pay ¥1\n  900 people pay ¥0\n")
    #expect(
      split.stderr
        == "warikan: warning: there are more people (1,000) than yen (¥100), so 900 people pay "
        + "nothing; check the number of people.\n")
  }

  @Test func jsonWhereverDataIsPrinted() throws {
    let path = try tool("students", "path", "--json")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(path.stdout.utf8)) as? [String: String])
    #expect(object["path"]?.hasSuffix("Documents/SQlite3/SwiftUICDSave2.sqlite") == true)
    let file = folder.file("not-a-store")
    try Data("plain text".utf8).write(to: file)
    let check = try tool("kura", "store", "check", file.path, "--json")
    #expect(check.status == 1)
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any])
    #expect(report["ok"] as? Bool == false)
    #expect((report["problems"] as? [String])?.first?.contains("not an SQLite database") == true)
  }

  @Test func warikanHelpTellsOfTheFullScreenApp() throws {
    let help = try tool("warikan", "--help")
    #expect(help.stdout.contains("Run `warikan` with no command on a terminal to open the"))
  }

  @Test func aMissingArgumentIsNamedWithSinglePunctuation() throws {
    let root = Command(
      name: "t", abstract: "T.",
      subcommands: [
        Command(
          name: "read", abstract: "R.", arguments: [Argument("key", help: "The key.")],
          run: { _ in })
      ])
    #expect(throws: UsageError("Missing argument <key> (the key).", command: "t read")) {
      _ = try CommandLineTool.parse(root, arguments: ["read"])
    }
  }
}
