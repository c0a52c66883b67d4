import Foundation
import Testing

@testable import Kura

@Suite("wishlist")
struct WishlistCommandTests {
  private func wishlist(_ arguments: [String], _ folder: TemporaryDirectory) throws
    -> ProcessResult
  {
    var environment = folder.environment
    environment["TZ"] = "Asia/Tokyo"
    return try run(try executable("wishlist"), arguments, environment: environment)
  }

  /// Runs a command that must succeed and returns its output.
  @discardableResult
  private func ok(_ arguments: [String], _ folder: TemporaryDirectory) throws -> String {
    let result = try wishlist(arguments, folder)
    try #require(result.status == 0, "wishlist \(arguments) failed: \(result.stderr)")
    return result.stdout
  }

  private func id(of output: String) throws -> String {
    let open = try #require(output.lastIndex(of: "("))
    return String(output[output.index(after: open)...].prefix(8))
  }

  @Test func tripsWithActivitiesFromAddToCascadingDelete() throws {
    let folder = TemporaryDirectory()
    let kyoto = try ok(
      [
        "trip", "add", "Kyoto", "--start", "2026-12-24", "--end", "2026-12-28", "--photo",
        "https://example.com/kyoto.jpg",
      ], folder)
    #expect(kyoto.hasPrefix("Added trip Kyoto ("))
    let kyotoID = try id(of: kyoto)
    let nara = try ok(["trip", "add", "Nara Park", "--start", "2027-01-02"], folder)
    let naraID = try id(of: nara)
    #expect(
      try ok(["activity", "add", "kyoto", "Fushimi Inari"], folder)
        == "Added Fushimi Inari to Kyoto.\n")
    try ok(["activity", "add", "Kyoto", "Tea ceremony"], folder)
    try ok(["activity", "add", "nara", "Deer"], folder)
    #expect(
      try ok(["activity", "done", "Kyoto", "tea ceremony"], folder)
        == "Done: Tea ceremony (Kyoto).\n")
    #expect(
      try ok(["trip", "list"], folder)
        == "Kyoto  2026-12-24 – 2026-12-28  2 activities  photo: https://example.com/kyoto.jpg  "
        + "(\(kyotoID))\n"
        + "Nara Park  2027-01-02 – 2027-01-02  1 activity  photo: placeholder  (\(naraID))\n")
    #expect(
      try ok(["trip", "rename", "nara park", "Nara"], folder) == "Renamed Nara Park to Nara.\n")
    #expect(
      try ok(["trip", "delete", "Kyoto"], folder)
        == "Deleted trip Kyoto and its 2 activities.\n")
    #expect(
      try ok(["trip", "list"], folder)
        == "Nara  2027-01-02 – 2027-01-02  1 activity  photo: placeholder  (\(naraID))\n")
    let store = folder.url.appendingPathComponent("kura-home/apps/wishlist/Data/default.store")
    let rows = try Connection(path: store.path).queryFirst("SELECT count(*) FROM Activity") {
      $0.int64(at: 0)
    }
    #expect(rows == 1)
  }

  @Test func activitySortOrderIsRememberedAcrossRuns() throws {
    let folder = TemporaryDirectory()
    try ok(["trip", "add", "Kyoto"], folder)
    for name in ["Tea ceremony", "Bamboo grove", "Ryokan"] {
      try ok(["activity", "add", "Kyoto", name], folder)
    }
    try ok(["activity", "done", "Kyoto", "Bamboo grove"], folder)
    #expect(
      try ok(["activity", "list", "Kyoto"], folder)
        == "Kyoto, by title:\n  [x] Bamboo grove\n  [ ] Ryokan\n  [ ] Tea ceremony\n")
    #expect(
      try ok(["activity", "list", "Kyoto", "--sort", "date"], folder)
        == "Kyoto, by date:\n  [ ] Tea ceremony\n  [x] Bamboo grove\n  [ ] Ryokan\n")
    // The next run, without --sort, keeps the order chosen last.
    #expect(
      try ok(["activity", "list", "Kyoto"], folder)
        == "Kyoto, by date:\n  [ ] Tea ceremony\n  [x] Bamboo grove\n  [ ] Ryokan\n")
    #expect(
      try ok(["activity", "list", "Kyoto", "--sort", "completion"], folder)
        == "Kyoto, by completion:\n  [ ] Ryokan\n  [ ] Tea ceremony\n  [x] Bamboo grove\n")
    #expect(try ok(["activity", "list", "Kyoto"], folder).hasPrefix("Kyoto, by completion:\n"))
    let bad = try wishlist(["activity", "list", "Kyoto", "--sort", "price"], folder)
    #expect(bad.status == 64)
    #expect(
      bad.stderr
        == "wishlist: error: `price` is not a valid value for --sort: use title, date or "
        + "completion.\nSee `wishlist activity list --help`.\n")
  }

  @Test func recentListsNewestFirstAndWatchPrintsTripsAddedByAnotherProcess() throws {
    let folder = TemporaryDirectory()
    try ok(["trip", "add", "Kyoto"], folder)
    try ok(["trip", "add", "Nara"], folder)
    let recent = try ok(["recent"], folder)
    #expect(
      recent.split(separator: "\n").map { $0.prefix(while: { $0 != " " }) } == ["Nara", "Kyoto"])
    var environment = folder.environment
    environment["TZ"] = "Asia/Tokyo"
    let watcher = try ChildProcess(
      try executable("wishlist"), ["recent", "--watch"], environment: environment)
    watcher.waitForLine { $0 == "Watching for new trips (interrupt to stop)." }
    #expect(watcher.outputLines.first?.hasPrefix("Nara  ") == true)
    try ok(["trip", "add", "Hakone"], folder)
    let added = watcher.waitForLine { $0.hasPrefix("+ ") }
    #expect(added?.hasPrefix("+ Hakone  ") == true)
    try ok(["activity", "add", "Hakone", "Onsen"], folder)
    try ok(["trip", "add", "Sapporo"], folder)
    let next = watcher.waitForLine { $0.hasPrefix("+ Sapporo") }
    #expect(next != nil)
    #expect(watcher.outputLines.filter { $0.hasPrefix("+ ") }.count == 2)
    watcher.send(SIGKILL)
    _ = watcher.waitForExit()
  }

  @Test func searchFindsTripsAndActivitiesByWordPrefix() throws {
    let folder = TemporaryDirectory()
    try ok(["trip", "add", "Kyōto in winter"], folder)
    try ok(["trip", "add", "Nara"], folder)
    try ok(["activity", "add", "Nara", "Feed the deer"], folder)
    let trips = try ok(["search", "kyoto"], folder)
    #expect(trips.hasPrefix("trip      Kyōto in winter  ("))
    #expect(try ok(["search", "dee"], folder) == "activity  Feed the deer  (Nara)\n")
    #expect(try ok(["search", "tokyo"], folder) == "Nothing matches `tokyo`.\n")
    try ok(["trip", "rename", "Nara", "Nara in autumn"], folder)
    #expect(try ok(["search", "autumn"], folder).hasPrefix("trip      Nara in autumn  ("))
    try ok(["trip", "delete", "Nara in autumn"], folder)
    #expect(try ok(["search", "deer"], folder) == "Nothing matches `deer`.\n")
  }

  @Test func unknownTripAndBadInputAreClearErrors() throws {
    let folder = TemporaryDirectory()
    let missing = try wishlist(["trip", "delete", "Atlantis"], folder)
    #expect(missing.status == 1)
    #expect(
      missing.stderr
        == "wishlist: error: There is no trip `Atlantis`. See the trips with `wishlist trip list`.\n"
    )
    let badDate = try wishlist(["trip", "add", "Kyoto", "--start", "24/12/2026"], folder)
    #expect(badDate.status == 64)
    #expect(
      badDate.stderr
        == "wishlist: error: `24/12/2026` is not a valid value for --start: give a date such as "
        + "2026-12-24.\nSee `wishlist trip add --help`.\n")
    let backwards = try wishlist(
      ["trip", "add", "Kyoto", "--start", "2026-12-24", "--end", "2026-12-20"], folder)
    #expect(backwards.status == 64)
    #expect(
      backwards.stderr.hasPrefix(
        "wishlist: error: `2026-12-20` is not a valid value for --end: the trip can't end before "
          + "it starts (2026-12-24)."))
  }
}

@Suite("wishlist: the seed's missing actions")
struct WishlistActionTests {
  let folder = TemporaryDirectory()

  @discardableResult
  private func ok(_ arguments: String...) throws -> String {
    let result = try run(try executable("wishlist"), arguments, environment: folder.environment)
    try #require(result.status == 0, "wishlist \(arguments) failed: \(result.stderr)")
    return result.stdout
  }

  @Test func anActivityIsRenamedToggledAndDeletedAlone() throws {
    try ok("trip", "add", "Kyoto")
    try ok("activity", "add", "Kyoto", "Tea")
    try ok("activity", "add", "Kyoto", "Temple")
    #expect(
      try ok("activity", "rename", "Kyoto", "tea", "Tea ceremony")
        == "Renamed Tea to Tea ceremony (Kyoto).\n")
    #expect(try ok("activity", "done", "Kyoto", "Tea ceremony") == "Done: Tea ceremony (Kyoto).\n")
    #expect(
      try ok("activity", "done", "Kyoto", "Tea ceremony", "--undo")
        == "Not done: Tea ceremony (Kyoto).\n")
    #expect(try ok("activity", "delete", "Kyoto", "temple") == "Deleted Temple from Kyoto.\n")
    #expect(try ok("activity", "list", "Kyoto") == "Kyoto, by title:\n  [ ] Tea ceremony\n")
    let missing = try run(
      try executable("wishlist"), ["activity", "delete", "Kyoto", "Temple"],
      environment: folder.environment)
    #expect(missing.status == 1)
    #expect(missing.stderr.hasPrefix("wishlist: error: Kyoto has no activity `Temple`."))
  }

  @Test func searchFindsJapaneseByAnyPart() throws {
    try ok("trip", "add", "Kyoto")
    try ok("activity", "add", "Kyoto", "お寺巡り")
    #expect(try ok("search", "寺") == "activity  お寺巡り  (Kyoto)\n")
    #expect(try ok("search", "寺巡り") == "activity  お寺巡り  (Kyoto)\n")
    #expect(try ok("search", "お寺") == "activity  お寺巡り  (Kyoto)\n")
    #expect(try ok("search", "神社") == "Nothing matches `神社`.\n")
  }

  @Test func recentPrintsJSON() throws {
    try ok("trip", "add", "Kyoto")
    try ok("trip", "add", "Nara")
    let json = try ok("recent", "--json")
    struct Row: Decodable { var name: String }
    let rows = try JSONDecoder().decode([Row].self, from: Data(json.utf8))
    #expect(rows.map(\.name) == ["Nara", "Kyoto"])
    #expect(try ok("recent", "--limit", "１", "--json").contains("Nara"))
    #expect(try ok("trip", "add", "Nikko", "--start", "２０２７-０１-０２").hasPrefix("Added trip"))
  }
}

@Suite("wishlist --json")
struct WishlistJSONTests {
  let folder = TemporaryDirectory()

  private func json(_ arguments: String...) throws -> [String: Any] {
    let result = try run(try executable("wishlist"), arguments, environment: folder.environment)
    try #require(result.status == 0, "wishlist \(arguments) failed: \(result.stderr)")
    return try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
  }

  @Test func everyCommandThatChangesATripOrActivityCanPrintIt() throws {
    #expect(try json("trip", "add", "Kyoto", "--json")["name"] as? String == "Kyoto")
    #expect(try json("activity", "add", "Kyoto", "Tea", "--json")["name"] as? String == "Tea")
    #expect(
      try json("activity", "done", "Kyoto", "Tea", "--json")["isComplete"] as? Bool == true)
    #expect(try json("trip", "rename", "Kyoto", "京都", "--json")["name"] as? String == "京都")
    let deleted = try json("trip", "delete", "京都", "--json")
    #expect(deleted["deletedActivities"] as? Int == 1)
    #expect((deleted["trip"] as? [String: Any])?["name"] as? String == "京都")
  }
}
