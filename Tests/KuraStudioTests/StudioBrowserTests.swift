import Foundation
import Kura
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraPostgresCluster
import KuraSync
import KuraSyncServer
import KuraTestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `kura studio` (the real executable, in its own process) in a real headless Chromium, driven
/// over WebDriver: what a person sees and does on the page.
///
/// With `KURA_STUDIO_SCREENSHOTS=<folder>` the tests save the article's screenshots there
/// (the article "Browsing a Store" shows the ones taken into `Sources/Kura/Kura.docc/Resources`).
@Suite("Studio in a browser", .serialized, .enabled(if: WebDriver.isAvailable))
struct StudioBrowserTests {
  /// A `kura studio` process on `store`, and its URL.
  final class StudioProcess: Sendable {
    let child: ChildLine
    let url: String
    let origin: String

    convenience init(_ store: URL, _ options: [String] = []) throws {
      try self.init(arguments: [store.path] + options)
    }

    init(arguments: [String], environment: [String: String]? = nil) throws {
      child = try ChildLine(
        try executable("kura"), ["studio"] + arguments,
        environment: environment.map { ProcessInfo.processInfo.environment.merging($0) { $1 } },
        until: { $0.contains("?secret=") })
      let line = try #require(child.line)
      url = try #require(line.split(separator: " ").last.map(String.init))
      origin = String(url.prefix { $0 != "?" }.dropLast())
    }
  }

  /// Trips with activities and a booking, and the hostile names of ``seededStore(_:)``.
  func tourStore(_ folder: StudioFolder) throws -> URL {
    let url = try seededStore(folder)
    let context = ModelContext(try ModelContainer(for: studioModels, configurations: .url(url)))
    let places = [
      "Sapporo", "Hakodate", "Sendai", "Nikko", "Kamakura", "Hakone", "Kanazawa", "Takayama",
      "Nagoya", "Ise", "Osaka", "Kobe", "Himeji", "Hiroshima", "Miyajima", "Matsuyama",
      "Fukuoka", "Nagasaki", "Kagoshima", "Naha",
    ]
    for id in 5...130 {
      let start = Date(timeIntervalSince1970: 1_796_000_000 + Double(id) * 86_400)
      try context.insert(
        Trip(
          id: id, name: places[id % places.count] + (id > 20 ? " \(id / 20)" : ""), start: start,
          budget: id % 4 == 0 ? nil : Double(id * 25), notes: id % 3 == 0 ? "with friends" : nil))
    }
    try context.save()
    return url
  }

  func saveScreenshot(_ driver: WebDriver, _ name: String) async throws {
    let png = try await driver.screenshot()
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    guard let folder = ProcessInfo.processInfo.environment["KURA_STUDIO_SCREENSHOTS"] else {
      return
    }
    try png.write(to: URL(fileURLWithPath: folder).appendingPathComponent(name))
  }

  @Test func pagesSortsFiltersAndFollowsRelationsBothWays() async throws {
    let folder = StudioFolder()
    let studio = try StudioProcess(try tourStore(folder))
    let driver = try await WebDriver.start(folder: folder.url)
    do {
      try await driver.open(studio.url)
      // The secret left the address bar for a cookie.
      #expect(try await driver.run("return location.href") as? String == studio.origin + "/")
      #expect(try await driver.wait(for: "document.querySelector('#model-Trip')") != nil)
      #expect(
        try await driver.run("return document.getElementById('schema-version').textContent")
          as? String == "1")
      try await saveScreenshot(driver, "studio-models.png")

      try await driver.click("nav a[data-model='Trip']")
      #expect(
        try await driver.wait(for: "document.querySelectorAll('#rows tbody tr').length === 50")
          != nil)
      #expect(try await ids(driver).prefix(3) == ["1", "2", "3"])
      #expect(try await text(driver, "#page-info") == "Rows 1–50 of 130")
      try await driver.click("#next-page")
      #expect(
        try await driver.wait(
          for: "document.querySelector('#page-info').textContent === 'Rows 51–100 of 130'") != nil)
      #expect(try await ids(driver).first == "51")
      try await driver.click("#next-page")
      #expect(
        try await driver.wait(
          for: "document.querySelector('#page-info').textContent === 'Rows 101–130 of 130'") != nil)
      #expect(
        try await driver.run("return document.getElementById('next-page').disabled") as? Bool
          == true)

      // Sort by budget, descending (nil last).
      try await driver.click("#first-page")
      try await driver.wait(
        for: "document.querySelector('#page-info').textContent === 'Rows 1–50 of 130'")
      try await driver.click("th[data-column='budget']")
      try await driver.wait(
        for: "document.querySelector(\"th[data-column='budget'] .arrow\").textContent === ' ▲'")
      #expect(try await ids(driver).prefix(3) == ["2", "8", "12"])  // nil first
      try await driver.click("th[data-column='budget']")
      try await driver.wait(
        for: "document.querySelector(\"th[data-column='budget'] .arrow\").textContent === ' ▼'")
      #expect(try await ids(driver).prefix(2) == ["130", "129"])

      // A filter through the store's translation: budget > 3000 and notes contains "friends".
      try await driver.click("#add-filter")
      try await driver.run(
        "const row = document.querySelectorAll('.filter')[0];"
          + "row.querySelector('.filter-property').value = 'budget';"
          + "row.querySelector('.filter-op').value = '>';")
      try await driver.type("3000", into: ".filter .filter-value")
      try await driver.click("#add-filter")
      try await driver.run(
        "const row = document.querySelectorAll('.filter')[1];"
          + "row.querySelector('.filter-property').value = 'notes';"
          + "row.querySelector('.filter-op').value = 'contains';")
      try await driver.type("friends", into: ".filter:nth-of-type(2) .filter-value")
      try await driver.click("#apply-filter")
      try await driver.wait(
        for: "document.querySelector('#query-status').textContent.includes('kura_contains')")
      #expect(try await ids(driver) == ["129", "126", "123"])
      try await saveScreenshot(driver, "studio-rows.png")

      // A reference links to its row; the row lists what refers to it.
      try await driver.open(studio.origin + "/#/rows/Activity")
      try await driver.wait(for: "document.querySelectorAll('#rows tbody tr').length === 4")
      try await driver.click("#rows tbody tr[data-id='2'] a.reference")
      try await driver.wait(for: "document.querySelector('#referrers')")
      #expect(try await driver.run("return location.hash") as? String == "#/row/Trip/i1")
      #expect(
        try await driver.run(
          "return [...document.querySelectorAll('#referrers li')].map((li) => li.dataset.model + ' ' + li.textContent.split(':')[1].trim().split(' ')[0])"
        )
          as? [String] == ["Activity 3", "Booking 1"])
      try await saveScreenshot(driver, "studio-row.png")
      try await driver.click("#referrers li[data-model='Activity'] a.referrer-link")
      try await driver.wait(for: "location.hash === '#/row/Activity/i1'")
      #expect(
        try await driver.wait(
          for: "document.querySelector(\"#row tr[data-column='name'] td\").textContent")
          as? String == "Temple")
    } catch {
      await driver.quit()
      throw error
    }
    await driver.quit()
  }

  @Test func storedMarkupIsShownAsText() async throws {
    let folder = StudioFolder()
    let studio = try StudioProcess(try seededStore(folder))
    let driver = try await WebDriver.start(folder: folder.url)
    do {
      try await driver.open(studio.url)
      try await driver.open(studio.origin + "/#/rows/Trip")
      try await driver.wait(for: "document.querySelectorAll('#rows tbody tr').length === 4")
      let names = try await driver.run(
        "return [...document.querySelectorAll(\"#rows td[data-column='name']\")].map((td) => td.textContent)"
      )
      #expect(
        names as? [String]
          == ["Kyoto", "Nara", "<script>alert(1)</script>", "<img src=x onerror=alert(2)>"])
      #expect(
        try await driver.run("return document.querySelectorAll('#rows img, #rows script').length")
          as? Int == 0)
      #expect(try await driver.alertText() == nil)
      // nil and empty text look different.
      let notes = try await driver.run(
        "return [...document.querySelectorAll(\"#rows td[data-column='notes']\")].map((td) => td.firstElementChild ? td.firstElementChild.className : td.textContent)"
      )
      #expect(notes as? [String] == ["temples", "nil", "empty", "Café"])
    } catch {
      await driver.quit()
      throw error
    }
    await driver.quit()
  }

  @Test func aSaveByAnotherProcessAppearsMarked() async throws {
    let folder = StudioFolder()
    let store = try seededStore(folder)
    let studio = try StudioProcess(store)
    let driver = try await WebDriver.start(folder: folder.url)
    do {
      try await driver.open(studio.url)
      try await driver.open(studio.origin + "/#/rows/Trip")
      try await driver.wait(for: "document.getElementById('live').textContent === 'live'")
      try await driver.wait(for: "document.querySelectorAll('#rows tbody tr').length === 4")
      // This test process saves; the studio process sees it through the store's change feed.
      let context = ModelContext(try ModelContainer(for: studioModels, configurations: .url(store)))
      try context.insert(
        Trip(id: 5, name: "Okinawa", start: Date(timeIntervalSince1970: 1_797_000_000)))
      var nara = try #require(try context.model(for: 2, as: Trip.self))
      nara.notes = "deer park"
      try context.insert(nara)
      try context.save()
      #expect(
        try await driver.wait(for: "document.querySelectorAll('#rows tbody tr').length === 5")
          != nil)
      let changed = try await driver.run(
        "return [...document.querySelectorAll('#rows tbody tr.changed')].map((tr) => tr.dataset.id)"
      )
      #expect(changed as? [String] == ["2", "5"])
      #expect(
        try await text(driver, "nav a[data-model='Trip'] .count") == "5")
      try await driver.open(studio.origin + "/#/history")
      try await driver.wait(for: "document.querySelectorAll('.history-entry').length === 2")
      let newest = try await driver.run(
        "return document.querySelector('.history-entry .model-changes').textContent")
      #expect(newest as? String == "Tripinserted: 5updated: 2")
      try await saveScreenshot(driver, "studio-history.png")
    } catch {
      await driver.quit()
      throw error
    }
    await driver.quit()
  }

  /// Opens a row's page (or waits for the one a click opened) until it is drawn whole: its
  /// heading, and the buttons that come after the delete preview (a wait for the buttons alone
  /// would see the previous row's).
  func openRow(_ driver: WebDriver, _ url: String?, heading: String) async throws {
    if let url { try await driver.open(url) }
    try #require(
      try await driver.wait(
        for: "document.querySelector('#main h1').textContent === '\(heading)' && "
          + "document.getElementById('delete-row') !== null") != nil, "row page \(heading)")
  }

  /// Sets an edit form's input (emptied first), as a person types.
  func fill(_ driver: WebDriver, _ column: String, _ text: String) async throws {
    let selector = "#edit-form .edit-value[data-column='\(column)']"
    _ = try await driver.run("document.querySelector(arguments[0]).value = ''", [selector])
    try await driver.type(text, into: selector)
  }

  @Test func editsAndSavesThenDeletesWithTheCascadePreview() async throws {
    let folder = StudioFolder()
    let store = try seededStore(folder)
    let studio = try StudioProcess(store, ["--write"])
    #expect(studio.child.line?.contains("(writable)") == true)
    let driver = try await WebDriver.start(folder: folder.url)
    do {
      try await driver.open(studio.url)
      try await driver.wait(for: "document.getElementById('mode').textContent === 'writable'")
      // Edit Nara: a malformed date is refused at its field, and nothing is written.
      try await openRow(driver, studio.origin + "/#/row/Trip/i2", heading: "Trip 2")
      try await driver.click("#edit-row")
      try await driver.wait(for: "document.getElementById('edit-form') !== null")
      try await fill(driver, "name", "Nara <b>deer</b>")
      try await fill(driver, "start", "next tuesday")
      try await driver.click("#add-to-batch")
      try await driver.wait(for: "document.getElementById('preview-batch') !== null")
      try await driver.click("#preview-batch")
      let fieldError = try await driver.wait(
        for: "document.querySelector(\".field-error[data-column='start']\").textContent || null")
      #expect((fieldError as? String)?.hasPrefix("`Trip.start` is a date: `next tuesday`") == true)
      #expect(
        try await driver.run("return document.getElementById('save-batch').disabled") as? Bool
          == true)
      try await saveScreenshot(driver, "studio-edit-error.png")
      try await driver.click("#batch .remove-edit")
      try await fill(driver, "start", "2027-04-01T09:30:00Z")
      try await driver.click("#add-to-batch")
      try await driver.click("#preview-batch")
      try await driver.wait(for: "document.querySelector('#batch .preview-line') !== null")
      #expect(
        try await text(driver, "#batch .preview-line")
          == "Sets name = \"Nara <b>deer</b>\", start = \"2027-04-01T09:30:00Z\" on Trip 2.")
      try await driver.click("#save-batch")
      try await driver.wait(for: "document.getElementById('saved') !== null")
      let context = ModelContext(try ModelContainer(for: studioModels, configurations: .url(store)))
      let nara = try #require(try context.model(for: 2, as: Trip.self))
      #expect(nara.name == "Nara <b>deer</b>")
      #expect(nara.start == Date(timeIntervalSince1970: 1_806_571_800))
      try await driver.wait(
        for:
          "document.querySelector(\"#row tr[data-column='name'] td\").textContent === 'Nara <b>deer</b>'"
      )
      // Delete Kyoto: the preview names the cascade and the booking that refuses it.
      try await openRow(driver, studio.origin + "/#/row/Trip/i1", heading: "Trip 1")
      try await driver.click("#delete-row")
      try await driver.click("#preview-batch")
      try await driver.wait(for: "document.querySelector('#batch .preview-line') !== null")
      #expect(
        try await text(driver, "#batch .preview-line")
          == "Deleting Trip 1 also deletes 3 Activity rows (1, 2, 3) through `trip` (.cascade). "
          + "It would be refused: 1 Booking row (ryokan) refers to it through `trip` (.deny).")
      #expect(
        try await driver.run("return document.getElementById('save-batch').disabled") as? Bool
          == true)
      try await saveScreenshot(driver, "studio-delete-preview.png")
      // The booking goes in the same batch: then the delete goes ahead, in one save.
      try await openRow(
        driver, studio.origin + "/#/row/Booking/tcnlva2Fu", heading: "Booking ryokan")
      try await driver.click("#delete-row")
      try await driver.click("#preview-batch")
      try await driver.wait(for: "document.querySelectorAll('#batch .preview-line').length === 2")
      #expect(
        try await driver.run("return document.getElementById('save-batch').disabled") as? Bool
          == false)
      try await driver.click("#save-batch")
      try await driver.wait(for: "document.getElementById('saved') !== null")
      let after = ModelContext(try ModelContainer(for: studioModels, configurations: .url(store)))
      #expect(try after.model(for: 1, as: Trip.self) == nil)
      #expect(try after.fetch(FetchDescriptor<Activity>()).map(\.id) == [4])
      #expect(try after.fetchCount(FetchDescriptor<Booking>()) == 0)
    } catch {
      await driver.quit()
      throw error
    }
    await driver.quit()
  }

  @Test func pagesThroughAMillionRows() async throws {
    let folder = StudioFolder()
    let store = folder.file("million.store")
    _ = try ModelContainer(for: [Reading.self], configurations: .url(store))
    // The rows by one statement (a context's save of a million rows takes a minute in a debug
    // build): the model's table as the container made it.
    let connection = try Connection(path: store.path)
    try connection.execute(
      """
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
      INSERT INTO "Reading" ("id", "sensor", "taken", "value")
      SELECT i, 'sensor ' || (i % 997), 820000000.0 + i * 60, CASE WHEN i % 7 = 0 THEN NULL
      ELSE (i % 1000) / 10.0 END FROM n
      """)
    let studio = try StudioProcess(store)
    let driver = try await WebDriver.start(folder: folder.url)
    do {
      try await driver.open(studio.url)
      try await driver.open(studio.origin + "/#/rows/Reading")
      try await driver.wait(for: "document.querySelectorAll('#rows tbody tr').length === 50")
      #expect(try await ids(driver).first == "1")
      #expect(try await text(driver, "#page-info") == "Rows 1–50 of 1,000,000")
      // Next, next, next: each page continues after the last key shown.
      var timings: [Double] = []
      for page in 1...3 {
        let started = Date()
        try await driver.click("#next-page")
        try await driver.wait(
          for: "document.querySelector('#rows tbody tr') && "
            + "document.querySelector('#rows tbody tr').dataset.id === '\(page * 50 + 1)'")
        timings.append(Date().timeIntervalSince(started))
      }
      #expect(try await ids(driver) == (151...200).map(String.init))
      #expect(try await text(driver, "#page-info") == "Rows 151–200 of 1,000,000")
      // The other end: sorted by id descending (a click on the key's header reverses it),
      // then the page after it.
      try await driver.click("#rows th[data-column='id']")
      #expect(
        try await driver.wait(
          for: "document.querySelector('#rows tbody tr').dataset.id === '1000000'") != nil)
      let started = Date()
      try await driver.click("#next-page")
      let deep = try await driver.wait(
        for: "document.querySelector('#rows tbody tr').dataset.id === '999950'")
      timings.append(Date().timeIntervalSince(started))
      let shownIDs = try await ids(driver).prefix(3)
      let info = try await text(driver, "#page-info") ?? ""
      let hash = try await driver.run("return location.hash") as? String ?? ""
      #expect(deep != nil, "\(shownIDs) \(info) \(hash)")
      // In the browser, through HTTP, in a debug build on a shared machine: loosely bounded
      // (`kura-bench studio` measures the server's time in a release build).
      #expect(timings.allSatisfy { $0 < 5 }, "\(timings)")
      print(
        "studio browser: next pages on 1,000,000 rows took \(timings.map { Int($0 * 1000) }) ms")
      try await saveScreenshot(driver, "studio-million.png")
    } catch {
      await driver.quit()
      throw error
    }
    await driver.quit()
  }

  #if canImport(CLibPQ)
    @Test func worksOnAPostgreSQLStore() async throws {
      let folder = StudioFolder()
      let database = try PostgresCluster.freshDatabaseURL()
      try seed(.postgres(try #require(URL(string: database))))
      let studio = try StudioProcess(arguments: [database, "--write"])
      let driver = try await WebDriver.start(folder: folder.url)
      do {
        try await driver.open(studio.url)
        try await driver.open(studio.origin + "/#/rows/Trip?sort=budget&desc=1")
        try await driver.wait(for: "document.querySelectorAll('#rows tbody tr').length === 4")
        // nil last, descending, as on SQLite.
        #expect(try await ids(driver) == ["1", "3", "4", "2"])
        try await openRow(driver, studio.origin + "/#/row/Trip/i1", heading: "Trip 1")
        #expect(
          try await text(driver, "#delete-preview")
            == "Deleting Trip 1 also deletes 3 Activity rows (1, 2, 3) through `trip` (.cascade). "
            + "It would be refused: 1 Booking row (ryokan) refers to it through `trip` (.deny).")
        try await driver.click("#referrers li[data-model='Activity'] a.referrer-link")
        try await openRow(driver, nil, heading: "Activity 1")
        try await driver.click("#edit-row")
        try await fill(driver, "name", "Temple at dawn")
        try await driver.click("#add-to-batch")
        try await driver.click("#preview-batch")
        try await driver.wait(for: "document.querySelector('#batch .preview-line') !== null")
        try await saveScreenshot(driver, "studio-postgres-edit.png")
        try await driver.click("#save-batch")
        try await driver.wait(for: "document.getElementById('saved') !== null")
        let container = try ModelContainer(
          for: studioModels, configurations: .postgres(try #require(URL(string: database))))
        #expect(
          try ModelContext(container).model(for: 1, as: Activity.self)?.name == "Temple at dawn")
        try await driver.wait(
          for:
            "document.querySelector(\"#row tr[data-column='name'] td\").textContent === 'Temple at dawn'"
        )
      } catch {
        await driver.quit()
        throw error
      }
      await driver.quit()
    }
  #endif

  @Test func showsAnAppsPreferencesScenesAndDocuments() async throws {
    let folder = StudioFolder()
    let environment = ["KURA_HOME": folder.url.path]
    let locations = try Locations.app("trips", environment: environment)
    let preferences = try Preferences(locations: locations)
    try preferences.setValue(.string("<img src=x onerror=alert(3)>"), forKey: "lastTrip")
    try preferences.setValue(.integer(3), forKey: "launchCount")
    try preferences.setValue(.date(Date(timeIntervalSince1970: 1_800_000_000)), forKey: "seen")
    try SceneState("main", locations: locations).preferences.setValue(
      .string("Trips"), forKey: "tab")
    try Locations.ensureDirectory(locations.documentsDirectory)
    let document = try DocumentStore<[StudioAppTests.Entry]>(
      .url(locations.documentsDirectory.appendingPathComponent("journal.json")), defaultValue: [])
    try document.replace(with: [StudioAppTests.Entry(id: 1, title: "Temple")])
    try document.append(StudioAppTests.Entry(id: 2, title: "Tea"))
    try Locations.ensureDirectory(locations.dataDirectory)
    try seed(.url(locations.defaultStoreURL))
    let studio = try StudioProcess(arguments: ["--app", "trips"], environment: environment)
    let driver = try await WebDriver.start(folder: folder.url)
    do {
      try await driver.open(studio.url)
      try await driver.wait(for: "document.getElementById('nav-app') !== null")
      try await driver.open(studio.origin + "/#/app")
      try await driver.wait(
        for: "document.querySelector('#suites tr[data-key=\"lastTrip\"]') !== null")
      #expect(
        try await text(driver, "#suites tr[data-key='lastTrip'] td:last-child")
          == "<img src=x onerror=alert(3)>")
      #expect(
        try await driver.run("return document.querySelectorAll('#main img').length") as? Int == 0)
      #expect(try await text(driver, "#scenes tr[data-key='tab'] td:last-child") == "Trips")
      #expect(
        try await text(driver, "#documents .journal")
          == "Journal: pending · 1 change · \(try journalSize(document)) bytes (shown applied)")
      let json = try #require(try await text(driver, "#documents pre.json-view"))
      #expect(
        try JSONDecoder().decode([StudioAppTests.Entry].self, from: Data(json.utf8)).count == 2)
      // Live: a change by the app shows at the next read.
      try preferences.setValue(.integer(4), forKey: "launchCount")
      try await driver.wait(
        for:
          "document.querySelector(\"#suites tr[data-key='launchCount'] td:last-child\").textContent === '4'"
      )
      try await saveScreenshot(driver, "studio-app.png")
    } catch {
      await driver.quit()
      throw error
    }
    await driver.quit()
  }

  #if canImport(CLibPQ)
    @Test func showsASyncServersSpacesAndASyncedStoresOutbox() async throws {
      let folder = StudioFolder()
      let server = try StudioSyncServer(folder: folder)
      defer { server.stop() }
      let database = server.database
      let phone = try server.replica(folder.file("phone.store"))
      let engine = try SyncEngine(container: phone)
      let context = ModelContext(phone)
      try context.insert(
        Trip(id: 1, name: "Kyoto", start: Date(timeIntervalSince1970: 1_796_000_000)))
      try context.save()
      try await engine.syncNow()
      engine.stop()
      // A save the stopped engine has not pushed: it waits in the outbox.
      try context.insert(
        Trip(id: 2, name: "Nara", start: Date(timeIntervalSince1970: 1_796_086_400)))
      try context.save()

      let studio = try StudioProcess(arguments: ["--sync-server", database])
      let driver = try await WebDriver.start(folder: folder.url)
      do {
        try await driver.open(studio.url)
        try #require(
          try await driver.wait(
            for: "document.querySelector(\"#spaces [data-space='family'] .head\") !== null")
            != nil)
        let head = try #require(try await text(driver, "#spaces [data-space='family'] .head"))
        #expect(Int(head).map { $0 >= 1 } == true)
        let replicas = try await driver.run(
          "return [...document.querySelectorAll('#replicas-family tbody tr')].map((tr) => tr.lastChild.textContent)"
        )
        #expect(replicas as? [String] == ["current"])
        try await saveScreenshot(driver, "studio-sync-server.png")
      } catch {
        await driver.quit()
        throw error
      }
      await driver.quit()

      let store = try StudioProcess(folder.file("phone.store"))
      let browser = try await WebDriver.start(folder: folder.url)
      do {
        try await browser.open(store.url)
        try #require(
          try await browser.wait(for: "document.getElementById('nav-sync') !== null") != nil)
        // Opened by its address: the navigation is drawn again as the page loads (a click could
        // meet the link it replaced).
        try await browser.open(store.origin + "/#/sync")
        try #require(
          try await browser.wait(for: "document.querySelector('#sync-outbox tbody tr') !== null")
            != nil)
        let pending = try #require(try await text(browser, "#sync-outbox tbody tr td:last-child"))
        #expect(pending == "Trip 2: saved (recorded when sync next sends)")
        #expect(try await text(browser, "#sync-quarantine") == "No pulled change is held back.")
        try await saveScreenshot(browser, "studio-sync.png")
      } catch {
        await browser.quit()
        throw error
      }
      await browser.quit()
    }
  #endif

  /// The size of a document's journal file.
  func journalSize(_ document: DocumentStore<[StudioAppTests.Entry]>) throws -> Int {
    let journal = document.url.deletingLastPathComponent().appendingPathComponent(
      ".\(document.url.lastPathComponent).journal")
    return try #require(
      (try FileManager.default.attributesOfItem(atPath: journal.path)[.size] as? NSNumber)?.intValue
    )
  }

  @Test func aRequestWithoutTheSecretIsRefused() async throws {
    let folder = StudioFolder()
    let studio = try StudioProcess(try seededStore(folder))
    // Without the cookie: the page and the API are refused.
    let driver = try await WebDriver.start(folder: folder.url)
    do {
      try await driver.open(studio.origin + "/")
      let body = try await driver.run("return document.body.textContent") as? String
      #expect(
        body
          == "Kura Studio refused the request: it carries no secret. Open the URL `kura studio` "
          + "printed (with ?secret=…) in this browser.")
      try await driver.open(studio.origin + "/api/rows?model=Trip")
      #expect(
        try await driver.run("return document.body.textContent.includes('Kyoto')") as? Bool == false
      )
    } catch {
      await driver.quit()
      throw error
    }
    await driver.quit()
    let request = URLRequest(url: try #require(URL(string: studio.origin + "/api/models")))
    let (_, refused) = try await URLSession.shared.data(for: request)
    #expect((refused as? HTTPURLResponse)?.statusCode == 403)
  }

  func ids(_ driver: WebDriver) async throws -> [String] {
    try await driver.run(
      "return [...document.querySelectorAll('#rows tbody tr')].map((tr) => tr.dataset.id)")
      as? [String] ?? []
  }

  func text(_ driver: WebDriver, _ selector: String) async throws -> String? {
    try await driver.run("return document.querySelector(arguments[0]).textContent", [selector])
      as? String
  }
}

/// A reading of the million-row model.
struct Reading: PersistentModel, Equatable {
  var id: Int
  var sensor: String
  var taken: Date
  var value: Double?
}
