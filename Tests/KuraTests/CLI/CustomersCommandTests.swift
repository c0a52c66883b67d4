import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

@testable import Kura

@Suite("customers app")
struct CustomersCommandTests {
  let folder = TemporaryDirectory()

  func customers(_ arguments: String...) throws -> ProcessResult {
    try run(try executable("customers"), arguments, environment: folder.environment)
  }

  @Test func addListAndDelete() throws {
    #expect(
      try customers("list").stdout
        == "No customers yet. Add one with `customers add <number> <name>`.\n")
    #expect(try customers("add", "12", "Taro", "Yamada").stdout == "Added No.12: Taro Yamada\n")
    #expect(try customers("add", "3", "花子").stdout == "Added No.3: 花子\n")
    #expect(try customers("list").stdout == "1  No.12: Taro Yamada\n2  No.3: 花子\n")
    let json = try customers("list", "--json").stdout
    struct Row: Decodable, Equatable {
      var customerName: String
      var customerNumber: Int
      var id: UUID
    }
    let rows = try JSONDecoder().decode([Row].self, from: Data(json.utf8))
    #expect(rows.map(\.customerName) == ["Taro Yamada", "花子"])
    #expect(rows.map(\.customerNumber) == [12, 3])
    #expect(Set(rows.map(\.id)).count == 2)
    #expect(try customers("delete", "1").stdout == "Deleted No.12: Taro Yamada\n")
    #expect(try customers("list").stdout == "1  No.3: 花子\n")
    // The whole list is one array under the seed's key of the standard suite.
    let preferences = try Preferences(suite: "customers", environment: folder.environment)
    guard case .array(let stored) = try #require(preferences.value(forKey: "顧客情報保存")) else {
      Issue.record("the list is not an array")
      return
    }
    #expect(stored.count == 1)
  }

  @Test func aNumberThatDoesNotParseIsAnErrorThatQuotesIt() throws {
    let result = try customers("add", "12a", "Taro")
    #expect(result.status == 64)
    #expect(
      result.stderr
        == "customers: error: `12a` is not a valid value for <number>: expected a whole number "
        + "of 0 or more.\nSee `customers add --help`.\n")
    let deleting = try customers("delete", "x")
    #expect(deleting.status == 64)
    #expect(deleting.stderr.hasPrefix("customers: error: `x` is not a valid value for <row>"))
    #expect(try customers("delete", "0").status == 64)
    #expect(try customers("list").stdout.hasPrefix("No customers yet."))
  }

  @Test func aListThatDoesNotDecodeIsReportedAndKept() throws {
    _ = try customers("add", "1", "Luna")
    let preferences = try Preferences(suite: "customers", environment: folder.environment)
    // Another version of the app (or a person) left something else under the key.
    try preferences.setValue(.string("garbage"), forKey: "顧客情報保存")
    let list = try customers("list")
    #expect(list.status == 1)
    #expect(
      list.stderr
        == "customers: error: Can't list customers: the value under key `顧客情報保存` (string) is"
        + " not a customer list. Nothing was changed; look at it with `kura defaults read"
        + " customers 顧客情報保存`.\n")
    let add = try customers("add", "2", "Ron")
    #expect(add.status == 1)
    #expect(
      add.stderr
        == "customers: error: Can't change customers: the value under key `顧客情報保存` (string)"
        + " is not a customer list. Nothing was changed; look at it with `kura defaults read"
        + " customers 顧客情報保存`.\n")
    #expect(preferences.value(forKey: "顧客情報保存") == .string("garbage"))
  }

  @Test func anIDStartThatMatchesSeveralCustomersListsThemAndDeletesNothing() throws {
    let list =
      #"[{"id":"3F4D0000-0000-0000-0000-000000000001","customerName":"Ann","customerNumber":1},"#
      + #"{"id":"3F4D0000-0000-0000-0000-000000000002","customerName":"Bob","customerNumber":2}]"#
    let written = try run(
      try executable("kura"), ["defaults", "write", "customers", "顧客情報保存", list, "--json"],
      environment: folder.environment)
    try #require(written.status == 0, "\(written.stderr)")
    let both = try customers("delete", "3f4d")
    #expect(both.status == 64)
    #expect(
      both.stderr
        == "customers: error: `3f4d` matches 2 customers: No.1: Ann "
        + "(3F4D0000-0000-0000-0000-000000000001), No.2: Bob "
        + "(3F4D0000-0000-0000-0000-000000000002). Give more of the id.\n"
        + "See `customers delete --help`.\n")
    #expect(try customers("list").stdout == "1  No.1: Ann\n2  No.2: Bob\n")
    #expect(
      try customers("delete", "3F4D0000-0000-0000-0000-000000000002").stdout
        == "Deleted No.2: Bob\n")
  }

  @Test func aSuiteThatCanNotBeOpenedIsAnErrorNotAWarning() throws {
    // A file where the preferences folder should be: the suite can't be created.
    let home = folder.url.appendingPathComponent("kura-home")
    try FileManager.default.createDirectory(
      at: home.appendingPathComponent("apps/customers"), withIntermediateDirectories: true)
    try Data("x".utf8).write(to: home.appendingPathComponent("apps/customers/Preferences"))
    for arguments in [["add", "1", "Luna"], ["list"], ["delete", "1"], ["fields"]] {
      let result = try run(
        try executable("customers"), arguments, environment: folder.environment)
      #expect(result.status == 1, "customers \(arguments)")
      #expect(result.stdout == "")
      #expect(result.stderr.hasPrefix("customers: error: Can't open preferences `"))
      #expect(!result.stderr.contains("kept in memory"))
    }
    var environment = folder.environment
    environment["KURA_APP_ID"] = "../x"
    let badApp = try run(
      try executable("customers"), ["add", "1", "Luna"], environment: environment)
    #expect(badApp.status == 1)
    #expect(
      badApp.stderr
        == "customers: error: Can't use app identifier `../x`: it contains `/`. Use a reverse-DNS"
        + " name such as `com.example.app`.\n")
  }

  @Test func deletingAnUnknownNumberFails() throws {
    _ = try customers("add", "1", "Luna")
    let result = try customers("delete", "--number", "7")
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "customers: error: Can't delete customers numbered `7`: no customer has that number. "
        + "See the numbers with `customers list`.\n")
    let row = try customers("delete", "2")
    #expect(row.status == 1)
    #expect(
      row.stderr
        == "customers: error: Can't delete row `2`: there is no such row and no customer id "
        + "starts with it (rows go from 1 to 1). See the rows with `customers list`.\n")
    #expect(try customers("list").stdout == "1  No.1: Luna\n")
  }

  @Test func anEmptyNameIsRefused() throws {
    let result = try customers("add", "1", " ")
    #expect(result.status == 64)
    #expect(
      result.stderr
        == "customers: error: The customer's <name> is empty: give a name.\n"
        + "See `customers add --help`.\n")
  }

  @Test func concurrentAddsFromSeveralProcessesAreAllKept() throws {
    let url = try executable("customers")
    let children = try (1...4).map { number in
      try ChildProcess(
        url, ["add", String(number), "Customer \(number)"], environment: folder.environment)
    }
    for child in children { #expect(child.waitForExit() == 0) }
    let lines = try customers("list").stdout.split(separator: "\n").map { $0.dropFirst(3) }.sorted()
    #expect(
      lines == ["No.1: Customer 1", "No.2: Customer 2", "No.3: Customer 3", "No.4: Customer 4"])
  }

  @Test func theThreeFieldsBehaveAsTheSeedObserved() throws {
    #expect(try customers("fields", "set", "menu", "Ramen").stdout == "menu = Ramen\n")
    #expect(try customers("fields", "set", "fruits", "apple").stdout == "fruits = apple\n")
    #expect(try customers("fields", "set", "basket", "eggs").stdout == "basket = eggs\n")
    // A relaunch (a new process) restores all three: the scene was reopened by its id.
    #expect(
      try customers("fields").stdout
        == """
        menu = Ramen    (scene main)
        fruits = apple    (group.iOS17.M_Kaku)
        basket = eggs    (customers)

        """)
    // Another scene has its own menu; the App Group value is shared with every app of the group.
    #expect(try customers("fields", "--scene", "second", "--json").stdout.contains(#""menu" : """#))
    let shared = try run(
      try executable("kura"), ["defaults", "read", "group.iOS17.M_Kaku", "fruits"],
      environment: folder.environment)
    #expect(shared.stdout == "apple\n")
    #expect(try customers("fields", "scenes").stdout == "main\n")
    // Discarding the scene loses the menu; app storage survives.
    #expect(try customers("fields", "discard-scene").stdout == "Discarded scene `main`.\n")
    #expect(
      try customers("fields", "--json").stdout
        == """
        {
          "basket" : "eggs",
          "fruits" : "apple",
          "menu" : ""
        }

        """)
    #expect(try customers("fields", "scenes").stdout == "")
    // A scene that holds no state is an error, and is not created by the attempt.
    let noScene = try customers("fields", "discard-scene", "--scene", "nosuch")
    #expect(noScene.status == 1)
    #expect(
      noScene.stderr
        == "customers: error: Can't discard scene `nosuch`: it holds no state (no scene holds"
        + " state). Nothing was changed.\n")
    let scenesFolder = folder.url.appendingPathComponent("kura-home/apps/customers/Scenes")
    #expect(!FileManager.default.fileExists(atPath: scenesFolder.path + "/nosuch.sqlite"))
    let badDiscard = try customers("fields", "discard-scene", "--scene", "../x")
    #expect(badDiscard.status == 64)
    #expect(badDiscard.stderr.hasPrefix("customers: error: Can't use scene identifier `../x`"))
    let unknown = try customers("fields", "set", "lunch", "x")
    #expect(unknown.status == 64)
    #expect(
      unknown.stderr
        == "customers: error: Unknown field `lunch`: use menu, fruits or basket.\n"
        + "See `customers fields set --help`.\n")
    let badScene = try customers("fields", "--scene", "a/b")
    #expect(badScene.status == 64)
    #expect(
      badScene.stderr
        == "customers: error: Can't use scene identifier `a/b`: it contains `/`. "
        + "Use a name such as `main` or a UUID.\nSee `customers fields --help`.\n")
  }
}

@Suite("customers: one row, seed-format list, seed 004 dictionary")
struct CustomersSeedBehaviourTests {
  let folder = TemporaryDirectory()

  func customers(_ arguments: String...) throws -> ProcessResult {
    try run(try executable("customers"), arguments, environment: folder.environment)
  }

  @Test func deleteRemovesOneRowByPositionOrIdAndEveryNumberOnlyWhenAsked() throws {
    _ = try customers("add", "12", "Taro")
    _ = try customers("add", "12", "Jiro")
    _ = try customers("add", "１２", "Saburo")  // full-width digits, as a Japanese keyboard types
    _ = try customers("add", "3", "Hanako")
    #expect(try customers("delete", "2").stdout == "Deleted No.12: Jiro\n")
    let json = try customers("list", "--json").stdout
    struct Row: Decodable { var id: UUID }
    let ids = try JSONDecoder().decode([Row].self, from: Data(json.utf8)).map(\.id)
    #expect(
      try customers("delete", String(ids[2].uuidString.prefix(8))).stdout
        == "Deleted No.3: Hanako\n")
    #expect(
      try customers("list").stdout == "1  No.12: Taro\n2  No.12: Saburo\n")
    #expect(
      try customers("delete", "--number", "12").stdout
        == "Deleted No.12: Taro\nDeleted No.12: Saburo\n")
    let both = try customers("delete", "1", "--number", "3")
    #expect(both.status == 64)
    #expect(both.stderr.hasPrefix("customers: error: Give either <row> or --number, not both."))
  }

  @Test func aSeedFormatListIsReadAndWrittenBackInTheSeedFormat() throws {
    // The seed app JSON-encodes the array into one `Data` value under the key.
    let seed = Data(
      #"[{"id":"3F4D8393-8D86-4C81-AFB9-1854A5E38BDC","customerName":"田中","customerNumber":7}]"#
        .utf8)
    let preferences = try Preferences(suite: "customers", environment: folder.environment)
    try preferences.setValue(.data(seed), forKey: "顧客情報保存")
    #expect(try customers("list").stdout == "1  No.7: 田中\n")
    #expect(try customers("add", "8", "鈴木").status == 0)
    let reopened = try Preferences(suite: "customers", environment: folder.environment)
    guard case .data(let bytes) = try #require(reopened.value(forKey: "顧客情報保存")) else {
      Issue.record("the seed-format list was not written back as Data")
      return
    }
    struct SeedCustomer: Decodable {
      var id: UUID
      var customerName: String
      var customerNumber: Int
    }
    let decoded = try JSONDecoder().decode([SeedCustomer].self, from: bytes)
    #expect(decoded.map(\.customerName) == ["田中", "鈴木"])
    #expect(decoded.first?.id.uuidString == "3F4D8393-8D86-4C81-AFB9-1854A5E38BDC")
    // `kura defaults read --json` shows the bytes in the seed's shape, not as base64.
    let read = try run(
      try executable("kura"), ["defaults", "read", "customers", "顧客情報保存", "--json"],
      environment: folder.environment)
    let shown = try JSONDecoder().decode([SeedCustomer].self, from: Data(read.stdout.utf8))
    #expect(shown.map(\.customerNumber) == [7, 8])
  }

  @Test func aTypedListReadsInTheSeedShapeThroughKuraDefaults() throws {
    _ = try customers("add", "12", "Taro")
    let read = try run(
      try executable("kura"), ["defaults", "read", "customers", "顧客情報保存", "--json"],
      environment: folder.environment)
    let rows = try #require(
      try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [[String: Any]])
    #expect(rows.count == 1)
    #expect(Set(rows[0].keys) == ["id", "customerName", "customerNumber"])
    #expect(rows[0]["customerName"] as? String == "Taro")
  }

  @Test func theDictionaryIsSharedByTwoProcessesAndCleared() throws {
    let watcher = try ChildProcess(
      try executable("customers"), ["dictionary", "watch"], environment: folder.environment)
    watcher.waitForLine(onStandardError: true) { $0.hasPrefix("Watching") }
    watcher.waitForLine { $0 == "0 entries:" }
    let added = try customers("dictionary", "add", "first")
    #expect(added.stdout.hasPrefix("Added ") && added.stdout.hasSuffix(" = FirstView\n"))
    watcher.waitForLine { $0 == "Changed, 1 entry:" }
    _ = try customers("dictionary", "add", "second")
    watcher.waitForLine { $0 == "Changed, 2 entries:" }
    let shown = try customers("dictionary").stdout.split(separator: "\n")
    #expect(shown.count == 2)
    #expect(
      Set(shown.map { $0.split(separator: " = ").last ?? "" }) == ["FirstView", "SecondView"])
    #expect(try customers("dictionary", "clear").stdout == "Cleared 2 entries.\n")
    watcher.waitForLine { $0 == "Changed, 0 entries:" }
    watcher.send(SIGINT)
    #expect(watcher.waitForExit() == 0)
    #expect(
      watcher.outputLines.filter { $0.hasSuffix(":") }
        == ["0 entries:", "Changed, 1 entry:", "Changed, 2 entries:", "Changed, 0 entries:"])
    let bad = try customers("dictionary", "add", "third")
    #expect(bad.status == 64)
  }
}
