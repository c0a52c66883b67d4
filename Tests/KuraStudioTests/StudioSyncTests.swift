#if canImport(CLibPQ)
  import Foundation
  import Kura
  import KuraEngineTestSupport
  import KuraPostgreSQL
  import KuraPostgresCluster
  import KuraStudio
  import KuraSync
  import KuraSyncCore
  import KuraSyncServer
  import KuraTestSupport
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// Sync in the studio: a synced store's state and pending outbox, and a real `kura sync
  /// serve`'s spaces and replicas (`--sync-server`), on a throwaway PostgreSQL cluster.
  @Suite("Studio on sync")
  struct StudioSyncTests {
    func get(_ studio: Studio, _ path: String) throws -> [String: Any] {
      let response = studio.respond(
        to: StudioRequest(
          method: "GET", path: path,
          headers: ["Host": "127.0.0.1:4321", "Cookie": "kura_studio_4321=s3cret"]))
      #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
      return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    @Test func showsASyncedStoresOutboxAndTheServersSpacesAndReplicas() async throws {
      let folder = StudioFolder()
      let server = try StudioSyncServer(folder: folder)
      defer { server.stop() }
      let database = server.database
      // Two replicas: a saves and syncs, b syncs, then a saves once more without syncing.
      let a = try server.replica(folder.file("a.store"))
      let b = try server.replica(folder.file("b.store"))
      let syncA = try SyncEngine(container: a)
      let syncB = try SyncEngine(container: b)
      defer {
        syncA.stop()
        syncB.stop()
      }
      let context = ModelContext(a)
      try context.insert(
        Trip(id: 1, name: "Kyoto", start: Date(timeIntervalSince1970: 1_796_000_000)))
      try context.save()
      try await syncA.syncNow()
      try await syncB.syncNow()
      #expect(try ModelContext(b).model(for: 1, as: Trip.self)?.name == "Kyoto")
      // a's engine stops, so its next save waits in the outbox (an engine pushes a save soon).
      syncA.stop()
      try context.insert(
        Trip(id: 2, name: "Nara", start: Date(timeIntervalSince1970: 1_796_086_400)))
      try context.save()

      // The synced store: its state and the save waiting in its outbox.
      let store = try Studio(store: .url(folder.file("a.store")), storeName: "a", secret: "s3cret")
      store.port = 4_321
      #expect(try get(store, "/api/models")["synced"] as? Bool == true)
      let sync = try get(store, "/api/sync")
      #expect(sync["synced"] as? Bool == true)
      let outbox = try #require(sync["outbox"] as? [String: Any])
      #expect(outbox["count"] as? Int == 1)
      let pending = try #require((outbox["rows"] as? [[Any]])?.first?.last as? String)
      // Recorded from the history when sync next sends: listed with what the history says.
      #expect(pending == "Trip 2: saved (recorded when sync next sends)")
      #expect((sync["quarantine"] as? [String: Any])?["count"] as? Int == 0)
      #expect((sync["rejections"] as? [String: Any])?["count"] as? Int == 0)
      let state = try #require(sync["state"] as? [String: String])
      #expect(state["replica"] != nil)
      // A store that does not sync says so.
      let plain = try Studio(store: .url(try seededStore(folder)), storeName: "t", secret: "s3cret")
      plain.port = 4_321
      #expect(try get(plain, "/api/sync")["synced"] as? Bool == false)
      // --write is refused on the synced store: its edits would bypass the outbox.
      #expect(throws: StoreError.self) {
        try Studio(store: .url(folder.file("a.store")), storeName: "a", writable: true)
      }

      // The server: one space, its head, two replicas seen just now.
      let studio = try Studio(
        syncServer: SyncServerSource(try PostgresLocation(database)), secret: "s3cret")
      studio.port = 4_321
      #expect(try get(studio, "/api/models")["syncServer"] as? String != nil)
      let overview = try get(studio, "/api/sync-server")
      let spaces = try #require(overview["spaces"] as? [[String: Any]])
      #expect(spaces.map { $0["space"] as? String } == ["family"])
      let family = try #require(spaces.first)
      let head = try #require(family["head"] as? Int)
      #expect(head >= 1)
      #expect(family["compacted"] as? Int == 0)
      #expect(family["logged"] as? Int == head)
      let replicas = try #require(family["replicas"] as? [[String: Any]])
      #expect(replicas.count == 2)
      let now = Date().timeIntervalSince1970
      for replica in replicas {
        let seen = try #require(replica["seenAt"] as? Double)
        #expect(abs(now - seen) < 120)
        #expect(replica["retiring"] as? Bool == false)
        #expect((replica["pulled"] as? Int).map { $0 <= head } == true)
      }
      // a's saves are acknowledged through the head; b pushed none.
      #expect(replicas.compactMap { $0["acknowledged"] as? Int }.sorted() == [0, head])
      // After a's second save reaches the server, the head moves.
      let again = try SyncEngine(container: a)
      try await again.syncNow()
      again.stop()
      let after = try #require(try get(studio, "/api/sync-server")["spaces"] as? [[String: Any]])
      #expect(after.first?["head"] as? Int == head + 1)
      #expect(((try get(store, "/api/sync"))["outbox"] as? [String: Any])?["count"] as? Int == 0)
      // A database that is no sync server's is refused when the studio starts.
      #expect(throws: (any Error).self) {
        try Studio(
          syncServer: SyncServerSource(
            try PostgresLocation(try PostgresCluster.freshDatabaseURL("other"))))
      }
    }

    /// Pushes one save as a device of its own that writes its JSON by hand (what no Kura
    /// replica would send); returns the status.
    func rawPush(_ server: URL, token: String, replica: UUID, _ changes: [String]) async throws
      -> Int
    {
      let body =
        "{\"replica\":\"\(SyncStamp.hex(replica))\",\"saves\":[{\"changes\":["
        + changes.joined(separator: ",") + "],\"sequence\":1}]}"
      var request = URLRequest(url: server.appendingPathComponent("v1/spaces/family/push"))
      request.httpMethod = "POST"
      request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      request.httpBody = Data(body.utf8)
      let session = URLSession(configuration: .ephemeral)
      defer { session.finishTasksAndInvalidate() }
      let (_, response) = try await session.data(for: request)
      return try #require(response as? HTTPURLResponse).statusCode
    }

    @Test func showsARejectedSaveAndAQuarantinedPulledChange() async throws {
      let folder = StudioFolder()
      let server = try StudioSyncServer(folder: folder)
      defer { server.stop() }
      let database = server.database
      let token = server.token
      let url = server.url
      let a = try server.replica(folder.file("a.store"))
      let b = try server.replica(folder.file("b.store"))
      let syncA = try SyncEngine(container: a)
      let syncB = try SyncEngine(container: b)
      defer {
        syncA.stop()
        syncB.stop()
      }
      // a's trip reaches b, which books it (a .deny reference); a, not knowing, deletes the
      // trip: the server keeps it, and a's save is rejected.
      let onA = ModelContext(a)
      try onA.insert(
        Trip(id: 1, name: "Kyoto", start: Date(timeIntervalSince1970: 1_796_000_000)))
      try onA.save()
      try await syncA.syncNow()
      try await syncB.syncNow()
      let onB = ModelContext(b)
      try onB.insert(Booking(id: "ryokan", trip: 1))
      try onB.save()
      try await syncB.syncNow()
      let kyoto = try #require(try onA.model(for: 1, as: Trip.self))
      try onA.delete(kyoto)
      try onA.save()
      _ = try? await syncA.syncNow()
      // A device that sends a trip with a name alone (markup in it): a's pull holds it back,
      // waiting for the properties this schema requires.
      let hostile = UUID()
      let stamp = SyncStamp(
        wall: HybridLogicalClock.systemWallClock(), counter: 0, replica: hostile
      ).text
      let ghost =
        "{\"id\":\"7\",\"incarnation\":1,\"model\":\"Trip\",\"property\":\"name\","
        + "\"stamp\":\"\(stamp)\",\"value\":{\"text\":\"<b>Ghost</b>\"}}"
      // Today's server refuses it (400: its catalogue knows the schema); a space's log can
      // still hold such a save, logged by a server from before the catalogue: it is written
      // there as that server did, and a's pull from the real server brings it.
      let status = try await rawPush(url, token: token.token, replica: hostile, [ghost])
      #expect(status == 400)
      let connection = try PostgresConnection(database)
      try connection.execute("BEGIN")
      let head = try #require(
        try connection.queryFirst(
          "UPDATE kura_sync_spaces SET head = head + 1 WHERE space = 'family' RETURNING head"
        ) { $0.int64(at: 0) })
      try connection.run(
        "INSERT INTO kura_sync_log (space, position, replica, sequence, changes) "
          + "VALUES ('family', ?, ?, 1, ?)",
        [.integer(head), .text(SyncStamp.hex(hostile)), .text("[" + ghost + "]")])
      try connection.execute("COMMIT")
      _ = try? await syncA.syncNow()
      #expect(try onA.model(for: 7, as: Trip.self) == nil)

      let studio = try Studio(store: .url(folder.file("a.store")), storeName: "a", secret: "s3cret")
      studio.port = 4_321
      let sync = try get(studio, "/api/sync")
      let rejections = try #require(sync["rejections"] as? [String: Any])
      #expect(rejections["count"] as? Int == 1, "\(sync)")
      let rejectionColumns = try #require(rejections["columns"] as? [String])
      let rejection = try #require((rejections["rows"] as? [[Any]])?.first)
      func field(_ row: [Any], _ columns: [String], _ name: String) -> String? {
        columns.firstIndex(of: name).flatMap { row[$0] as? String }
      }
      #expect(field(rejection, rejectionColumns, "status") == "409")
      #expect(
        field(rejection, rejectionColumns, "reason")?.contains(
          "Booking `ryokan` refers to it with a .deny rule") == true, "\(rejection)")
      #expect(field(rejection, rejectionColumns, "changes")?.contains("Trip 1") == true)
      let quarantine = try #require(sync["quarantine"] as? [String: Any])
      let quarantineColumns = try #require(quarantine["columns"] as? [String])
      let held = try #require(quarantine["rows"] as? [[Any]])
      #expect(!held.isEmpty, "\(sync)")
      #expect(held.allSatisfy { field($0, quarantineColumns, "model") == "Trip" })
      #expect(held.allSatisfy { field($0, quarantineColumns, "id") == "7" })
      #expect(held.contains { field($0, quarantineColumns, "property") == "start" }, "\(held)")
      #expect(
        held.allSatisfy {
          field($0, quarantineColumns, "reason")?.contains("Can't store the pulled `Trip` `7` yet")
            == true
        }, "\(held)")
      #expect(held.allSatisfy { field($0, quarantineColumns, "replica") == SyncStamp.hex(hostile) })

      // The page shows them, stored text as text.
      guard WebDriver.isAvailable else { return }
      let page = try StudioBrowserTests.StudioProcess(folder.file("a.store"))
      let driver = try await WebDriver.start(folder: folder.url)
      do {
        try await driver.open(page.url)
        try #require(
          try await driver.wait(for: "document.getElementById('nav-sync') !== null") != nil)
        try await driver.open(page.origin + "/#/sync")
        try #require(
          try await driver.wait(
            for: "document.querySelectorAll('#sync-quarantine tbody tr').length === \(held.count)"
          ) != nil)
        let rejected = try await driver.run(
          "return document.querySelector('#sync-rejections tbody tr').textContent")
        #expect(
          (rejected as? String)?.contains("Booking `ryokan` refers to it with a .deny rule")
            == true, "\(rejected ?? "")")
        let quarantined = try await driver.run(
          "return [...document.querySelectorAll('#sync-quarantine tbody tr')].map((tr) => tr.textContent)"
        )
        let lines = quarantined as? [String] ?? []
        #expect(lines.count == held.count)
        #expect(
          lines.allSatisfy { $0.contains("Can't store the pulled `Trip` `7` yet") }, "\(lines)")
        #expect(
          try await driver.run("return document.querySelectorAll('#main b, #main img').length")
            as? Int == 0)
      } catch {
        await driver.quit()
        throw error
      }
      await driver.quit()
    }
  }
#endif
