import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import KuraSyncServer
import KuraTestSupport
import Testing

@testable import Kura

/// A model of the local bookkeeping tests (and of SyncOutboxTests).
struct LocalTrip: PersistentModel, Equatable {
  var id: Int
  var name: String
  var budget: Int
}

/// The sync bookkeeping in a replica's SQLite store, without a server: what saves record and
/// how pulled saves are merged into it.
@Suite("Sync local store")
struct SyncLocalStoreTests {
  static func container(_ directory: TemporaryDirectory) throws -> ModelContainer {
    var configuration = ModelConfiguration.url(directory.file("replica.store"))
    configuration.sync = SyncSettings(
      server: directory.url, space: "family", token: "not used: nothing is sent")
    return try ModelContainer(for: LocalTrip.self, configurations: configuration)
  }

  /// The outbox, after the saves the history holds were recorded (as a push records them
  /// first).
  static func outbox(_ container: ModelContainer) throws -> [SyncSave] {
    try container.pool.write { db in
      try SyncLocalStore.recordLocalSaves(container: container, db: db)
      return try SyncLocalStore.outbox(limit: 100, db)
    }
  }

  @Test func aSaveStampsOnlyWhatChangedAndAnUnchangedSaveRecordsNothing() throws {
    let directory = TemporaryDirectory()
    let container = try Self.container(directory)
    let context = ModelContext(container)
    // Each save recorded before the next (as when each is pushed before the next is made).
    try context.insert(LocalTrip(id: 1, name: "Kyoto", budget: 900))
    try context.save()
    _ = try Self.outbox(container)
    try context.insert(LocalTrip(id: 1, name: "Kyoto", budget: 700))
    try context.save()
    _ = try Self.outbox(container)
    try context.insert(LocalTrip(id: 1, name: "Kyoto", budget: 700))
    try context.save()
    _ = try Self.outbox(container)
    try context.delete(LocalTrip(id: 1, name: "Kyoto", budget: 700))
    try context.save()
    _ = try Self.outbox(container)
    try context.insert(LocalTrip(id: 1, name: "Again", budget: 1))
    try context.save()
    let saves = try Self.outbox(container)
    #expect(saves.map(\.sequence) == [1, 2, 3, 4])
    let described = saves.map { save in
      save.changes.map { change in
        change.deleted
          ? "delete#\(change.incarnation)"
          : "\(change.property ?? "")#\(change.incarnation)"
      }
    }
    #expect(
      described == [
        ["budget#1", "name#1"], ["budget#1"], ["delete#1"], ["budget#2", "name#2"],
      ])
    // Stamps only go up, one per save.
    let stamps = saves.map { $0.changes[0].stamp }
    #expect(stamps == stamps.sorted() && Set(stamps).count == 4)
  }

  /// A save with sync on writes nothing to the sync tables: it is recorded from the history
  /// later, each id with its last values at the stamp of the last save that touched it, a model
  /// made and deleted in between not at all, and a delete then a new insert of an id as a new
  /// incarnation.
  @Test func savesAreRecordedFromTheHistoryEachIdAtItsLastSave() throws {
    let directory = TemporaryDirectory()
    let container = try Self.container(directory)
    let context = ModelContext(container)
    try context.insert(LocalTrip(id: 1, name: "Kyoto", budget: 900))
    try context.insert(LocalTrip(id: 2, name: "Nara", budget: 100))
    try context.save()
    _ = try Self.outbox(container)
    try context.insert(LocalTrip(id: 1, name: "Kyoto", budget: 700))
    try context.save()
    try context.insert(LocalTrip(id: 3, name: "Gone", budget: 1))
    try context.save()
    try context.delete(LocalTrip(id: 3, name: "Gone", budget: 1))
    try context.delete(LocalTrip(id: 2, name: "Nara", budget: 100))
    try context.save()
    try context.insert(LocalTrip(id: 2, name: "Nara again", budget: 5))
    try context.save()
    try context.insert(LocalTrip(id: 1, name: "Kyoto", budget: 650))
    try context.save()
    // Five saves waiting, none of them in the sync tables yet.
    let (rows, pending) = try container.pool.read {
      (
        try $0.queryFirst("SELECT count(*) FROM kura_sync_outbox") { $0.int64(at: 0) },
        try SyncLocalStore.pendingCount($0)
      )
    }
    #expect(rows == 1)
    #expect(pending == 6)
    let saves = try Self.outbox(container)
    let described = saves.dropFirst().map { save in
      save.changes.map { change in
        change.deleted
          ? "\(change.id) delete#\(change.incarnation)"
          : "\(change.id) \(change.property ?? "")#\(change.incarnation)="
            + (change.value.map { "\($0)" } ?? "none")
      }
    }
    #expect(
      described == [
        ["2 delete#1"],
        ["2 budget#2=5", "2 name#2='Nara again'"],
        ["1 budget#1=650"],
      ], "\(described)")
    let stamps = saves.map { $0.changes[0].stamp }
    #expect(stamps == stamps.sorted() && Set(stamps).count == stamps.count)
    #expect(try container.pool.read { try SyncLocalStore.pendingCount($0) } == 4)
  }

  /// A synced container's saves keep the history sync has not recorded, whatever the
  /// retention says; once recorded, it is trimmed as usual. A container without sync trims it
  /// all the same: then every row is compared, and a row made meanwhile is still sent.
  @Test func historyNotRecordedYetIsKeptAndARowWhoseHistoryIsGoneIsStillSent() throws {
    let directory = TemporaryDirectory()
    var configuration = ModelConfiguration.url(directory.file("replica.store"))
    configuration.sync = SyncSettings(
      server: directory.url, space: "family", token: "not used: nothing is sent")
    configuration.historyRetention = HistoryRetention(maximumAge: nil, maximumCount: 2)
    let container = try ModelContainer(for: LocalTrip.self, configurations: configuration)
    let context = ModelContext(container)
    func historyRows(_ container: ModelContainer) throws -> Int64 {
      try container.pool.read {
        try $0.queryFirst("SELECT count(*) FROM kura_history") { $0.int64(at: 0) } ?? -1
      }
    }
    for id in 1...6 {
      try context.insert(LocalTrip(id: id, name: "trip \(id)", budget: id))
      try context.save()
    }
    #expect(try historyRows(container) == 6)
    #expect(try Self.outbox(container).map(\.sequence) == Array(1...6))
    try context.insert(LocalTrip(id: 7, name: "trip 7", budget: 7))
    try context.save()
    #expect(try historyRows(container) <= 2)
    _ = try Self.outbox(container)
    // Without sync, the retention alone: the history of a new row and an edit is trimmed.
    var off = ModelConfiguration.url(directory.file("replica.store"))
    off.historyRetention = HistoryRetention(maximumAge: nil, maximumCount: 1)
    let plain = ModelContext(try ModelContainer(for: LocalTrip.self, configurations: off))
    try plain.insert(LocalTrip(id: 8, name: "made without sync", budget: 8))
    try plain.save()
    for budget in 100..<103 {
      try plain.insert(LocalTrip(id: 1, name: "trip 1", budget: budget))
      try plain.save()
    }
    let saves = try Self.outbox(container).dropFirst(7)
    let sent = Set(saves.flatMap(\.changes).map { "\($0.id) \($0.property ?? "deleted")" })
    #expect(sent == ["1 budget", "8 budget", "8 name"], "\(sent)")
  }

  /// A pulled value with a later stamp beats a local value the server had not acknowledged:
  /// the row takes it and the lost value is listed; an older pulled value loses; a property
  /// and a model this app doesn't have are kept in the bookkeeping, not dropped.
  @Test func aLaterPulledValueWinsAndTheLostLocalValueIsListed() throws {
    let directory = TemporaryDirectory()
    let container = try Self.container(directory)
    let sync = try SyncEngine(container: container)
    defer { sync.stop() }
    let context = ModelContext(container)
    try context.insert(LocalTrip(id: 1, name: "Kyoto", budget: 900))
    try context.save()
    let local = try #require(Self.outbox(container).first?.changes.first?.stamp)
    let other = UUID()
    let later = SyncStamp(wall: local.wall + 60_000, counter: 0, replica: other)
    let earlier = SyncStamp(wall: local.wall - 60_000, counter: 0, replica: other)
    let pulled = SyncLoggedSave(
      position: 1, replica: SyncStamp.hex(other), sequence: 1,
      changes: [
        .set(
          "LocalTrip", id: "1", incarnation: 1, property: "name", to: .text("Nara"), stamp: later),
        .set(
          "LocalTrip", id: "1", incarnation: 1, property: "budget", to: .integer(5), stamp: earlier),
        .set(
          "LocalTrip", id: "1", incarnation: 1, property: "rating", to: .real(4.5), stamp: later),
        .set(
          "Hotel", id: "h1", incarnation: 1, property: "name", to: .text("Ryokan"), stamp: later),
      ])
    try container.pool.write { db in
      _ = try SyncLocalStore.applyPulled([pulled], container: container, db: db)
    }
    #expect(
      try ModelContext(container).fetch(FetchDescriptor<LocalTrip>())
        == [LocalTrip(id: 1, name: "Nara", budget: 900)])
    let conflicts = try sync.conflicts()
    #expect(conflicts.map(\.property) == ["name"])
    #expect(conflicts.map(\.lostValue) == [#"{"text":"Kyoto"}"#])
    let kept = try container.pool.read { db in
      (
        try SyncLocalStore.record(.init(model: "LocalTrip", id: "1"), db).properties["rating"],
        try SyncLocalStore.record(.init(model: "Hotel", id: "h1"), db).properties["name"]
      )
    }
    #expect(kept.0?.value == .real(4.5))
    #expect(kept.1?.value == .text("Ryokan"))
    // Pulled changes are not local edits: the outbox still holds only the local save.
    #expect(try Self.outbox(container).map(\.sequence) == [1])
    #expect(try container.pool.read { try SyncLocalStore.cursor($0) } == 1)
    try sync.clearConflicts()
    #expect(try sync.conflicts().isEmpty)
  }
}
