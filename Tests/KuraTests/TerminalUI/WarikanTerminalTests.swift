import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

/// The `warikan` app driven in a real terminal: each test starts the built executable in a tmux
/// server of its own (own socket, own KURA_HOME), types keys and reads the screen.
@Suite("Warikan terminal app in tmux", .serialized)
struct WarikanTerminalTests {
  /// A temporary home plus helpers to run `warikan` commands against it.
  struct Fixture {
    let directory: TemporaryDirectory
    let warikan: URL

    init(_ name: String = #function) throws {
      directory = TemporaryDirectory(name)
      warikan = try executable("warikan")
    }

    var environment: [String: String] { directory.environment }

    /// Runs `warikan <arguments>` to completion (as another process would, from another
    /// terminal).
    @discardableResult
    func command(_ arguments: String...) throws -> ProcessResult {
      let result = try run(warikan, arguments, environment: environment)
      #expect(result.status == 0, "warikan \(arguments) failed: \(result.stderr)")
      return result
    }

    /// Starts the app in tmux and waits for its first screen.
    func start(columns: Int = 80, rows: Int = 24) throws -> TmuxSession {
      let session = try TmuxSession(
        "exec " + shellQuoted(warikan.path), environment: environment, columns: columns,
        rows: rows)
      try session.waitFor("Total  ¥")
      return session
    }

    /// The entries `warikan list --json` reports, newest first, as (cash, memo).
    func entries() throws -> [(cash: Int, memo: String)] {
      let output = try command("list", "--json").stdout
      let rows = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]]
      return try #require(rows).map { ($0["cash"] as? Int ?? -1, $0["memo"] as? String ?? "?") }
    }
  }

  @Test func addTabRegistersAnEntryAndShowsTheTotal() throws {
    let fixture = try Fixture()
    let app = try fixture.start()
    try app.type("2800")
    try app.press("Tab")
    try app.type("高速代金")
    try app.press("Enter")
    let screen = try app.waitFor("Registered ¥2,800 高速代金.")
    #expect(screen.contains(" Total  ¥2,800"))
    #expect(screen.contains("  ¥2,800  高速代金"))
    #expect(screen.contains("[ All 1 entry ]"))
    let entries = try fixture.entries()
    #expect(entries.map(\.cash) == [2800])
    #expect(entries.map(\.memo) == ["高速代金"])
  }

  @Test func anAmountThatIsNotANumberIsShownInRedAndNotRegistered() throws {
    let fixture = try Fixture()
    let app = try fixture.start()
    try app.type("12a")
    let screen = try app.waitFor("not a number")
    #expect(screen.contains("[12a "))
    let styled = try app.styledScreen()
    let amountLine = try #require(styled.split(separator: "\n").first { $0.contains("12a") })
    #expect(amountLine.contains("31m12a"), "amount line: \(amountLine.debugDescription)")
    try app.press("Enter", "Enter")
    try app.waitFor("`12a` is not an amount in yen")
    #expect(try fixture.entries().isEmpty)
    try app.press("BSpace")
    try app.waitForScreen("the red mark to go") { !$0.contains("not a number") }
  }

  @Test func listTabShowsNewestFirstAndDeleteAsksFirst() throws {
    let fixture = try Fixture()
    try fixture.command("add", "2800", "高速代金")
    try fixture.command("add", "5000", "夕食")
    try fixture.command("add", "700", "コーヒー")
    let app = try fixture.start()
    try app.press("Right")
    let screen = try app.waitFor("3 entries, newest first")
    let lines = screen.split(separator: "\n").map(String.init)
    let order = lines.compactMap { line in ["コーヒー", "夕食", "高速代金"].first { line.contains($0) } }
    #expect(order == ["コーヒー", "夕食", "高速代金"])
    try app.press("Down", "Enter")
    try app.waitFor("Delete ¥5,000 夕食?")
    try app.press("Enter")  // Cancel is chosen first
    try app.waitForScreen("the question to close") { !$0.contains("Delete ¥5,000 夕食?") }
    #expect(try fixture.entries().count == 3)
    try app.press("Enter")
    try app.waitFor("Delete ¥5,000 夕食?")
    try app.press("Right", "Enter")
    try app.waitFor("Deleted ¥5,000 夕食.")
    try app.waitFor("2 entries, newest first")
    #expect(try fixture.entries().map(\.memo) == ["コーヒー", "高速代金"])
  }

  @Test func resetAsksFirstThenClearsEverything() throws {
    let fixture = try Fixture()
    try fixture.command("add", "2800", "高速代金")
    try fixture.command("add", "1200", "")
    let app = try fixture.start()
    try app.press("Tab", "Tab", "Tab", "Enter")
    try app.waitFor("Reset: delete all 2 entries?")
    try app.press("Escape")
    try app.waitForScreen("the question to close") { !$0.contains("Reset: delete all") }
    #expect(try fixture.entries().count == 2)
    try app.press("Enter")
    try app.waitFor("Reset: delete all 2 entries?")
    try app.type("y")
    try app.waitFor("Reset: every entry was deleted.")
    try app.waitFor(" Total  ¥0")
    #expect(try fixture.entries().isEmpty)
    let documents = fixture.directory.url.appendingPathComponent(
      "kura-home/apps/warikan/Documents/cashData.json")
    #expect(!FileManager.default.fileExists(atPath: documents.path))
  }

  @Test func calcTabSplitsExactlyForFixedAndCustomPeople() throws {
    let fixture = try Fixture()
    try fixture.command("add", "10000", "宿代")
    let app = try fixture.start()
    try app.press("Left")  // wraps around to Calc
    try app.waitFor("Split between 2 people:")
    try app.waitFor("¥5,000 each")
    try app.press("Tab", "Enter")
    try app.waitFor("¥3,334 × 1 + ¥3,333 × 2 (remainder ¥1 spread)")
    var screen = try app.waitFor("Person 3  ¥3,333")
    #expect(screen.contains("¥3,334 + ¥3,333 + ¥3,333 = ¥10,000"))
    try app.press("Tab", "Tab")
    try app.type("7")
    screen = try app.waitFor("Split between 7 people:")
    #expect(screen.contains("¥1,429 × 4 + ¥1,428 × 3 (remainder ¥4 spread)"))
    try app.press("BSpace")
    try app.type("0")
    try app.waitFor("1 to 100,000")
    try app.press("Enter")
    try app.waitFor("`0` is not a number of people")
    try app.press("BSpace")
    try app.type("1")
    try app.waitFor("Split between 1 person:")
    try app.waitFor("¥10,000 each")
  }

  @Test func resizingRedrawsTheScreenForTheNewSize() throws {
    let fixture = try Fixture()
    try fixture.command("add", "2800", "高速代金")
    let app = try fixture.start(columns: 80, rows: 24)
    try app.resize(columns: 50, rows: 14)
    var screen = try app.waitForScreen("a 50-column layout") {
      $0.split(separator: "\n").contains { $0 == String(repeating: "─", count: 50) }
    }
    #expect(screen.split(separator: "\n").first?.hasSuffix("warikan  ¥2,800") == true)
    try app.resize(columns: 30, rows: 8)
    try app.waitFor("Window too small: 30×8.")
    try app.resize(columns: 100, rows: 30)
    screen = try app.waitForScreen("a 100-column layout") {
      $0.split(separator: "\n").contains { $0 == String(repeating: "─", count: 100) }
    }
    #expect(!screen.contains("Window too small"))
    #expect(screen.contains("  ¥2,800  高速代金"))
  }

  @Test func anEntryAddedByAnotherProcessAppearsWithoutARestart() throws {
    let fixture = try Fixture()
    let app = try fixture.start()
    try fixture.command("add", "700", "コーヒー")
    let screen = try app.waitFor("¥700  コーヒー")
    #expect(screen.contains(" Total  ¥700"))
    try app.press("Right")
    try app.waitFor("1 entry, newest first")
    try fixture.command("add", "300", "お菓子")
    try app.waitFor("2 entries, newest first")
  }

  @Test func aNarrowWindowShowsTheTotalAndFieldsEditAtTheCursor() throws {
    let fixture = try Fixture()
    try fixture.command("add", "987654321", "車")
    let app = try fixture.start(columns: 40, rows: 15)
    var screen = try app.waitFor("[ Register ]")
    let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.first?.hasSuffix("¥987,654,321") == true, "\(screen)")
    #expect(lines.contains { $0.hasSuffix("…") }, "nothing cut with …: \(screen)")
    try app.type("2800")
    try app.press("Left", "Left")
    try app.type("5")
    try app.press("C-a")
    try app.type("1")
    screen = try app.waitFor("[128500")
    // A digit typed on a button goes to the amount field (at its end).
    try app.press("End", "Tab", "Tab")
    try app.waitFor("[>Register<]")
    try app.type("7")
    screen = try app.waitFor("[1285007")
    try app.press("C-w")
    try app.waitForScreen("the amount to be cleared") { !$0.contains("1285007") }
  }

  @Test func theDraftComesBackAfterReopeningAndIsDiscardedOnQuit() throws {
    let fixture = try Fixture()
    let app = try fixture.start()
    try app.type("1500")
    try app.press("Tab")
    try app.type("ランチ")
    try app.press("Right")
    try app.waitFor("[ List ]")
    // Close the session's app the way a closed terminal does (SIGHUP), then reopen it in the
    // same pane (same scene).
    try app.respawn("exec " + shellQuoted(fixture.warikan.path))
    try app.waitFor("0 entries, newest first")
    try app.press("Left")
    var screen = try app.waitFor("[1500 ")
    #expect(screen.contains("[ランチ "))
    // The scene state is in Scenes/ while the app runs…
    let scenes = fixture.directory.url.appendingPathComponent("kura-home/apps/warikan/Scenes")
    let used = try FileManager.default.contentsOfDirectory(atPath: scenes.path)
    #expect(used.contains { $0.hasSuffix(".sqlite") }, "in Scenes/: \(used)")
    // …and a normal quit discards it.
    try app.press("C-c")
    try app.waitForScreen("the app to quit") { _ in (try? app.paneIsDead()) == true }
    // Nothing is left behind in Scenes/ (the folder may go too): not even a file of removal
    // markers.
    let left = (try? FileManager.default.contentsOfDirectory(atPath: scenes.path)) ?? []
    #expect(left.isEmpty, "left in Scenes/: \(left)")
    try app.respawn("exec " + shellQuoted(fixture.warikan.path))
    screen = try app.waitFor("Total  ¥0")
    #expect(screen.contains("[ Add ]"))
    #expect(!screen.contains("1500"))
    #expect(!screen.contains("ランチ"))
  }

  @Test(arguments: ["C-c", "q"])
  func quittingRestoresTheTerminal(key: String) throws {
    let fixture = try Fixture()
    let (app, before, after, _, statusFile) = try startBetweenSnapshots(
      fixture, fixture.warikan, environment: fixture.environment)
    try app.waitFor("Total  ¥0")
    #expect(try app.alternateScreenIsOn())
    try app.press("Tab", "Tab", key)
    TmuxSession.waitUntil("the shell to go on") {
      FileManager.default.fileExists(atPath: after)
    }
    #expect(try status(at: statusFile) == 0)
    #expect(try !app.alternateScreenIsOn(), "the alternate screen was left")
    #expect(
      try String(contentsOfFile: after, encoding: .utf8)
        == String(contentsOfFile: before, encoding: .utf8))
  }

  /// Runs `program arguments…` in tmux between two `stty -g` snapshots; the program writes its
  /// pid to a file first (it is exec'd by a child shell, so it keeps the terminal). The shell
  /// traps SIGINT so that it goes on after its child dies of one (a shell otherwise stops).
  private func startBetweenSnapshots(
    _ fixture: Fixture, _ program: URL, _ arguments: [String] = [],
    environment: [String: String]
  ) throws -> (TmuxSession, before: String, after: String, pid: String, status: String) {
    let before = fixture.directory.file("before").path
    let after = fixture.directory.file("after").path
    let pid = fixture.directory.file("pid").path
    let status = fixture.directory.file("status").path
    let command = ([program.path] + arguments).map(shellQuoted).joined(separator: " ")
    let session = try TmuxSession(
      "trap : INT; stty -g > \(shellQuoted(before)); sh -c 'echo $$ > \(pid); exec \"$@\"' sh \(command);"
        + " echo \"$?\" > \(shellQuoted(status)); stty -g > \(shellQuoted(after)).tmp;"
        + " mv \(shellQuoted(after)).tmp \(shellQuoted(after))",
      environment: environment)
    return (session, before, after, pid, status)
  }

  /// The exit status the shell saw, as written to `path`.
  private func status(at path: String) throws -> Int32? {
    Int32(
      try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(
        in: .whitespacesAndNewlines))
  }

  @Test(arguments: [(SIGTERM, "TERM"), (SIGHUP, "HUP"), (SIGINT, "INT"), (SIGQUIT, "QUIT")])
  func aSignalRestoresTheTerminalAndStillEndsTheProcess(signal: Int32, name: String) throws {
    let fixture = try Fixture()
    var environment = fixture.environment
    environment["SWIFT_BACKTRACE"] = "enable=no"
    let (app, before, after, pidFile, statusFile) = try startBetweenSnapshots(
      fixture, fixture.warikan, environment: environment)
    try app.waitFor("Total  ¥0")
    let pid = try #require(
      Int32(
        try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(
          in: .whitespacesAndNewlines)))
    #expect(kill(pid, signal) == 0)
    TmuxSession.waitUntil("the shell to go on") {
      FileManager.default.fileExists(atPath: after)
    }
    #expect(try status(at: statusFile) == 128 + signal, "SIG\(name) re-raised")
    #expect(try !app.alternateScreenIsOn(), "the alternate screen was left")
    #expect(
      try String(contentsOfFile: after, encoding: .utf8)
        == String(contentsOfFile: before, encoding: .utf8))
  }

  @Test(arguments: ["trap", "abort", "segv"])
  func aCrashRestoresTheTerminal(mode: String) throws {
    let fixture = try Fixture()
    var environment = fixture.environment
    environment["SWIFT_BACKTRACE"] = "enable=no"
    let (app, before, after, _, statusFile) = try startBetweenSnapshots(
      fixture, try executable("kura-testhelper"), ["terminal-crash", mode],
      environment: environment)
    try app.waitFor("raw mode on")
    try app.press("x")
    TmuxSession.waitUntil("the shell to go on") {
      FileManager.default.fileExists(atPath: after)
    }
    let expected: [Int32] =
      switch mode {
      case "abort": [SIGABRT]
      case "segv": [SIGSEGV]
      default: [SIGILL, SIGTRAP]  // a Swift trap: ud2 on x86_64, brk on arm64
      }
    let crashStatus = try status(at: statusFile)
    #expect(
      expected.contains { crashStatus == 128 + $0 },
      "the crash signal was re-raised: status \(String(describing: crashStatus))")
    #expect(try !app.alternateScreenIsOn(), "the alternate screen was left")
    #expect(
      try String(contentsOfFile: after, encoding: .utf8)
        == String(contentsOfFile: before, encoding: .utf8))
  }

  @Test func aDamagedFileIsReportedBeforeTheScreenIsTakenOver() throws {
    let fixture = try Fixture()
    let documents = fixture.directory.url.appendingPathComponent("kura-home/apps/warikan/Documents")
    try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
    let file = documents.appendingPathComponent("cashData.json")
    try Data("[{\"id\": oops".utf8).write(to: file)
    let (app, before, after, _, statusFile) = try startBetweenSnapshots(
      fixture, fixture.warikan, environment: fixture.environment)
    TmuxSession.waitUntil("the shell to go on") {
      FileManager.default.fileExists(atPath: after)
    }
    #expect(try status(at: statusFile) == 1)
    let screen = try app.transcript()
    #expect(screen.contains("warikan: error: "), "screen: \(screen)")
    #expect(screen.contains("cashData.json"))
    #expect(screen.contains("run `warikan recover`"))
    #expect(try !app.alternateScreenIsOn())
    #expect(
      try String(contentsOfFile: after, encoding: .utf8)
        == String(contentsOfFile: before, encoding: .utf8))
    #expect(try Data(contentsOf: file) == Data("[{\"id\": oops".utf8), "the file is left as it was")
  }

  @Test func withoutATerminalWarikanPrintsItsHelp() throws {
    let fixture = try Fixture()
    let result = try run(fixture.warikan, [], environment: fixture.environment)
    #expect(result.status == 0)
    #expect(
      result.stdout.hasPrefix(
        "OVERVIEW: Splits a bill: records what was spent and shares the total exactly."),
      "help: \(result.stdout)")
    #expect(result.stdout.contains("USAGE: warikan <command>"))
    #expect(result.stderr.isEmpty)
  }
}
