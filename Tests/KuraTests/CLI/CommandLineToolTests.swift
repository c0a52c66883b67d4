import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

@testable import KuraCLI

@Suite("Command-line parsing")
struct CommandLineToolTests {
  static let split = Command(
    name: "split", abstract: "Splits the total.",
    arguments: [Argument("people", help: "How many people share the bill (1 or more).")],
    options: [Option("currency", short: "c", help: "The currency sign.", valueName: "sign")],
    flags: [Flag("yes", short: "y", help: "Don't ask.")],
    supportsJSON: true,
    run: { _ in })
  static let add = Command(
    name: "add", abstract: "Adds an entry.",
    arguments: [
      Argument("yen", help: "The amount."),
      Argument("memo", help: "A note.", isOptional: true, isRepeating: true),
    ],
    run: { _ in })
  static let root = Command(name: "tool", abstract: "A tool.", subcommands: [split, add])

  func invocation(_ words: [String]) throws -> Invocation {
    guard case .run(_, let invocation) = try CommandLineTool.parse(Self.root, arguments: words)
    else {
      throw UsageError("expected a command to run", command: "test")
    }
    return invocation
  }

  func usageMessage(_ words: [String]) -> String? {
    do {
      _ = try CommandLineTool.parse(Self.root, arguments: words)
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test func parsesTypedArgumentsOptionsAndFlags() throws {
    let parsed = try invocation(["split", "3", "--currency=¥", "-y", "--json"])
    #expect(try parsed.argument("people", as: Int.self) == 3)
    #expect(try parsed.option("currency", as: String.self) == "¥")
    #expect(parsed.flag("yes"))
    #expect(parsed.json)
    #expect(parsed.commandPath == "tool split")
    let spaced = try invocation(["split", "-c", "$", "2"])
    #expect(try spaced.option("currency", as: String.self) == "$")
  }

  @Test func repeatingArgumentTakesTheRestAndDoubleDashEndsOptions() throws {
    let parsed = try invocation(["add", "2800", "高速", "代金"])
    #expect(parsed.words("memo") == ["高速", "代金"])
    let dashed = try invocation(["add", "--", "-5", "--memo"])
    #expect(dashed.words("yen") == ["-5"])
    #expect(dashed.words("memo") == ["--memo"])
    let negative = try invocation(["add", "-5"])
    #expect(negative.words("yen") == ["-5"])
  }

  @Test func badValueIsQuotedWithWhatWasExpected() throws {
    let parsed = try invocation(["split", "three"])
    #expect(throws: UsageError.self) { try parsed.argument("people", as: Int.self) }
    do {
      _ = try parsed.argument("people", as: Int.self)
    } catch {
      #expect(
        "\(error)"
          == "`three` is not a valid value for <people>: expected a whole number such as 3.\nSee `tool split --help`."
      )
    }
  }

  @Test func aWholeNumberOutOfRangeIsSaidToBe() throws {
    let parsed = try invocation(["split", "99999999999999999999"])
    do {
      _ = try parsed.argument("people", as: Int.self)
      Issue.record("an out-of-range number parsed")
    } catch {
      #expect(
        "\(error)"
          == "`99999999999999999999` is not a valid value for <people>: it is out of range;"
          + " expected a whole number from -9223372036854775808 to 9223372036854775807.\n"
          + "See `tool split --help`.")
    }
  }

  @Test(arguments: [
    (
      ["splt"],
      "Unknown command `splt` for `tool`. Did you mean `split`? Commands: split, add.\nSee `tool --help`."
    ),
    ([], "`tool` needs a command: split, add.\nSee `tool --help`."),
    (
      ["split"],
      "Missing argument <people> (how many people share the bill (1 or more)).\nSee `tool split --help`."
    ),
    (
      ["split", "2", "--yess"],
      "Unknown option `--yess` for `tool split`. Did you mean `--yes`?\nSee `tool split --help`."
    ),
    (["split", "2", "3"], "Unexpected argument `3` for `tool split`.\nSee `tool split --help`."),
    (["split", "2", "--currency"], "Option `--currency` needs a value.\nSee `tool split --help`."),
    (["split", "2", "--yes=no"], "Flag `--yes` takes no value.\nSee `tool split --help`."),
    (["add", "1", "--json"], "Unknown option `--json` for `tool add`.\nSee `tool add --help`."),
  ])
  func usageErrorsQuoteTheBadWordAndPointAtHelp(words: [String], message: String) {
    #expect(usageMessage(words) == message)
  }

  @Test func helpListsUsageArgumentsOptionsAndCommands() throws {
    guard
      case .help(let text) = try CommandLineTool.parse(Self.root, arguments: ["split", "--help"])
    else {
      Issue.record("expected help")
      return
    }
    #expect(
      text == """
        OVERVIEW: Splits the total.

        USAGE: tool split [options] <people>

        ARGUMENTS:
          <people>                How many people share the bill (1 or more).

        OPTIONS:
          -c, --currency <sign>   The currency sign.
          -y, --yes               Don't ask.
          --json                  Print JSON instead of text.
          -h, --help              Show help information.

        EXIT STATUS:
          0                       Success.
          1                       The command failed (a file, a store, a missing item); the message says why.
          64                      The command was called wrongly (a usage error or a bad value).
        """)
    guard case .help(let rootHelp) = try CommandLineTool.parse(Self.root, arguments: ["help"])
    else {
      Issue.record("expected help")
      return
    }
    #expect(rootHelp.contains("  split                   Splits the total."))
    #expect(rootHelp.contains("USAGE: tool <command>"))
    guard
      case .help(let subHelp) = try CommandLineTool.parse(Self.root, arguments: ["help", "add"])
    else {
      Issue.record("expected help")
      return
    }
    #expect(subHelp.contains("USAGE: tool add <yen> [<memo> …]"))
  }

  @Test func runMapsErrorsToExitCodes() {
    struct Broken: Error, CustomStringConvertible { var description: String { "it broke" } }
    let root = Command(
      name: "t", abstract: "T.",
      subcommands: [
        Command(name: "ok", abstract: "Fine.", run: { _ in }),
        Command(name: "fail", abstract: "Fails.", run: { _ in throw Broken() }),
        Command(name: "exit", abstract: "Exits 3.", run: { _ in throw ExitCode(3) }),
      ])
    #expect(CommandLineTool.run(root, arguments: ["ok"]) == 0)
    #expect(CommandLineTool.run(root, arguments: ["fail"]) == 1)
    #expect(CommandLineTool.run(root, arguments: ["exit"]) == 3)
    #expect(CommandLineTool.run(root, arguments: ["nope"]) == 64)
    #expect(CommandLineTool.run(root, arguments: ["--help"]) == 0)
  }

  @Test func suggestionsUseEditDistance() {
    #expect(CommandLineTool.editDistance("kitten", "sitting") == 3)
    #expect(
      CommandLineTool.suggestion(for: "lst", among: ["list", "add"], prefix: "")
        == " Did you mean `list`?")
    #expect(CommandLineTool.suggestion(for: "zzzzzz", among: ["list"], prefix: "") == "")
  }
}
