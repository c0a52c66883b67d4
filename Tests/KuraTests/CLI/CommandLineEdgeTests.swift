import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing
import WarikanKit

@testable import KuraCLI

/// The convention at its edges (issue 23): whose fault an exit code says, options on either side
/// of a subcommand, values checked before they are stored, ranges and types said in errors.
@Suite("Command-line convention at the edges")
struct CommandLineEdgeTests {
  let folder = TemporaryDirectory()

  func tool(_ name: String, _ arguments: String..., timeZone: String = "UTC") throws
    -> ProcessResult
  {
    var environment = folder.environment
    environment["TZ"] = timeZone
    return try run(try executable(name), arguments, environment: environment)
  }

  static let list = Command(
    name: "list", abstract: "Lists.", options: [Option("store", short: "s", help: "The store.")],
    flags: [Flag("all", help: "Everything.")], supportsJSON: true, run: { _ in })
  static let add = Command(
    name: "add", abstract: "Adds.", arguments: [Argument("name", help: "The name.")],
    run: { _ in })
  static let group = Command(
    name: "group", abstract: "Shows the group.", options: [Option("group", help: "The group.")],
    subcommands: [list], run: { _ in })
  static let root = Command(name: "tool", abstract: "A tool.", subcommands: [list, add, group])

  func parsed(_ words: String...) throws -> (String, Invocation) {
    guard
      case .run(let command, let invocation) = try CommandLineTool.parse(
        Self.root, arguments: words)
    else { throw UsageError("expected a command to run", command: "test") }
    return (command.name, invocation)
  }

  @Test func optionsGoBeforeOrAfterTheSubcommand() throws {
    for words in [
      ["--store", "a.sqlite", "list", "--all"], ["list", "--store=a.sqlite", "--all"],
      ["-s", "a.sqlite", "--all", "--json", "list"], ["--store=a.sqlite", "list", "--all"],
    ] {
      guard
        case .run(let command, let invocation) = try CommandLineTool.parse(
          Self.root, arguments: words)
      else {
        Issue.record("\(words) did not parse to a command")
        continue
      }
      #expect(command.name == "list", "\(words)")
      #expect(try invocation.option("store", as: String.self) == "a.sqlite", "\(words)")
      #expect(invocation.flag("all"), "\(words)")
    }
    // A command's own option, given before its subcommand, goes to the subcommand, which must
    // take it too (as `customers dictionary --group G add` does).
    let (name, nested) = try parsed("group", "-s", "b", "list")
    #expect(name == "list")
    #expect(try nested.option("store", as: String.self) == "b")
    #expect(
      throws: UsageError(
        "Unknown option `--group` for `tool group list`.", command: "tool group list")
    ) { try CommandLineTool.parse(Self.root, arguments: ["group", "--group", "G", "list"]) }
    // An option of another subcommand is refused by the one chosen.
    #expect(throws: UsageError("Unknown option `--store` for `tool add`.", command: "tool add")) {
      try CommandLineTool.parse(Self.root, arguments: ["--store", "x", "add", "Ann"])
    }
    // An option no command declares is still reported as before.
    #expect(
      throws: UsageError(
        "Unknown option `--nope` for `tool`: it needs a command first. Commands: list, add, group.",
        command: "tool")
    ) { try CommandLineTool.parse(Self.root, arguments: ["--nope", "list"]) }
  }

  @Test func theToolsTakeOptionsBeforeTheSubcommand() throws {
    let store = folder.file("students.sqlite").path
    let added = try tool("students", "--store", store, "add", "--name", "Ann")
    #expect(added.status == 0)
    #expect(added.stdout == "Added Ann.\n")
    #expect(try tool("students", "list", "--store", store).stdout == "Ann\n")
    #expect(try tool("students", "--store", store, "count").stdout == "1\n")
    let dictionary = try tool("customers", "dictionary", "--group", "group.G", "add", "first")
    #expect(dictionary.status == 0)
    #expect(dictionary.stdout.hasPrefix("Added ") && dictionary.stdout.hasSuffix(" = FirstView\n"))
    let shown = try tool("customers", "dictionary", "--group", "group.G")
    #expect(shown.stdout.hasSuffix(" = FirstView\n"))
    #expect(try tool("customers", "dictionary").stdout.hasPrefix("The dictionary is empty."))
  }

  @Test func aMissingEntryExits1AndARefusedNameExits64() throws {
    let missing = try tool("warikan", "delete", "5")
    #expect(missing.status == 1)
    #expect(
      missing.stderr
        == "warikan: error: There is no entry number `5`: there are 0 entries. Use a number shown"
        + " by `warikan list` (1 is the newest), or an id prefix with a letter or `-` in it.\n")
    let empty = try tool("kura", "defaults", "write", "", "k", "v")
    #expect(empty.status == 64)
    #expect(
      empty.stderr
        == "kura: error: Can't use suite name ``: it is empty. Use an app identifier such as"
        + " `com.example.app` or an App Group identifier such as `group.com.example`.\n"
        + "See `kura defaults write --help`.\n")
    let escape = try tool("kura", "defaults", "write", "../../evil5", "k", "v")
    #expect(escape.status == 64)
    #expect(escape.stderr.hasSuffix("See `kura defaults write --help`.\n"))
    let scene = try tool("customers", "fields", "--scene", "../x")
    #expect(scene.status == 64)
    #expect(
      scene.stderr
        == "customers: error: Can't use scene identifier `../x`: it contains `/`. Use a name such"
        + " as `main` or a UUID.\nSee `customers fields --help`.\n")
  }

  /// A connection string with a value libpq refuses is the caller's mistake (64), told before
  /// any server is tried; a server that can't be reached is not (1).
  @Test func aBadPostgresLocationIsAUsageError() throws {
    for url in [
      "postgresql:///kura_x?host=/nonexistent&sslmode=bogus",
      "postgresql://127.0.0.1:99999/kura_x",
    ] {
      let result = try tool("students", "--store", url, "list")
      #expect(result.status == 64, "\(url): \(result.stderr)")
      #expect(result.stderr.hasSuffix("See `students list --help`.\n"), "\(url): \(result.stderr)")
      #expect(!result.stderr.contains(".."), "\(url): \(result.stderr)")
    }
    let unreachable = try tool(
      "students", "--store", "postgresql:///kura_x?host=/nonexistent", "list")
    #expect(unreachable.status == 1, "\(unreachable.stderr)")
  }

  @Test func aDictionaryOfAnotherTypeIsReported() throws {
    #expect(try tool("kura", "defaults", "write", "customers", "my_dict", "5", "--int").status == 0)
    let shown = try tool("customers", "dictionary")
    #expect(shown.status == 1)
    #expect(shown.stdout == "")
    #expect(
      shown.stderr
        == "customers: error: Can't show the dictionary: the value under key `my_dict` (integer)"
        + " is not a dictionary. Nothing was changed; look at it with `kura defaults read"
        + " customers my_dict`.\n")
    #expect(try tool("kura", "defaults", "read", "customers", "my_dict").stdout == "5\n")
  }

  @Test func anUnknownTimeZoneIsWarnedOf() throws {
    #expect(ShortTime.timeZoneProblem(environment: [:]) == nil)
    for known in ["Asia/Tokyo", ":Europe/Paris", "JST-9", "UTC", "GMT+5"] {
      #expect(ShortTime.timeZoneProblem(environment: ["TZ": known]) == nil, "\(known)")
    }
    let warning =
      "TZ=Bogus/Zone names no time zone: times are written in the system's time zone"
      + " (\(TimeZone.current.identifier)). Set TZ to a zone such as Asia/Tokyo or a rule such"
      + " as JST-9, or unset it."
    #expect(ShortTime.timeZoneProblem(environment: ["TZ": "Bogus/Zone"]) == warning)
    let list = try tool("warikan", "list", timeZone: "Bogus/Zone")
    #expect(list.status == 0)
    #expect(list.stderr.hasPrefix("warikan: warning: TZ=Bogus/Zone names no time zone: "))
    #expect(try tool("warikan", "list", timeZone: "Asia/Tokyo").stderr == "")
  }

  @Test func rangeErrorsNameTheRange() throws {
    let limit = try tool("wishlist", "recent", "--limit", "99999999999999999999")
    #expect(limit.status == 64)
    #expect(
      limit.stderr
        == "wishlist: error: `99999999999999999999` is not a valid value for --limit: it is out of"
        + " range; expected a whole number from 1 to 9,223,372,036,854,775,807.\n"
        + "See `wishlist recent --help`.\n")
    let int = try tool("kura", "defaults", "write", "s", "k", "99999999999999999999", "--int")
    #expect(int.status == 64)
    #expect(
      int.stderr
        == "kura: error: `99999999999999999999` is not a valid value for <value>: it is out of"
        + " range; expected a whole number from -9223372036854775808 to 9223372036854775807.\n"
        + "See `kura defaults write --help`.\n")
    let people = try tool("warikan", "split", "100001")
    #expect(people.status == 64)
    #expect(
      people.stderr
        == "warikan: error: `100001` is not a valid value for <people>: expected a whole number"
        + " from 1 to 100,000.\nSee `warikan split --help`.\n")
  }

  @Test func valuesAreCheckedBeforeTheyAreStored() throws {
    let negative = try tool("customers", "add", "-5", "neg")
    #expect(negative.status == 64)
    #expect(
      negative.stderr
        == "customers: error: `-5` is not a valid value for <number>: expected a whole number of 0"
        + " or more.\nSee `customers add --help`.\n")
    #expect(try tool("customers", "list").stdout.hasPrefix("No customers yet."))
    for start in ["99999-01-01", "2026-02-30", "26-12-24", "2026-1-2"] {
      let trip = try tool("wishlist", "trip", "add", "Kyoto", "--start", start)
      #expect(trip.status == 64, "\(start)")
      #expect(
        trip.stderr
          == "wishlist: error: `\(start)` is not a valid value for --start: give a date as"
          + " year-month-day, such as 2026-12-24 (a four-digit year from 0001 to 9999).\n"
          + "See `wishlist trip add --help`.\n")
    }
    for photo in [
      "javascript:alert(1)", "file:///etc/passwd", "data:image/png;base64,AA", "https:x",
    ] {
      let trip = try tool("wishlist", "trip", "add", "Kyoto", "--photo", photo)
      #expect(trip.status == 64, "\(photo)")
      #expect(
        trip.stderr
          == "wishlist: error: `\(photo)` is not a valid value for --photo: give an http or https"
          + " URL such as https://example.com/kyoto.jpg.\nSee `wishlist trip add --help`.\n")
    }
    #expect(try tool("wishlist", "trip", "list").stdout.hasPrefix("No trips yet."))
    let kept = try tool(
      "wishlist", "trip", "add", "Kyoto", "--start", "2028-02-29", "--photo",
      "HTTPS://example.com/kyoto.jpg")
    #expect(kept.status == 0)
    #expect(try tool("wishlist", "trip", "list").stdout.contains("Kyoto  2028-02-29 – 2028-02-29"))
  }

  @Test func storeCommandsSayWhatTheyFound() throws {
    let stores = folder.file("stores")
    try FileManager.default.createDirectory(at: stores, withIntermediateDirectories: true)
    let info = try tool("kura", "store", "info", stores.path)
    #expect(info.status == 64)
    #expect(
      info.stderr
        == "kura: error: `\(stores.path)` is not a valid value for <store>: it is a folder; give"
        + " the path of a store file, such as `\(stores.path)/default.store`.\n"
        + "See `kura store info --help`.\n")
    let store = stores.appendingPathComponent("a.store")
    #expect(FileManager.default.createFile(atPath: store.path, contents: Data()))
    let named = try tool("kura", "store", "schema", stores.path)
    #expect(named.status == 64)
    #expect(named.stderr.contains("give the path of a store file in it: `\(store.path)`."))
    let migrate = try tool("kura", "store", "migrate", stores.path, "--schema", "models.json")
    #expect(migrate.status == 64)
    #expect(migrate.stderr.contains("it is a folder; give the path of a store file in it: "))
    let schema = try tool("kura", "store", "schema", store.path)
    #expect(schema.status == 0)
    #expect(schema.stdout == "No models: the store is empty (nothing has been saved in it yet).\n")
    #expect(try Data(contentsOf: store).isEmpty)
  }

  @Test func wordingSaysWhatIsWrong() throws {
    let empty = try tool("warikan", "add", " ")
    #expect(empty.status == 64)
    #expect(
      empty.stderr
        == "warikan: error: The amount is empty: write a whole number of yen such as 2800, 2,800"
        + " or ¥2,800.\nSee `warikan add --help`.\n")
    let row = try tool("customers", "delete", "7")
    #expect(
      row.stderr
        == "customers: error: Can't delete row `7`: there is no such row and no customer id starts"
        + " with it (the list is empty). See the rows with `customers list`.\n")
  }

  @Test func warikanGroupsLargeCountsAndAlignsTimes() throws {
    try placeSeedFile(folder)
    let list = try tool("warikan", "list")
    #expect(
      list.stdout
        == "1   6:06  ¥4,500  0B7E21AA  ガソリン\n2  22:38  ¥2,800  3F4D8393  高速代金\n"
        + "Total: ¥7,300 in 2 entries.\n")
    let split = try tool("warikan", "split", "100000")
    #expect(split.status == 0)
    #expect(
      split.stdout == "¥7,300 for 100,000 people:\n  7,300 people pay ¥1\n  92,700 people pay ¥0\n")
    #expect(
      split.stderr
        == "warikan: warning: there are more people (100,000) than yen (¥7,300), so 92,700 people"
        + " pay nothing; check the number of people.\n")
  }
}
