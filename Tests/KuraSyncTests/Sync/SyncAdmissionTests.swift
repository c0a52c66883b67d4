#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura
  import KuraPostgreSQL
  import KuraSync
  import KuraSyncCore
  import KuraSyncServer
  import KuraTestSupport
  import KuraEngineTestSupport
  import KuraCLI
  import KuraStoreCLI

  /// One authorized device sending what no Kura app would (issue 39's reproductions), through a
  /// real `kura sync serve` on PostgreSQL, against `wishlist --sync` stores (the built
  /// executable): every honest store keeps syncing and listing, and shows what it could not hold
  /// in `wishlist sync status`.
  @Suite("Sync admission and quarantine")
  struct SyncAdmissionTests {
    /// A `wishlist` space and the terminals (store files) that sync it.
    final class Terminals: Sendable {
      let directory: TemporaryDirectory
      let database: String
      let token: SyncToken
      let server: SyncTestServer
      let hostile: HostileReplica

      init(_ name: String = #function) throws {
        directory = TemporaryDirectory("sync-admission")
        database = try PostgresCluster.shared().freshDatabaseURL(name)
        token = try SyncToken(space: "wishlist", expires: nil)
        let tokens = directory.file("tokens")
        try "\(token.line)\n".write(to: tokens, atomically: true, encoding: .utf8)
        server = try SyncTestServer(store: database, tokens: tokens, directory: directory)
        hostile = HostileReplica(
          server: server.url, space: "wishlist", token: token.token, database: database)
      }

      /// Runs `wishlist` on terminal `name`'s store, syncing.
      func wishlist(_ name: String, _ arguments: [String]) throws -> ProcessResult {
        var environment = directory.environment
        environment["KURA_SYNC_URL"] = server.url.absoluteString
        environment["KURA_SYNC_TOKEN"] = token.token
        environment["TZ"] = "Asia/Tokyo"
        return try run(
          try executable("wishlist"),
          arguments + ["--store", directory.file("\(name).store").path],
          environment: environment)
      }

      /// Runs `wishlist`, requiring success and no "not synced" warning.
      @discardableResult
      func ok(_ name: String, _ arguments: String...) throws -> String {
        let result = try wishlist(name, arguments)
        try #require(result.status == 0, "wishlist \(arguments) failed: \(result.stderr)")
        #expect(!result.stderr.contains("not synced"), "\(arguments): \(result.stderr)")
        return result.stdout
      }

      /// Adds a trip on `name` and returns its id.
      func addTrip(_ name: String, _ trip: String, start: String) throws -> String {
        let json = try ok(name, "trip", "add", trip, "--start", start, "--json")
        let object = try #require(
          try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        return try #require(object["id"] as? String)
      }

      /// `wishlist sync status --json` of `name`: the report's quarantine entries.
      func quarantine(_ name: String) throws -> [[String: Any]] {
        let json = try ok(name, "sync", "status", "--json")
        let report = try #require(
          try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(report["state"] as? String == "up to date")
        let entries = try #require(report["quarantine"] as? [[String: Any]])
        #expect(report["quarantined"] as? Int == entries.count)
        return entries
      }
    }

    /// A complete trip's changes but `name`'s, from the hostile replica.
    private static func tripChanges(
      _ hostile: HostileReplica, id: String, name: String, start: Date,
      except left: Set<String> = []
    ) -> [String] {
      let values = [
        "name": WireValue.text(name), "startDate": WireValue.date(start),
        "endDate": WireValue.date(start), "createdAt": WireValue.date(start), "photoURL": "null",
      ]
      return values.sorted { $0.key < $1.key }.filter { !left.contains($0.key) }.map {
        hostile.set("Trip", id: id, $0.key, $0.value)
      }
    }

    @Test func aNewTripWithOnlyANameWaitsAndEveryStoreKeepsSyncing() async throws {
      let terminals = try Terminals()
      try terminals.ok("a", "trip", "add", "Kyoto", "--start", "2026-12-24")
      let ghost = UUID().uuidString
      let accepted = try await terminals.hostile.push(
        sequence: 1, [terminals.hostile.set("Trip", id: ghost, "name", WireValue.text("Ghost"))])
      #expect(accepted == 200)
      // Stores old and new pull past it, and their saves still go out.
      try terminals.ok("b", "trip", "add", "Nara", "--start", "2026-12-26")
      let listA = try terminals.ok("a", "trip", "list")
      #expect(listA.contains("Nara  2026-12-26"), "\(listA)")
      #expect(!listA.contains("Ghost"))
      for name in ["a", "b"] {
        let entries = try terminals.quarantine(name)
        let waiting = entries.filter { $0["kind"] as? String == "waiting" }
        // The trip lacks startDate and endDate (createdAt has no default either).
        #expect(
          Set(waiting.compactMap { $0["property"] as? String })
            == ["startDate", "endDate", "createdAt"])
        #expect(waiting.allSatisfy { $0["id"] as? String == ghost })
        #expect(
          waiting.allSatisfy {
            $0["replica"] as? String == SyncStamp.hex(terminals.hostile.replica)
          })
        let reason = try #require(waiting.first?["reason"] as? String)
        #expect(reason.contains("Can't store the pulled `Trip` `\(ghost)` yet: it has no `"))
      }
      let status = try terminals.ok("a", "sync", "status")
      #expect(status.contains("quarantined  3 changes another device sent"), "\(status)")
      #expect(status.contains("waiting  Trip \(ghost).startDate  from "), "\(status)")
      // A later change completes it: it appears, and leaves the quarantine.
      let completing = Self.tripChanges(
        terminals.hostile, id: ghost, name: "Ghost", start: Date(timeIntervalSince1970: 1.8e9),
        except: ["name"])
      #expect(try await terminals.hostile.push(sequence: 2, completing) == 200)
      for name in ["a", "b", "c"] {
        #expect(try terminals.ok(name, "trip", "list").contains("Ghost"))
        #expect(try terminals.quarantine(name).isEmpty)
      }
    }

    @Test func aNullNameOfAnExistingTripIsRefusedAndTheTripKeepsItsName() async throws {
      let terminals = try Terminals()
      let kyoto = try terminals.addTrip("a", "Kyoto", start: "2026-12-24")
      let null = terminals.hostile.set("Trip", id: kyoto, "name", "null", tick: 60_000)
      #expect(try await terminals.hostile.push(sequence: 1, [null]) == 200)
      try terminals.ok("b", "trip", "add", "Nara", "--start", "2026-12-26")
      for name in ["a", "b"] {
        let list = try terminals.ok(name, "trip", "list")
        #expect(list.contains("Kyoto  2026-12-24") && list.contains("Nara  2026-12-26"), "\(list)")
        let entries = try terminals.quarantine(name)
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry["kind"] as? String == "refused")
        #expect(entry["model"] as? String == "Trip")
        #expect(entry["id"] as? String == kyoto)
        #expect(entry["property"] as? String == "name")
        #expect(entry["value"] as? String == "null")
        #expect(entry["replica"] as? String == SyncStamp.hex(terminals.hostile.replica))
        #expect(
          entry["reason"] as? String
            == "Can't store `Trip` `\(kyoto)`'s `name`: the value is null, and `name` is not "
            + "optional. The change was not applied (the model keeps its value); a later change "
            + "of `name` replaces it.")
      }
      // A later rename replaces the refused change: the quarantine empties.
      try terminals.ok("b", "trip", "rename", "Kyoto", "Kyōto")
      #expect(try terminals.ok("a", "trip", "list").contains("Kyōto  2026-12-24"))
      #expect(try terminals.quarantine("a").isEmpty)
    }

    @Test func nanAndInfiniteDatesAreRefused() async throws {
      let terminals = try Terminals()
      let kyoto = try terminals.addTrip("a", "Kyoto", start: "2026-12-24")
      let hostile = terminals.hostile
      let bits: [UInt64] = [0x7FF8_0000_0000_0000, 0x7FF0_0000_0000_0000, 0xFFF0_0000_0000_0000]
      // On the existing trip, and as a new trip's dates.
      var changes = bits.enumerated().map { index, bits in
        hostile.set(
          "Trip", id: kyoto, ["startDate", "endDate", "createdAt"][index],
          WireValue.real(bits: bits))
      }
      let fresh = UUID().uuidString
      changes += Self.tripChanges(hostile, id: fresh, name: "Infinity", start: Date())
        .filter { !$0.contains("\"startDate\"") }
      changes.append(
        hostile.set("Trip", id: fresh, "startDate", WireValue.real(bits: 0x7FF0_0000_0000_0000)))
      #expect(try await hostile.push(sequence: 1, changes) == 200)
      for name in ["a", "b"] {
        let list = try terminals.ok(name, "trip", "list")
        #expect(list.contains("Kyoto  2026-12-24"), "\(list)")
        #expect(!list.contains("Infinity"))
        let entries = try terminals.quarantine(name)
        let refused = entries.filter { $0["kind"] as? String == "refused" }
        #expect(refused.count == 4)
        #expect(
          Set(refused.compactMap { $0["value"] as? String })
            == Set(bits.map { WireValue.real(bits: $0) }))
        #expect(
          refused.contains {
            ($0["reason"] as? String)?.contains("`startDate`: the date is nan, not a finite")
              == true
          })
        // The new trip has no startDate it can hold: it waits for one.
        #expect(
          entries.filter { $0["kind"] as? String == "waiting" }.compactMap {
            $0["property"] as? String
          } == ["startDate"])
      }
    }

    @Test func aTripWhoseIdIsNotAUUIDIsRefusedAndListsKeepWorking() async throws {
      let terminals = try Terminals()
      try terminals.ok("a", "trip", "add", "Kyoto", "--start", "2026-12-24")
      let changes = Self.tripChanges(
        terminals.hostile, id: "not-a-uuid", name: "Nowhere", start: Date())
      #expect(try await terminals.hostile.push(sequence: 1, changes) == 200)
      for name in ["a", "b"] {
        let list = try terminals.ok(name, "trip", "list")
        #expect(list.contains("Kyoto  2026-12-24") && !list.contains("Nowhere"), "\(list)")
        let entries = try terminals.quarantine(name)
        #expect(entries.count == changes.count)
        #expect(entries.allSatisfy { $0["id"] as? String == "not-a-uuid" })
        #expect(
          entries.allSatisfy {
            $0["reason"] as? String
              == "Can't store a `Trip` with the id `not-a-uuid`: `not-a-uuid` is not a UUID as "
              + "Kura writes it (uppercase). It was not applied; this app can't hold that model."
          })
      }
    }

    @Test func anActivityWhoseTripIsNotATripIdIsRefusedNamingTrip() async throws {
      let terminals = try Terminals()
      let kyoto = try terminals.addTrip("a", "Kyoto", start: "2026-12-24")
      let hostile = terminals.hostile
      let bad = [WireValue.integer(5), WireValue.text("not-a-uuid")]
      var changes: [String] = []
      var ids: [String] = []
      for trip in bad {
        let id = UUID().uuidString
        ids.append(id)
        changes += [
          hostile.set("Activity", id: id, "name", WireValue.text("Bad \(ids.count)")),
          hostile.set("Activity", id: id, "isComplete", WireValue.integer(0)),
          hostile.set("Activity", id: id, "createdAt", WireValue.date(Date())),
          hostile.set("Activity", id: id, "trip", trip),
        ]
      }
      #expect(try await hostile.push(sequence: 1, changes) == 200)
      try terminals.ok("a", "activity", "add", "Kyoto", "Temples")
      for name in ["a", "b"] {
        let list = try terminals.ok(name, "activity", "list", "Kyoto")
        #expect(list.contains("Temples") && !list.contains("Bad"), "\(list)")
        let entries = try terminals.quarantine(name)
        let refused = entries.filter { $0["kind"] as? String == "refused" }
        #expect(refused.count == 2)
        #expect(refused.allSatisfy { $0["property"] as? String == "trip" })
        #expect(Set(refused.compactMap { $0["value"] as? String }) == Set(bad))
        let reasons = Set(refused.compactMap { $0["reason"] as? String })
        #expect(
          reasons.contains(
            "Can't store `Activity` `\(ids[0])`'s `trip`: the value is an integer, where `trip` "
              + "(`UUID`) holds a UUID. The change was not applied (the model keeps its value); "
              + "a later change of `trip` replaces it."))
        #expect(
          reasons.contains { $0.contains("`\(ids[1])`'s `trip`: `not-a-uuid` is not a UUID") })
        #expect(!reasons.contains { $0.contains("isComplete") })
        // Without a trip, each waits (trip is required).
        #expect(
          entries.filter { $0["kind"] as? String == "waiting" }.compactMap {
            $0["property"] as? String
          } == ["trip", "trip"])
      }
      _ = kyoto
    }
  }
#endif
