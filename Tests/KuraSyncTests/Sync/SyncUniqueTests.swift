#if canImport(CLibPQ)
  import Foundation
  import Synchronization
  import Testing

  @testable import Kura
  import KuraStoreCLI

  import KuraPostgreSQL

  import KuraSync

  import KuraSyncCore

  import KuraSyncServer

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  /// A model with a unique name, synced between replicas.
  private struct City: PersistentModel, Equatable {
    var id: UUID
    var name: String
    var visits: Int
    static var schema: Schema<City> { Schema(.unique(\.name)) }
  }

  /// The server arbitrates `.unique` values: exactly one model of a space holds a value on
  /// every replica, and the loser's device lists the conflict with the winner's id.
  @Suite("Sync unique values")
  struct SyncUniqueTests {
    private static func cities(_ container: ModelContainer) throws -> [City] {
      try ModelContext(container).fetch(
        FetchDescriptor<City>(sortBy: [SortDescriptor(\.name), SortDescriptor(\.visits)]))
    }

    private static func save(_ cities: City..., in container: ModelContainer) throws {
      let context = ModelContext(container)
      for city in cities { try context.insert(city) }
      try context.save()
    }

    private static func delete(_ city: City, in container: ModelContainer) throws {
      let context = ModelContext(container)
      try context.delete(city)
      try context.save()
    }

    /// Both devices insert "Kyoto" offline. The first push wins; the second device's row is
    /// set aside (moved out of its table, listed with all its values and the winner's id) and
    /// it gets the winner's row instead. Inserting the kept row again with another value syncs.
    @Test func twoDevicesInsertingOneValueOfflineEndWithOneModelAndTheLoserSetAside()
      async throws
    {
      let world = try SyncRulesWorld([City.self])
      let (a, syncA) = try world.replica("a")
      defer { syncA.stop() }
      // B saves with no engine running: offline.
      let b = try world.container("b")
      let winner = City(id: UUID(), name: "Kyoto", visits: 1)
      let loser = City(id: UUID(), name: "Kyoto", visits: 7)
      let other = City(id: UUID(), name: "Nara", visits: 2)
      try Self.save(winner, in: a)
      try Self.save(loser, other, in: b)
      try await syncA.syncNow()
      let syncB = try SyncEngine(container: b)
      defer { syncB.stop() }
      try await syncB.syncNow()
      try await syncA.syncNow()
      #expect(try Self.cities(a) == [winner, other])
      #expect(try Self.cities(b) == [winner, other])
      #expect(syncB.status.pending == 0)
      let conflicts = try syncB.conflicts()
      try #require(conflicts.count == 1)
      #expect(conflicts[0].kind == .setAside)
      #expect(conflicts[0].model == "City")
      #expect(conflicts[0].id == loser.id.uuidString)
      #expect(conflicts[0].existingID == winner.id.uuidString)
      #expect(conflicts[0].property == "name")
      #expect(conflicts[0].lostValue == #"{"text":"Kyoto"}"#)
      let kept = try #require(conflicts[0].keptValues)
      #expect(
        kept
          == #"{"id":{"text":"\#(loser.id.uuidString)"},"name":{"text":"Kyoto"},"visits":{"integer":"7"}}"#
      )
      #expect(try syncA.conflicts().isEmpty)
      // The server published none of the loser's changes, and Nara's, saved with it, are kept.
      let claims = try world.serverQuery(
        "SELECT value, id FROM kura_sync_unique_claims ORDER BY value"
      ) { "\($0.string(at: 0)) \($0.string(at: 1))" }
      #expect(
        claims == [
          #"[{"text":"Kyoto"}] \#(winner.id.uuidString)"#,
          #"[{"text":"Nara"}] \#(other.id.uuidString)"#,
        ])
      // The app resolves it: the kept model inserted again under another name, same id.
      var renamed = loser
      renamed.name = "Kyoto 2"
      try Self.save(renamed, in: b)
      try await syncB.syncNow()
      try await syncA.syncNow()
      #expect(try Self.cities(a) == [winner, renamed, other])
      #expect(try Self.cities(b) == Self.cities(a))
      try syncB.clearConflicts()
      #expect(try syncB.conflicts().isEmpty)
    }

    /// The winner renaming or deleting its model frees the value: the loser's row, inserted
    /// again, then takes it.
    @Test(arguments: ["rename", "delete"])
    func aValueTheWinnerGivesUpCanBeTakenByTheLoser(_ how: String) async throws {
      let world = try SyncRulesWorld([City.self])
      let (a, syncA) = try world.replica("a")
      defer { syncA.stop() }
      let b = try world.container("b")
      var winner = City(id: UUID(), name: "Kobe", visits: 1)
      let loser = City(id: UUID(), name: "Kobe", visits: 2)
      try Self.save(winner, in: a)
      try Self.save(loser, in: b)
      try await syncA.syncNow()
      let syncB = try SyncEngine(container: b)
      defer { syncB.stop() }
      try await syncB.syncNow()
      #expect(try Self.cities(b) == [winner])
      #expect(try syncB.conflicts().map(\.kind) == [.setAside])
      if how == "rename" {
        winner.name = "Himeji"
        try Self.save(winner, in: a)
      } else {
        try Self.delete(winner, in: a)
      }
      try await syncA.syncNow()
      try await syncB.syncNow()
      try Self.save(loser, in: b)
      try await syncB.syncNow()
      try await syncA.syncNow()
      let expected = how == "rename" ? [winner, loser] : [loser]
      #expect(try Self.cities(a) == expected)
      #expect(try Self.cities(b) == expected)
      #expect(try syncB.conflicts().count == 1)
      #expect(try syncA.conflicts().isEmpty)
    }

    /// A synced model renamed to a value another model holds keeps its former value (the
    /// server's), and the conflict names the holder; the save's other changes still sync.
    @Test func aRenameToATakenValueGivesTheModelItsFormerValueBack() async throws {
      let world = try SyncRulesWorld([City.self])
      let (a, syncA) = try world.replica("a")
      let (b, firstSyncB) = try world.replica("b")
      defer {
        syncA.stop()
        firstSyncB.stop()
      }
      let osaka = City(id: UUID(), name: "Osaka", visits: 1)
      let sakai = City(id: UUID(), name: "Sakai", visits: 1)
      try Self.save(osaka, sakai, in: a)
      try await syncA.syncNow()
      try await firstSyncB.syncNow()
      // B goes offline and renames Sakai to "Naniwa", counting a visit; A renames Osaka to
      // "Naniwa" and syncs first.
      firstSyncB.stop()
      var taken = sakai
      taken.name = "Naniwa"
      taken.visits = 5
      try Self.save(taken, in: b)
      var naniwa = osaka
      naniwa.name = "Naniwa"
      try Self.save(naniwa, in: a)
      try await syncA.syncNow()
      let syncB = try SyncEngine(container: b)
      defer { syncB.stop() }
      try await syncB.syncNow()
      try await syncA.syncNow()
      var expectedSakai = sakai
      expectedSakai.visits = 5
      #expect(try Self.cities(a) == [naniwa, expectedSakai])
      #expect(try Self.cities(b) == [naniwa, expectedSakai])
      let conflicts = try syncB.conflicts()
      try #require(conflicts.count == 1)
      #expect(conflicts[0].kind == .uniqueValue)
      #expect(conflicts[0].id == sakai.id.uuidString)
      #expect(conflicts[0].existingID == osaka.id.uuidString)
      #expect(conflicts[0].lostValue == #"{"text":"Naniwa"}"#)
      #expect(conflicts[0].keptValues == nil)
      // B's registers agree with the server's: a later sync changes nothing.
      try await syncB.syncNow()
      #expect(syncB.status.pending == 0)
      #expect(try Self.cities(b) == [naniwa, expectedSakai])
    }

    /// A pulled model holding a value a local, unsent model holds: the pull doesn't stop, and
    /// the local model stays (a replica removes a model only when the server says it refused
    /// it) while the pulled one waits; the local one's push, refused by the server, sets it
    /// aside with one conflict, and the pulled one takes its place.
    @Test func aPulledModelTakesAValueALocalUnsentModelHolds() async throws {
      let world = try SyncRulesWorld([City.self])
      let (a, syncA) = try world.replica("a")
      let (b, syncB) = try world.replica("b")
      defer {
        syncA.stop()
        syncB.stop()
      }
      syncB.stop()
      let winner = City(id: UUID(), name: "Nagoya", visits: 3)
      let local = City(id: UUID(), name: "Nagoya", visits: 4)
      try Self.save(winner, in: a)
      try await syncA.syncNow()
      try Self.save(local, in: b)
      // B pulls before it pushes (as when its save came after its last push).
      let url = try #require(URL(string: "\(world.server.url)/v1/spaces/family/changes?after=0"))
      let answer = try await send("GET", url, token: world.token.token)
      #expect(answer.status == 200)
      let page = try JSONDecoder().decode(SyncPullResponse.self, from: answer.body)
      _ = try b.pool.write { db in
        try SyncLocalStore.applyPulled(page.saves, container: b, db: db)
      }
      #expect(try Self.cities(b) == [local])
      let engine = try SyncEngine(container: b)
      defer { engine.stop() }
      try await engine.syncNow()
      #expect(try Self.cities(b) == [winner])
      let conflicts = try engine.conflicts()
      #expect(conflicts.map(\.kind) == [.setAside])
      #expect(conflicts.map(\.existingID) == [winner.id.uuidString])
      #expect(engine.status.pending == 0)
      try await syncA.syncNow()
      #expect(try Self.cities(a) == [winner])
    }

    /// Pushing the losing save again (its answer lost) gets the same answer and changes
    /// nothing on the server.
    @Test func aResentLosingSaveGetsTheSameConflicts() async throws {
      let world = try SyncRulesWorld([City.self])
      let replica = UUID()
      let wall = UInt64(Date().timeIntervalSince1970 * 1000)
      func save(_ sequence: Int64, id: String, name: String) -> SyncSave {
        SyncSave(
          sequence: sequence,
          changes: [
            .set(
              "City", id: id, incarnation: 1, property: "name", to: .text(name),
              stamp: SyncStamp(wall: wall, counter: UInt16(sequence), replica: replica))
          ], unique: [SyncUniqueConstraint(model: "City", properties: ["name"])])
      }
      let first = try JSONEncoder().encode(
        SyncPushRequest(
          replica: SyncStamp.hex(replica),
          saves: [save(1, id: "one", name: "Sendai"), save(2, id: "two", name: "Sendai")]))
      let url = world.server.url.appendingPathComponent("v1/spaces/family/push")
      let answer = try await send("POST", url, token: world.token.token, body: first)
      #expect(answer.status == 200)
      let decoded = try JSONDecoder().decode(SyncPushResponse.self, from: answer.body)
      let conflict = SyncUniqueConflict(
        sequence: 2, model: "City", id: "two", incarnation: 1, properties: ["name"],
        values: [.text("Sendai")], existingID: "one", restored: nil)
      #expect(decoded.conflicts == [conflict])
      #expect(decoded.acknowledged == 2)
      let again = try await send("POST", url, token: world.token.token, body: first)
      #expect(again.status == 200)
      #expect(try JSONDecoder().decode(SyncPushResponse.self, from: again.body) == decoded)
      // The refused model's changes are not published: a delete of it is, in their place, once.
      let logged = try world.serverQuery(
        "SELECT sequence, changes FROM kura_sync_log ORDER BY position"
      ) {
        let changes = try JSONDecoder().decode(
          [SyncChange].self, from: Data($0.string(at: 1).utf8))
        return "\($0.int64(at: 0)) "
          + changes.map { "\($0.id) \($0.deleted ? "deleted" : $0.property ?? "")" }
          .joined(separator: ", ")
      }
      #expect(logged == ["1 one name", "2 two deleted"])
      // A canonically equivalent spelling (é composed, é decomposed) is the same value.
      let composed = try JSONEncoder().encode(
        SyncPushRequest(
          replica: SyncStamp.hex(replica),
          saves: [
            save(3, id: "three", name: "Caf\u{E9}"), save(4, id: "four", name: "Cafe\u{301}"),
          ]))
      let third = try await send("POST", url, token: world.token.token, body: composed)
      let thirdAnswer = try JSONDecoder().decode(SyncPushResponse.self, from: third.body)
      #expect(thirdAnswer.conflicts?.map(\.id) == ["four"])
      #expect(thirdAnswer.conflicts?.map(\.existingID) == ["three"])
    }

    /// Two replica processes insert one city name and sync at the same moment: one model holds
    /// the name on both, and the loser's process lists it set aside with the winner's id.
    @Test func twoReplicaProcessesClaimingOneValueAtOnceEndWithOneModel() throws {
      let world = try SyncRulesWorld([City.self])
      let replicas = try ["a", "b"].map {
        try SyncReplicaProcess(
          store: world.directory.file("\($0).store"), server: world.server.url,
          token: world.token, directory: world.directory)
      }
      #expect(try replicas[0].ask("city 1 Kyoto") == "saved")
      #expect(try replicas[1].ask("city 2 Kyoto") == "saved")
      let answers = Mutex<[String]>([])
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        let answer = (try? replicas[index].ask("sync")) ?? "no answer"
        answers.withLock { $0.append(answer) }
      }
      #expect(answers.withLock { $0 } == ["synced", "synced"])
      for replica in replicas { #expect(try replica.ask("sync") == "synced") }
      let cities = try replicas[0].ask("cities")
      #expect(cities == "cities 1:Kyoto" || cities == "cities 2:Kyoto")
      #expect(try replicas[1].ask("cities") == cities)
      let winner = cities == "cities 1:Kyoto" ? 1 : 2
      let conflicts = try replicas.map {
        try $0.ask("conflicts").trimmingCharacters(in: .whitespaces)
      }
      #expect(conflicts[winner - 1] == "conflicts")
      #expect(conflicts[2 - winner] == "conflicts setAside:\(3 - winner):\(winner)")
      let claims = try world.serverQuery("SELECT id FROM kura_sync_unique_claims") {
        $0.string(at: 0)
      }
      #expect(claims == ["\(winner)"])
    }
  }
#endif
