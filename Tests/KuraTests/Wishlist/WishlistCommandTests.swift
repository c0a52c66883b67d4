import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

@testable import Kura

/// A text listing without the short ids that end its activity lines (`  (1A2B3C4D)`).
private func withoutIDs(_ listing: String) -> String {
  listing.replacingOccurrences(
    of: #"  \([0-9A-F]{8}\)\n"#, with: "\n", options: .regularExpression)
}

/// Runs `wishlist` on `store`; `ok` requires success and returns the output.
private struct Wishlist {
  let store: TestStore
  var environment: [String: String] {
    var environment = store.environment
    environment["TZ"] = "Asia/Tokyo"
    return environment
  }

  func run(_ arguments: [String]) throws -> ProcessResult {
    try KuraTestSupport.run(try executable("wishlist"), arguments, environment: environment)
  }

  @discardableResult
  func ok(_ arguments: String...) throws -> String {
    let result = try run(arguments)
    try #require(result.status == 0, "wishlist \(arguments) failed: \(result.stderr)")
    return result.stdout
  }
}

@Suite("wishlist")
struct WishlistCommandTests {
  private func wishlist(_ arguments: [String], _ store: TestStore) throws -> ProcessResult {
    try Wishlist(store: store).run(arguments)
  }

  /// Runs a command that must succeed and returns its output.
  @discardableResult
  private func ok(_ arguments: [String], _ store: TestStore) throws -> String {
    let result = try wishlist(arguments, store)
    try #require(result.status == 0, "wishlist \(arguments) failed: \(result.stderr)")
    return result.stdout
  }

  private func id(of output: String) throws -> String {
    let open = try #require(output.lastIndex(of: "("))
    return String(output[output.index(after: open)...].prefix(8))
  }

  @Test(arguments: TestEngine.enabled)
  func tripsWithActivitiesFromAddToCascadingDelete(_ engine: TestEngine) throws {
    let store = try wishlistStore(engine)
    let kyoto = try ok(
      [
        "trip", "add", "Kyoto", "--start", "2026-12-24", "--end", "2026-12-28", "--photo",
        "https://example.com/kyoto.jpg",
      ], store)
    #expect(kyoto.hasPrefix("Added trip Kyoto ("))
    let kyotoID = try id(of: kyoto)
    let nara = try ok(["trip", "add", "Nara Park", "--start", "2027-01-02"], store)
    let naraID = try id(of: nara)
    #expect(
      try ok(["activity", "add", "kyoto", "Fushimi Inari"], store)
        == "Added Fushimi Inari to Kyoto.\n")
    try ok(["activity", "add", "Kyoto", "Tea ceremony"], store)
    try ok(["activity", "add", "nara", "Deer"], store)
    #expect(
      try ok(["activity", "done", "Kyoto", "tea ceremony"], store)
        == "Done: Tea ceremony (Kyoto).\n")
    #expect(
      try ok(["trip", "list"], store)
        == "Kyoto  2026-12-24 – 2026-12-28  2 activities  photo: https://example.com/kyoto.jpg  "
        + "(\(kyotoID))\n"
        + "Nara Park  2027-01-02 – 2027-01-02  1 activity  photo: placeholder  (\(naraID))\n")
    #expect(
      try ok(["trip", "rename", "nara park", "Nara"], store) == "Renamed Nara Park to Nara.\n")
    #expect(
      try ok(["trip", "delete", "Kyoto"], store)
        == "Deleted trip Kyoto and its 2 activities.\n")
    #expect(
      try ok(["trip", "list"], store)
        == "Nara  2027-01-02 – 2027-01-02  1 activity  photo: placeholder  (\(naraID))\n")
    let activities = try store.inspector().info().models.first { $0.table == "Activity" }
    #expect(activities?.rows == 1)
  }

  @Test(arguments: TestEngine.enabled)
  func activitySortOrderIsRememberedAcrossRuns(_ engine: TestEngine) throws {
    let store = try wishlistStore(engine)
    try ok(["trip", "add", "Kyoto"], store)
    for name in ["Tea ceremony", "Bamboo grove", "Ryokan"] {
      try ok(["activity", "add", "Kyoto", name], store)
    }
    try ok(["activity", "done", "Kyoto", "Bamboo grove"], store)
    #expect(
      withoutIDs(try ok(["activity", "list", "Kyoto"], store))
        == "Kyoto, by title:\n  [x] Bamboo grove\n  [ ] Ryokan\n  [ ] Tea ceremony\n")
    #expect(
      withoutIDs(try ok(["activity", "list", "Kyoto", "--sort", "date"], store))
        == "Kyoto, by date:\n  [ ] Tea ceremony\n  [x] Bamboo grove\n  [ ] Ryokan\n")
    // The next run, without --sort, keeps the order chosen last.
    #expect(
      withoutIDs(try ok(["activity", "list", "Kyoto"], store))
        == "Kyoto, by date:\n  [ ] Tea ceremony\n  [x] Bamboo grove\n  [ ] Ryokan\n")
    #expect(
      withoutIDs(try ok(["activity", "list", "Kyoto", "--sort", "completion"], store))
        == "Kyoto, by completion:\n  [ ] Ryokan\n  [ ] Tea ceremony\n  [x] Bamboo grove\n")
    #expect(try ok(["activity", "list", "Kyoto"], store).hasPrefix("Kyoto, by completion:\n"))
    let bad = try wishlist(["activity", "list", "Kyoto", "--sort", "price"], store)
    #expect(bad.status == 64)
    #expect(
      bad.stderr
        == "wishlist: error: `price` is not a valid value for --sort: use title, date or "
        + "completion.\nSee `wishlist activity list --help`.\n")
  }

  @Test(arguments: TestEngine.enabled)
  func recentListsNewestFirstAndWatchPrintsTripsAddedByAnotherProcess(_ engine: TestEngine) throws {
    let store = try wishlistStore(engine)
    try ok(["trip", "add", "Kyoto"], store)
    try ok(["trip", "add", "Nara"], store)
    let recent = try ok(["recent"], store)
    #expect(
      recent.split(separator: "\n").map { $0.prefix(while: { $0 != " " }) } == ["Nara", "Kyoto"])
    let watcher = try ChildProcess(
      try executable("wishlist"), ["recent", "--watch"],
      environment: Wishlist(store: store).environment)
    watcher.waitForLine { $0 == "Watching for new trips (interrupt to stop)." }
    #expect(watcher.outputLines.first?.hasPrefix("Nara  ") == true)
    try ok(["trip", "add", "Hakone"], store)
    let added = watcher.waitForLine { $0.hasPrefix("+ ") }
    #expect(added?.hasPrefix("+ Hakone  ") == true)
    try ok(["activity", "add", "Hakone", "Onsen"], store)
    try ok(["trip", "add", "Sapporo"], store)
    let next = watcher.waitForLine { $0.hasPrefix("+ Sapporo") }
    #expect(next != nil)
    #expect(watcher.outputLines.filter { $0.hasPrefix("+ ") }.count == 2)
    watcher.send(SIGKILL)
    _ = watcher.waitForExit()
  }

  @Test(arguments: TestEngine.enabled)
  func searchFindsTripsAndActivitiesByWordPrefix(_ engine: TestEngine) throws {
    let store = try wishlistStore(engine)
    try ok(["trip", "add", "Kyōto in winter"], store)
    try ok(["trip", "add", "Nara"], store)
    try ok(["activity", "add", "Nara", "Feed the deer"], store)
    let trips = try ok(["search", "kyoto"], store)
    #expect(trips.hasPrefix("trip      Kyōto in winter  ("))
    #expect(try ok(["search", "dee"], store) == "activity  Feed the deer  (Nara)\n")
    #expect(try ok(["search", "tokyo"], store) == "Nothing matches `tokyo`.\n")
    try ok(["trip", "rename", "Nara", "Nara in autumn"], store)
    #expect(try ok(["search", "autumn"], store).hasPrefix("trip      Nara in autumn  ("))
    try ok(["trip", "delete", "Nara in autumn"], store)
    #expect(try ok(["search", "deer"], store) == "Nothing matches `deer`.\n")
  }

  @Test(arguments: TestEngine.enabled)
  func unknownTripAndBadInputAreClearErrors(_ engine: TestEngine) throws {
    let store = try wishlistStore(engine)
    let missing = try wishlist(["trip", "delete", "Atlantis"], store)
    #expect(missing.status == 1)
    #expect(
      missing.stderr
        == "wishlist: error: There is no trip `Atlantis`. See the trips with `wishlist trip list`.\n"
    )
    let badDate = try wishlist(["trip", "add", "Kyoto", "--start", "24/12/2026"], store)
    #expect(badDate.status == 64)
    #expect(
      badDate.stderr
        == "wishlist: error: `24/12/2026` is not a valid value for --start: give a date as "
        + "year-month-day, such as 2026-12-24 (a four-digit year from 0001 to 9999).\n"
        + "See `wishlist trip add --help`.\n")
    let backwards = try wishlist(
      ["trip", "add", "Kyoto", "--start", "2026-12-24", "--end", "2026-12-20"], store)
    #expect(backwards.status == 64)
    #expect(
      backwards.stderr.hasPrefix(
        "wishlist: error: `2026-12-20` is not a valid value for --end: the trip can't end before "
          + "it starts (2026-12-24)."))
  }
}

@Suite("wishlist: the seed's missing actions")
struct WishlistActionTests {
  @Test(arguments: TestEngine.enabled)
  func anActivityIsRenamedToggledAndDeletedAlone(_ engine: TestEngine) throws {
    let store = try wishlistStore(engine)
    let wishlist = Wishlist(store: store)
    try wishlist.ok("trip", "add", "Kyoto")
    try wishlist.ok("activity", "add", "Kyoto", "Tea")
    try wishlist.ok("activity", "add", "Kyoto", "Temple")
    #expect(
      try wishlist.ok("activity", "rename", "Kyoto", "tea", "Tea ceremony")
        == "Renamed Tea to Tea ceremony (Kyoto).\n")
    #expect(
      try wishlist.ok("activity", "done", "Kyoto", "Tea ceremony")
        == "Done: Tea ceremony (Kyoto).\n")
    #expect(
      try wishlist.ok("activity", "done", "Kyoto", "Tea ceremony", "--undo")
        == "Not done: Tea ceremony (Kyoto).\n")
    #expect(
      try wishlist.ok("activity", "delete", "Kyoto", "temple") == "Deleted Temple from Kyoto.\n")
    #expect(
      withoutIDs(try wishlist.ok("activity", "list", "Kyoto"))
        == "Kyoto, by title:\n  [ ] Tea ceremony\n")
    let missing = try wishlist.run(["activity", "delete", "Kyoto", "Temple"])
    #expect(missing.status == 1)
    #expect(missing.stderr.hasPrefix("wishlist: error: Kyoto has no activity `Temple`."))
  }

  /// The short id (the first 8 characters) of what a `--json` command printed.
  private func shortID(_ wishlist: Wishlist, _ arguments: String...) throws -> String {
    let result = try wishlist.run(arguments + ["--json"])
    try #require(result.status == 0, "wishlist \(arguments) failed: \(result.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    let id = try #require((object as? [String: Any])?["id"] as? String)
    return String(id.prefix(8))
  }

  @Test(arguments: TestEngine.enabled)
  func deletingATripNeedsItsWholeNameOrTheStartOfItsID(_ engine: TestEngine) throws {
    let wishlist = Wishlist(store: try wishlistStore(engine))
    let kyoto = try shortID(wishlist, "trip", "add", "Kyoto")
    let kyushu = try shortID(wishlist, "trip", "add", "Kyushu")
    try wishlist.ok("activity", "add", "Kyushu", "Onsen")
    let both = try wishlist.run(["trip", "delete", "Ky"])
    #expect(both.status == 1)
    #expect(
      both.stderr
        == "wishlist: error: `Ky` matches Kyoto (\(kyoto)) and Kyushu (\(kyushu)): give the whole "
        + "name or the start of an id (see `wishlist trip list`).\n")
    let start = try wishlist.run(["trip", "delete", "Kyu"])
    #expect(start.status == 1)
    #expect(
      start.stderr
        == "wishlist: error: `Kyu` is not the name of a trip: it is the start of Kyushu "
        + "(\(kyushu)). To delete it, give its whole name or the start of its id.\n")
    #expect(try wishlist.ok("trip", "list").split(separator: "\n").count == 2)
    // A command that deletes nothing still takes the start of one name.
    #expect(try wishlist.ok("trip", "rename", "Kyu", "Kyūshū") == "Renamed Kyushu to Kyūshū.\n")
    #expect(
      try wishlist.ok("trip", "delete", String(kyushu.prefix(5)))
        == "Deleted trip Kyūshū and its 1 activity.\n")
    #expect(
      try wishlist.ok("trip", "delete", "kyoto") == "Deleted trip Kyoto and its 0 activities.\n")
  }

  @Test(arguments: TestEngine.enabled)
  func activitiesOfTheSameNameArePickedByExactCaseThenByID(_ engine: TestEngine) throws {
    let wishlist = Wishlist(store: try wishlistStore(engine))
    try wishlist.ok("trip", "add", "Kyoto")
    let first = try shortID(wishlist, "activity", "add", "Kyoto", "Tea")
    let second = try shortID(wishlist, "activity", "add", "Kyoto", "Tea")
    let lower = try shortID(wishlist, "activity", "add", "Kyoto", "tea")
    #expect(
      try wishlist.ok("activity", "list", "Kyoto")
        == "Kyoto, by title:\n  [ ] Tea  (\(first))\n  [ ] Tea  (\(second))\n"
        + "  [ ] tea  (\(lower))\n")
    #expect(try wishlist.ok("activity", "delete", "Kyoto", "tea") == "Deleted tea from Kyoto.\n")
    let two = try wishlist.run(["activity", "delete", "Kyoto", "Tea"])
    #expect(two.status == 1)
    #expect(
      two.stderr
        == "wishlist: error: 2 activities of Kyoto are named `Tea`: Tea (\(first)) and Tea "
        + "(\(second)). Name one by the start of its id.\n")
    let start = try wishlist.run(["activity", "delete", "Kyoto", "Te"])
    #expect(start.status == 1)
    #expect(
      start.stderr
        == "wishlist: error: `Te` matches Tea (\(first)) and Tea (\(second)): give the whole name "
        + "or the start of an id (see `wishlist activity list \"Kyoto\"`).\n")
    #expect(
      try wishlist.ok("activity", "delete", "Kyoto", second.lowercased())
        == "Deleted Tea from Kyoto.\n")
    #expect(try wishlist.ok("activity", "done", "Kyoto", "TEA") == "Done: Tea (Kyoto).\n")
    #expect(
      try wishlist.ok("activity", "list", "Kyoto") == "Kyoto, by title:\n  [x] Tea  (\(first))\n")
  }

  @Test(arguments: TestEngine.enabled)
  func searchFindsJapaneseByAnyPart(_ engine: TestEngine) throws {
    let store = try wishlistStore(engine)
    let wishlist = Wishlist(store: store)
    try wishlist.ok("trip", "add", "Kyoto")
    try wishlist.ok("activity", "add", "Kyoto", "お寺巡り")
    #expect(try wishlist.ok("search", "寺") == "activity  お寺巡り  (Kyoto)\n")
    #expect(try wishlist.ok("search", "寺巡り") == "activity  お寺巡り  (Kyoto)\n")
    #expect(try wishlist.ok("search", "お寺") == "activity  お寺巡り  (Kyoto)\n")
    #expect(try wishlist.ok("search", "神社") == "Nothing matches `神社`.\n")
  }

  @Test(arguments: TestEngine.enabled)
  func recentPrintsJSON(_ engine: TestEngine) throws {
    let store = try wishlistStore(engine)
    let wishlist = Wishlist(store: store)
    try wishlist.ok("trip", "add", "Kyoto")
    try wishlist.ok("trip", "add", "Nara")
    let json = try wishlist.ok("recent", "--json")
    struct Row: Decodable { var name: String }
    let rows = try JSONDecoder().decode([Row].self, from: Data(json.utf8))
    #expect(rows.map(\.name) == ["Nara", "Kyoto"])
    #expect(try wishlist.ok("recent", "--limit", "１", "--json").contains("Nara"))
    #expect(
      try wishlist.ok("trip", "add", "Nikko", "--start", "２０２７-０１-０２").hasPrefix("Added trip"))
  }
}

@Suite("wishlist --json")
struct WishlistJSONTests {
  private func json(_ wishlist: Wishlist, _ arguments: String...) throws -> [String: Any] {
    let result = try wishlist.run(arguments)
    try #require(result.status == 0, "wishlist \(arguments) failed: \(result.stderr)")
    return try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
  }

  @Test(arguments: TestEngine.enabled)
  func everyCommandThatChangesATripOrActivityCanPrintIt(_ engine: TestEngine) throws {
    let store = try wishlistStore(engine)
    let wishlist = Wishlist(store: store)
    #expect(try json(wishlist, "trip", "add", "Kyoto", "--json")["name"] as? String == "Kyoto")
    #expect(
      try json(wishlist, "activity", "add", "Kyoto", "Tea", "--json")["name"] as? String == "Tea")
    #expect(
      try json(wishlist, "activity", "done", "Kyoto", "Tea", "--json")["isComplete"] as? Bool
        == true)
    #expect(
      try json(wishlist, "trip", "rename", "Kyoto", "京都", "--json")["name"] as? String == "京都")
    let deleted = try json(wishlist, "trip", "delete", "京都", "--json")
    #expect(deleted["deletedActivities"] as? Int == 1)
    #expect((deleted["trip"] as? [String: Any])?["name"] as? String == "京都")
  }
}
