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

  /// A model the tombstone tests save on several replicas.
  private struct SyncNote: PersistentModel, Equatable {
    var id: Int
    var text: String
  }

  /// Tombstones on the server: kept until every replica seen within the retention window has
  /// pulled past them, then compacted with the log; a replica away longer is retired and, when
  /// it comes back, rebased from the snapshot with its outbox kept.
  @Suite("Sync tombstones")
  struct SyncTombstoneTests {
    private static func notes(_ container: ModelContainer) throws -> [SyncNote] {
      try ModelContext(container).fetch(FetchDescriptor<SyncNote>(sortBy: [SortDescriptor(\.id)]))
    }

    private static func save(_ notes: [SyncNote], in container: ModelContainer) throws {
      let context = ModelContext(container)
      for note in notes { try context.insert(note) }
      try context.save()
    }

    private static func delete(_ id: Int, in container: ModelContainer) throws {
      let context = ModelContext(container)
      let note = try #require(try context.model(for: id, as: SyncNote.self))
      try context.delete(note)
      try context.save()
    }

    /// A second server process's logic on the same database, which compacts.
    private static func service(_ world: SyncSpaceWorld) throws -> SyncService {
      try SyncService(store: PostgresLocation(world.database), tokens: world.tokensFile)
    }

    private static func logged(_ world: SyncSpaceWorld) throws -> [Int64] {
      try world.connection().query(
        "SELECT position FROM kura_sync_log WHERE space = 'family' ORDER BY position"
      ) { $0.int64(at: 0) }
    }

    /// How many logged saves hold a delete.
    private static func loggedDeletes(_ world: SyncSpaceWorld) throws -> Int64 {
      try world.connection().queryFirst(
        "SELECT count(*) FROM kura_sync_log WHERE space = 'family' "
          + "AND changes LIKE '%\"deleted\":true%'"
      ) { $0.int64(at: 0) } ?? -1
    }

    private static func foldedIDs(_ world: SyncSpaceWorld) throws -> [String] {
      try world.connection().query(
        "SELECT id FROM kura_sync_rows WHERE space = 'family' ORDER BY id"
      ) { $0.string(at: 0) }
    }

    @Test func aTombstoneIsCompactedOnlyOnceEveryReplicaPulledPastIt() async throws {
      let world = try SyncSpaceWorld("sync-tombstones")
      let (a, syncA) = try world.replica("a", for: SyncNote.self)
      let (b, syncB) = try world.replica("b", for: SyncNote.self)
      let (c, syncCBefore) = try world.replica("c", for: SyncNote.self)
      defer { for sync in [syncA, syncB, syncCBefore] { sync.stop() } }
      try Self.save([SyncNote(id: 1, text: "one"), SyncNote(id: 2, text: "two")], in: a)
      for sync in [syncA, syncB, syncCBefore] { try await sync.syncNow() }
      // C goes away until the delete is logged: its engine ends (the exchange its own pull
      // woke, which could pull the delete whenever a loaded machine runs it, included).
      await syncCBefore.stopAndWait()
      // A deletes 1; B, not knowing, edits it offline.
      try Self.delete(1, in: a)
      try Self.save([SyncNote(id: 1, text: "one, edited")], in: b)
      try await syncA.syncNow()
      try await syncB.syncNow()
      let service = try Self.service(world)
      // C has not pulled the delete: the delete is not compacted (the first save may be).
      let early = try service.compact(space: "family", retireAfter: .seconds(86_400))
      #expect(early.droppedTombstones == 0)
      #expect(try Self.loggedDeletes(world) == 1)
      let syncC = try SyncEngine(container: c)
      defer { syncC.stop() }
      // Every replica pulls past the delete (and B's late edit), then syncs once more with an
      // empty outbox: now the tombstone goes, and the log with it.
      for sync in [syncC, syncA, syncB, syncC, syncA, syncB] { try await sync.syncNow() }
      let compaction = try service.compact(space: "family", retireAfter: .seconds(86_400))
      #expect(compaction.droppedTombstones == 1)
      #expect(early.foldedSaves + compaction.foldedSaves == 3)
      #expect(compaction.retiredReplicas == 0)
      #expect(try Self.logged(world).isEmpty)
      #expect(try Self.foldedIDs(world) == ["2"])
      // The deleted note is gone everywhere, and stays gone for a replica joining now (from
      // the snapshot) and for every replica after more syncs.
      let (d, syncD) = try world.replica("d", for: SyncNote.self)
      defer { syncD.stop() }
      try await syncD.syncNow()
      for sync in [syncA, syncB, syncC] { try await sync.syncNow() }
      for container in [a, b, c, d] {
        #expect(try Self.notes(container) == [SyncNote(id: 2, text: "two")])
      }
    }

    @Test func aRetiredReplicaIsRebasedFromTheSnapshotAndKeepsItsOfflineEdits() async throws {
      let world = try SyncSpaceWorld("sync-rebase")
      let (a, syncA) = try world.replica("a", for: SyncNote.self)
      let (b, syncB) = try world.replica("b", for: SyncNote.self)
      let (c, syncCBefore) = try world.replica("c", for: SyncNote.self)
      defer { for sync in [syncA, syncB] { sync.stop() } }
      try Self.save(
        [SyncNote(id: 1, text: "one"), SyncNote(id: 2, text: "two"), SyncNote(id: 3, text: "3")],
        in: a)
      for sync in [syncA, syncB, syncCBefore] { try await sync.syncNow() }
      // C goes away (its engine stops, and ends any exchange under way, so none sends what C
      // saves next) with edits of its own: it edits 1 and 2, and adds 4.
      await syncCBefore.stopAndWait()
      try Self.save(
        [
          SyncNote(id: 1, text: "one by C"), SyncNote(id: 2, text: "two by C"),
          SyncNote(id: 4, text: "four by C"),
        ], in: c)
      // Meanwhile A deletes 1 and edits 3; A and B sync until both are settled.
      try Self.delete(1, in: a)
      try Self.save([SyncNote(id: 3, text: "three")], in: a)
      for sync in [syncA, syncB, syncA, syncB] { try await sync.syncNow() }
      // C was last seen 31 days ago: a 30-day window retires it and drops the tombstone.
      let replicaC = SyncStamp.hex(try c.pool.read { try SyncLocalStore.replica($0) })
      try world.connection().run(
        "UPDATE kura_sync_replicas SET seen_at = now() - interval '31 days' WHERE replica = ?",
        [.text(replicaC)])
      let compaction = try Self.service(world).compact(
        space: "family", retireAfter: .seconds(30 * 86_400))
      #expect(compaction.retiredReplicas == 1)
      #expect(compaction.droppedTombstones == 1)
      #expect(try Self.foldedIDs(world) == ["2", "3"])
      // C comes back: it is rebased from the snapshot, keeps its outbox and sends it on top.
      let syncC = try SyncEngine(container: c)
      defer { syncC.stop() }
      try await syncC.syncNow()
      for sync in [syncA, syncB] { try await sync.syncNow() }
      let expected = [
        SyncNote(id: 2, text: "two by C"), SyncNote(id: 3, text: "three"),
        SyncNote(id: 4, text: "four by C"),
      ]
      for container in [a, b, c] { #expect(try Self.notes(container) == expected) }
      // C's edit of the note deleted meanwhile is listed as lost to the delete, not sent.
      let lost = try syncC.conflicts()
      #expect(lost.map(\.id) == ["1"])
      #expect(lost.map(\.lostValue) == [#"{"text":"one by C"}"#])
      #expect(syncC.status.pending == 0)
      // A replica joining now gets the same from the snapshot and the log.
      let (d, syncD) = try world.replica("d", for: SyncNote.self)
      defer { syncD.stop() }
      try await syncD.syncNow()
      #expect(try Self.notes(d) == expected)
    }
  }
#endif
