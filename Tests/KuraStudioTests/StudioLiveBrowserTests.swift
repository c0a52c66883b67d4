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

/// The App and Sync server pages, live: another process writes, and the page (never reloaded,
/// and with no timer of its own) shows it, pushed by the studio as server-sent events.
extension StudioBrowserTests {
  /// Runs a child process to completion, with `environment` added to this process's.
  func runChild(_ executable: URL, _ arguments: [String], _ environment: [String: String])
    throws
  {
    let result = try run(
      executable, arguments,
      environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
    try #require(
      result.status == 0, "\(executable.lastPathComponent) \(arguments): \(result.stderr)")
  }

  /// Waits until the view's stream of events is open (its status says live), then marks the
  /// page: a reload would lose the mark.
  func waitUntilLive(_ driver: WebDriver) async throws {
    try #require(
      try await driver.wait(for: "document.querySelector(\"#view-live[data-live='1']\") !== null")
        != nil, "the view's events never came")
    try await driver.run("window.kuraNotReloaded = true")
  }

  @Test func anAppsPageShowsWritesOfOtherProcessesWithoutReload() async throws {
    let folder = StudioFolder()
    let environment = ["KURA_HOME": folder.url.path]
    let locations = try Locations.app("trips", environment: environment)
    try Preferences(locations: locations).setValue(.integer(3), forKey: "launchCount")
    try Locations.ensureDirectory(locations.documentsDirectory)
    let studio = try StudioProcess(arguments: ["--app", "trips"], environment: environment)
    let driver = try await WebDriver.start(folder: folder.url)
    do {
      try await driver.open(studio.url)
      try await driver.wait(for: "document.getElementById('nav-app') !== null")
      try await driver.open(studio.origin + "/#/app")
      try await waitUntilLive(driver)
      #expect(try await text(driver, "#suites tr[data-key='launchCount'] td:last-child") == "3")
      #expect(try await text(driver, "#documents") == "No document.")
      var delays: [Double] = []

      // `kura defaults write`, another process, changes a key and adds one (with markup).
      var started = Date()
      try runChild(
        try executable("kura"), ["defaults", "write", "trips", "launchCount", "4", "--int"],
        environment)
      #expect(
        try await driver.wait(
          for:
            "document.querySelector(\"#suites tr[data-key='launchCount'] td:last-child\").textContent === '4'"
        ) != nil)
      delays.append(Date().timeIntervalSince(started))
      started = Date()
      try runChild(
        try executable("kura"),
        ["defaults", "write", "trips", "note", "<img src=x onerror=alert(5)>"],
        environment)
      #expect(
        try await driver.wait(
          for:
            "document.querySelector(\"#suites tr[data-key='note'] td:last-child\").textContent === '<img src=x onerror=alert(5)>'"
        ) != nil)
      delays.append(Date().timeIntervalSince(started))
      #expect(
        try await driver.run("return document.querySelectorAll('#main img').length") as? Int == 0)

      // A document the test helper (another process) creates, then appends to.
      let document = locations.documentsDirectory.appendingPathComponent("cash.json")
      started = Date()
      try runChild(
        try executable("kura-testhelper"), ["document-append", document.path, "2", "memo"],
        environment)
      #expect(
        try await driver.wait(
          for:
            "document.querySelector(\"#documents [data-document='cash.json'] pre.json-view\") && "
            + "document.querySelector(\"#documents [data-document='cash.json'] pre.json-view\").textContent.includes('memo 1')"
        ) != nil)
      delays.append(Date().timeIntervalSince(started))
      started = Date()
      try runChild(
        try executable("kura-testhelper"), ["document-append", document.path, "1", "later"],
        environment)
      #expect(
        try await driver.wait(
          for:
            "document.querySelector(\"#documents [data-document='cash.json'] pre.json-view\").textContent.includes('later 0')"
        ) != nil)
      delays.append(Date().timeIntervalSince(started))
      #expect(try await driver.run("return window.kuraNotReloaded") as? Bool == true)
      // Pushed at once (the file watcher), not found by a poll: loosely bounded on a shared
      // machine.
      #expect(delays.allSatisfy { $0 < 5 }, "\(delays)")
      print("studio browser: app writes shown after \(delays.map { Int($0 * 1000) }) ms")
    } catch {
      await driver.quit()
      throw error
    }
    await driver.quit()
  }

  @Test func deletingClearsNullifiedReferencesShownInThePreviewAndAfterTheSave() async throws {
    let folder = StudioFolder()
    let store = try seededStore(folder)
    let models = studioModels + [Souvenir.self]
    // The app has the store open while the studio edits it (its log and shared-memory index
    // exist, which a read-only reader in the studio's process must not make read-only).
    let seeding = ModelContext(try ModelContainer(for: models, configurations: .url(store)))
    try seeding.insert(Souvenir(id: 1, name: "Fan", trip: 2))
    try seeding.insert(Souvenir(id: 2, name: "Tea bowl", trip: 1))
    try seeding.save()
    let studio = try StudioProcess(store, ["--write"])
    let driver = try await WebDriver.start(folder: folder.url)
    do {
      try await driver.open(studio.url)
      try await driver.wait(for: "document.getElementById('mode').textContent === 'writable'")
      try await openRow(driver, studio.origin + "/#/row/Souvenir/i1", heading: "Souvenir 1")
      #expect(
        try await driver.wait(
          for: "document.querySelector(\"#row tr[data-column='trip'] td a\") !== null") != nil)
      try await openRow(driver, studio.origin + "/#/row/Trip/i2", heading: "Trip 2")
      #expect(
        try await text(driver, "#delete-preview")
          == "Deleting Trip 2 also deletes 1 Activity row (4) through `trip` (.cascade). "
          + "It sets `trip` to nil on 1 Souvenir row (1) (.nullify).")
      try await driver.click("#delete-row")
      try await driver.click("#preview-batch")
      try await driver.wait(for: "document.querySelector('#batch .preview-line') !== null")
      #expect(
        try await text(driver, "#batch .preview-line")
          == "Deleting Trip 2 also deletes 1 Activity row (4) through `trip` (.cascade). "
          + "It sets `trip` to nil on 1 Souvenir row (1) (.nullify).")
      #expect(
        try await driver.run("return document.getElementById('save-batch').disabled") as? Bool
          == false)
      try await driver.click("#save-batch")
      try #require(try await driver.wait(for: "document.getElementById('saved') !== null") != nil)
      // The notice stays on the rows page the save led to, through the redraw of the save's
      // own live change event.
      let token = try #require(
        try await driver.run("return document.getElementById('saved').textContent") as? String)
      #expect(
        try await driver.wait(
          for: "document.getElementById('live').textContent.startsWith('live · saved #')") != nil)
      #expect(try await driver.run("return location.hash") as? String == "#/rows/Trip")
      #expect(
        try await driver.run(
          "return document.getElementById('saved') && document.getElementById('saved').textContent")
          as? String == token)
      let after = ModelContext(try ModelContainer(for: models, configurations: .url(store)))
      #expect(try after.model(for: 2, as: Trip.self) == nil)
      #expect(try after.model(for: 1, as: Souvenir.self)?.trip == nil)
      #expect(try after.model(for: 2, as: Souvenir.self)?.trip == 1)
      // The souvenir stays, its trip nil on its page and in the rows.
      try await openRow(driver, studio.origin + "/#/row/Souvenir/i1", heading: "Souvenir 1")
      #expect(
        try await driver.wait(
          for: "document.querySelector(\"#row tr[data-column='trip'] td .nil\") !== null") != nil)
      try await driver.open(studio.origin + "/#/rows/Souvenir")
      try await driver.wait(for: "document.querySelectorAll('#rows tbody tr').length === 2")
      let trips = try await driver.run(
        "return [...document.querySelectorAll(\"#rows td[data-column='trip']\")].map((td) => td.firstElementChild && td.firstElementChild.className === 'nil' ? 'nil' : td.textContent)"
      )
      #expect(trips as? [String] == ["nil", "1"])
    } catch {
      await driver.quit()
      throw error
    }
    await driver.quit()
  }

  /// A render that an overlapping one replaced (a live change event's redraw of a row the save
  /// deleted, answered after the route moved on) neither draws nor shows its error over the
  /// view now shown.
  @Test func aReplacedRenderLeavesTheViewShownAlone() async throws {
    let folder = StudioFolder()
    let store = try seededStore(folder)
    let studio = try StudioProcess(store, [])
    let driver = try await WebDriver.start(folder: folder.url)
    do {
      try await driver.open(studio.url)
      try await driver.open(studio.origin + "/#/rows/Trip")
      try #require(
        try await driver.wait(for: "document.querySelectorAll('#rows tbody tr').length > 0") != nil)
      // A row that does not exist, answered late; then, at once, the trips' rows.
      try await driver.run(
        """
        const original = window.fetch;
        window.kuraLateAnswers = 0;
        window.fetch = async (...parameters) => {
          const answer = await original(...parameters);
          if (String(parameters[0]).startsWith('/api/row?')) {
            await new Promise((resolve) => setTimeout(resolve, 600));
            window.kuraLateAnswers += 1;
            document.body.dataset.lateAnswers = String(window.kuraLateAnswers);
          }
          return answer;
        };
        location.hash = '#/row/Trip/i999';
        setTimeout(() => { location.hash = '#/rows/Trip'; }, 50);
        """)
      try #require(
        try await driver.wait(for: "document.body.dataset.lateAnswers === '1'") != nil)
      // Let the late render's continuation run, then look.
      try await driver.run("return new Promise((resolve) => setTimeout(() => resolve(true), 200));")
      #expect(try await driver.run("return location.hash") as? String == "#/rows/Trip")
      #expect(
        try await driver.run("return document.querySelectorAll('#main .error').length") as? Int
          == 0)
      #expect(try await text(driver, "#main h1") == "Trip")
      #expect(
        try await driver.run("return document.querySelectorAll('#rows tbody tr').length") as? Int
          ?? 0 > 0)
    } catch {
      await driver.quit()
      throw error
    }
    await driver.quit()
  }

  #if canImport(CLibPQ)
    @Test func aSyncServersPageShowsAPushWithoutReload() async throws {
      let folder = StudioFolder()
      let server = try StudioSyncServer(folder: folder)
      defer { server.stop() }
      let database = server.database
      let phone = try server.replica(folder.file("phone.store"))
      let engine = try SyncEngine(container: phone)
      defer { engine.stop() }
      let context = ModelContext(phone)
      try context.insert(
        Trip(id: 1, name: "Kyoto", start: Date(timeIntervalSince1970: 1_796_000_000)))
      try context.save()
      try await engine.syncNow()

      let studio = try StudioProcess(arguments: ["--sync-server", database])
      let driver = try await WebDriver.start(folder: folder.url)
      do {
        try await driver.open(studio.url)
        try #require(
          try await driver.wait(
            for: "document.querySelector(\"#spaces [data-space='family'] .head\") !== null")
            != nil)
        try await waitUntilLive(driver)
        let head = try #require(
          Int(try await text(driver, "#spaces [data-space='family'] .head") ?? ""))
        // A push through the sync server (another process), which notifies its channel.
        try context.insert(
          Trip(id: 2, name: "Nara", start: Date(timeIntervalSince1970: 1_796_086_400)))
        try context.save()
        let started = Date()
        try await engine.syncNow()
        #expect(
          try await driver.wait(
            for:
              "document.querySelector(\"#spaces [data-space='family'] .head\").textContent === '\(head + 1)'"
          ) != nil)
        let delay = Date().timeIntervalSince(started)
        #expect(delay < 5, "\(delay)")
        #expect(try await driver.run("return window.kuraNotReloaded") as? Bool == true)
        print("studio browser: a push shown on the sync server page after \(Int(delay * 1000)) ms")
      } catch {
        await driver.quit()
        throw error
      }
      await driver.quit()
    }
  #endif
}

/// `kura studio --listen`: the studio serves plain HTTP, on 127.0.0.1 only.
@Suite("Studio's listening address")
struct StudioListenTests {
  @Test func aNonLoopbackListenAddressIsRefused() throws {
    let folder = StudioFolder()
    let store = try seededStore(folder)
    for address in ["0.0.0.0:8080", "192.168.1.5", "[::]:0", "example.com:80"] {
      let result = try run(
        try executable("kura"), ["studio", store.path, "--listen", address],
        environment: ProcessInfo.processInfo.environment, timeout: .seconds(30))
      #expect(result.status == 64, "\(address): \(result.stderr)")
      #expect(result.stderr.contains("(--listen \(address))"), "\(result.stderr)")
      #expect(result.stderr.contains("without TLS"), "\(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
    // The loopback address is taken, with its port.
    let studio = try StudioBrowserTests.StudioProcess(store, ["--listen", "127.0.0.1:0"])
    #expect(studio.url.hasPrefix("http://127.0.0.1:"))
    // A certificate without its key is refused.
    let half = try run(
      try executable("kura"),
      ["studio", store.path, "--listen", "0.0.0.0:0", "--tls-cert", store.path],
      environment: ProcessInfo.processInfo.environment, timeout: .seconds(30))
    #expect(half.status == 64)
    #expect(half.stderr.contains("Give both --tls-cert and --tls-key"), "\(half.stderr)")
  }

  /// A self-signed certificate for 127.0.0.1, made by `openssl`.
  static func certificate(_ folder: StudioFolder) throws -> (certificate: URL, key: URL) {
    let certificate = folder.file("studio.crt")
    let key = folder.file("studio.key")
    let made = try run(
      URL(fileURLWithPath: "/usr/bin/env"),
      [
        "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path,
        "-out", certificate.path, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
        "subjectAltName=IP:127.0.0.1",
      ], environment: ProcessInfo.processInfo.environment)
    try #require(made.status == 0, "openssl failed: \(made.stderr)")
    return (certificate, key)
  }

  @Test(.enabled(if: WebDriver.isAvailable))
  func overTLSItListensOnEveryAddressAndThePageWorks() async throws {
    let folder = StudioFolder()
    let store = try seededStore(folder)
    let tls = try Self.certificate(folder)
    let studio = try StudioBrowserTests.StudioProcess(
      store,
      ["--listen", "0.0.0.0:0", "--tls-cert", tls.certificate.path, "--tls-key", tls.key.path])
    #expect(studio.url.hasPrefix("https://"), "\(studio.url)")
    let port = try #require(studio.origin.split(separator: ":").last.map(String.init))
    let secret = try #require(studio.url.split(separator: "=").last.map(String.init))
    // Plain HTTP to it gets no page.
    let plain = try? await URLSession(configuration: .ephemeral).data(
      from: try #require(URL(string: "http://127.0.0.1:\(port)/?secret=\(secret)")))
    #expect((plain?.1 as? HTTPURLResponse)?.statusCode != 200)
    // The browser (told to accept the self-signed certificate) reaches it on an address of
    // this computer; the secret becomes a Secure cookie, and the page works.
    let driver = try await WebDriver.start(folder: folder.url, acceptInsecureCertificates: true)
    do {
      let origin = "https://127.0.0.1:\(port)"
      try await driver.open(origin + "/?secret=\(secret)")
      #expect(try await driver.run("return location.href") as? String == origin + "/")
      try #require(
        try await driver.wait(for: "document.querySelector('#model-Trip')") != nil)
      try await driver.open(origin + "/#/rows/Trip")
      #expect(
        try await driver.wait(for: "document.querySelectorAll('#rows tbody tr').length === 4")
          != nil)
      try await driver.wait(for: "document.getElementById('live').textContent === 'live'")
    } catch {
      await driver.quit()
      throw error
    }
    await driver.quit()
  }
}
