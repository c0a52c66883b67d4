import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Synchronization
import Testing

@testable import Kura

@Suite("Migrations")
struct MigrationTests {
  @Test(arguments: TestEngine.enabled)
  func automaticMigrationKeepsEveryRowInOneStep(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("trips.store"))
    let (kyoto, nara, deer) = try writeV1Store(store)
    #expect(try store.schemaVersion() == 1)
    // Without a declared step, dropping `notes` (which holds values) is refused untouched.
    let before = try store.contents()
    #expect {
      _ = try ModelContainer(
        for: [TripsV2.Trip.self, TripsV2.Activity.self], configurations: store.configuration)
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .schemaMismatch && error.model == "Trip" && error.column == "notes"
    }
    #expect(try store.contents() == before)
    let reports = Mutex<[MigrationProgress]>([])
    let container = try ModelContainer(
      for: [TripsV2.Trip.self, TripsV2.Activity.self], migrationPlan: TripsV2Plan.self,
      configurations: store.configuration
    ) { progress in reports.withLock { $0.append(progress) } }
    let context = ModelContext(container)
    let trips = try context.fetch(FetchDescriptor<TripsV2.Trip>(sortBy: [SortDescriptor(\.title)]))
    #expect(
      trips == [
        TripsV2.Trip(
          id: kyoto.id, title: "Kyoto", days: 4, favorite: 1, budget: 900, rating: 3, cover: nil),
        TripsV2.Trip(
          id: nara.id, title: "Nara Park", days: 1, favorite: 0, budget: nil, rating: 3, cover: nil),
      ])
    #expect(
      try context.fetch(FetchDescriptor<TripsV2.Activity>()) == [
        TripsV2.Activity(id: deer.id, name: "Feed deer", trip: nara.id)
      ])
    #expect(try store.schemaVersion() == 2)
    let steps = reports.withLock { $0 }
    #expect(
      steps.first
        == MigrationProgress(
          model: "Trip",
          step: "renaming name to title, widening days to real, widening favorite to integer, "
            + "adding rating, adding cover, removing notes",
          completedRows: 0, totalRows: 2))
    #expect(steps.contains { $0.model == "Trip" && $0.completedRows == 2 && $0.totalRows == 2 })
    #expect(steps.contains { $0.model == "Activity" && $0.step == "declaring references" })
    // The reference is now a foreign key with its delete rule.
    try context.delete(trips[1])
    let changes = try context.save()
    #expect(changes.deleted(TripsV2.Activity.self) == [deer.id])
    // Opening again changes nothing.
    _ = try ModelContainer(
      for: [TripsV2.Trip.self, TripsV2.Activity.self], migrationPlan: TripsV2Plan.self,
      configurations: store.configuration
    ) { _ in Issue.record("migrated twice") }
    #expect(try store.schemaVersion() == 2)
  }

  @Test(arguments: TestEngine.enabled)
  func addedColumnsOnlyUseAlterTable(_ engine: TestEngine) throws {
    struct Plain: PersistentModel, Equatable {
      var id: Int
      var name: String
      static var schemaName: String { "Plain" }
    }
    struct Wider: PersistentModel, Equatable {
      var id: Int
      var name: String
      var score: Double
      var label: String?
      static var schemaName: String { "Plain" }
      static var schema: Schema<Wider> { Schema(.defaultValue(\.score, 1.5)) }
    }
    let store = try freshStore(engine, sqlite: .file("plain.store"))
    do {
      let context = ModelContext(
        try ModelContainer(for: Plain.self, configurations: store.configuration))
      for id in 1...3 { try context.insert(Plain(id: id, name: "n\(id)")) }
      try context.save()
    }
    let reports = Mutex<[MigrationProgress]>([])
    let context = ModelContext(
      try ModelContainer(for: [Wider.self], configurations: store.configuration) { progress in
        reports.withLock { $0.append(progress) }
      })
    #expect(
      try context.fetch(FetchDescriptor<Wider>(sortBy: [SortDescriptor(\.id)])) == [
        Wider(id: 1, name: "n1", score: 1.5), Wider(id: 2, name: "n2", score: 1.5),
        Wider(id: 3, name: "n3", score: 1.5),
      ])
    #expect(
      reports.withLock { $0 } == [
        MigrationProgress(
          model: "Wider", step: "adding score, adding label", completedRows: 3, totalRows: 3)
      ])
  }

  @Test(arguments: TestEngine.enabled)
  func newRequiredPropertyWithoutDefaultIsRefusedBeforeAnythingChanges(_ engine: TestEngine) throws
  {
    let store = try freshStore(engine, sqlite: .file("trips.store"))
    _ = try writeV1Store(store)
    let before = try store.contents()
    #expect {
      _ = try ModelContainer(
        for: Refused.NewRequired.self, TripsV1.Activity.self, configurations: store.configuration)
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .migrationRefused && error.model == "NewRequired"
        && error.property == "country"
        && error.message
          == "Can't migrate store `\(store.name)`: `NewRequired.country` is new, is not optional "
          + "and has no default value, so the stored rows would have no value for it. Nothing "
          + "was changed. Make the change one Kura migrates by itself (an optional property, a "
          + "`.defaultValue(\\.country, …)` or `.renamed(\\.country, from: …)` declaration in "
          + "`NewRequired.schema`), or declare a custom stage: "
          + "`MigrationStage.custom(fromVersion:toVersion:migrate:)` in a `SchemaMigrationPlan` "
          + "given to `ModelContainer(for:migrationPlan:configurations:)`."
    }
    #expect(try store.contents() == before)
  }

  @Test(arguments: TestEngine.enabled)
  func narrowedTypeIsRefused(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("trips.store"))
    _ = try writeV1Store(store)
    let before = try store.contents()
    #expect {
      _ = try ModelContainer(for: Refused.Narrowed.self, configurations: store.configuration)
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .migrationRefused && error.property == "name"
        && error.message.hasPrefix(
          "Can't migrate store `\(store.name)`: `Narrowed.name` changed from text to integer, "
            + "which is not a widening, so stored values could be lost. Nothing was changed.")
    }
    #expect(try store.contents() == before)
  }

  @Test(arguments: TestEngine.enabled)
  func optionalMadeRequiredIsRefusedWhileRowsHaveNoValue(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("trips.store"))
    let (_, nara, _) = try writeV1Store(store)
    let before = try store.contents()
    #expect {
      _ = try ModelContainer(
        for: Refused.NoLongerOptional.self, configurations: store.configuration)
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .migrationRefused && error.property == "budget"
        && error.message.hasPrefix(
          "Can't migrate store `\(store.name)`: `NoLongerOptional.budget` is no longer optional "
            + "but 1 stored row has no value for it (declare `.defaultValue` for them). Nothing "
            + "was changed.")
    }
    #expect(try store.contents() == before)
    // Once the row has a value, the same change migrates.
    do {
      let context = ModelContext(
        try ModelContainer(for: TripsV1.Trip.self, configurations: store.configuration))
      var trip = try #require(try context.model(for: nara.id, as: TripsV1.Trip.self))
      trip.budget = 50
      try context.insert(trip)
      try context.save()
    }
    let context = ModelContext(
      try ModelContainer(for: Refused.NoLongerOptional.self, configurations: store.configuration))
    #expect(try context.model(for: nara.id, as: Refused.NoLongerOptional.self)?.budget == 50)
  }

  @Test(arguments: TestEngine.enabled)
  func refusalInOneModelLeavesTheOtherModelsUntouched(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("trips.store"))
    let (kyoto, nara, deer) = try writeV1Store(store)
    let before = try store.contents()
    let history = try ModelContainer(
      for: TripsV1.Trip.self, TripsV1.Activity.self, configurations: store.readOnlyConfiguration
    ).history(since: .start)
    // `Activity` alone would migrate (it gains a foreign key); `NewRequired` is refused.
    expectStoreError(.migrationRefused) {
      _ = try ModelContainer(
        for: TripsV2.Activity.self, Refused.NewRequired.self, configurations: store.configuration)
    }
    #expect(try store.contents() == before)
    // The old models still open it without any migration, with their rows and history.
    let container = try ModelContainer(
      for: TripsV1.Trip.self, TripsV1.Activity.self, configurations: store.readOnlyConfiguration)
    let context = ModelContext(container)
    #expect(
      Set(try context.fetch(FetchDescriptor<TripsV1.Trip>()).map(\.id)) == [kyoto.id, nara.id])
    #expect(try context.fetch(FetchDescriptor<TripsV1.Activity>()) == [deer])
    #expect(try container.history(since: .start).map(\.token) == history.map(\.token))
    #expect(try store.schemaVersion() == 1)
  }

  @Test(arguments: TestEngine.enabled)
  func customStageRunsItsCodeAndRecordsTheVersion(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("trips.store"))
    let (kyoto, nara, deer) = try writeV1Store(store)
    let container = try ModelContainer(
      for: [TripsV3.Trip.self, TripsV2.Activity.self], migrationPlan: TripsPlan.self,
      configurations: store.configuration)
    let context = ModelContext(container)
    let trips = try context.fetch(FetchDescriptor<TripsV3.Trip>(sortBy: [SortDescriptor(\.title)]))
    #expect(trips.map(\.slug) == ["kyoto", "nara-park"])
    #expect(trips.map(\.id) == [kyoto.id, nara.id])
    #expect(trips.map(\.rating) == [3, 3])
    #expect(try context.fetch(FetchDescriptor<TripsV2.Activity>()).map(\.id) == [deer.id])
    #expect(try store.schemaVersion() == 3)
  }

  @Test(arguments: TestEngine.enabled)
  func failingCustomStageChangesNothing(_ engine: TestEngine) throws {
    enum FailingPlan: SchemaMigrationPlan {
      struct Nope: Error, CustomStringConvertible { var description: String { "no slugs today" } }
      static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self, TripsV3.self] }
      static var stages: [MigrationStage] {
        [
          .lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self),
          .custom(fromVersion: TripsV2.self, toVersion: TripsV3.self) { _ in throw Nope() },
        ]
      }
    }
    let store = try freshStore(engine, sqlite: .file("trips.store"))
    _ = try writeV1Store(store)
    let before = try store.contents()
    #expect {
      _ = try ModelContainer(
        for: [TripsV3.Trip.self, TripsV2.Activity.self], migrationPlan: FailingPlan.self,
        configurations: store.configuration)
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .migrationFailed
        && error.message
          == "Can't migrate store `\(store.name)` from version 2 to 3: the custom stage failed "
          + "(no slugs today). Nothing was changed; fix the stage and open the store again."
    }
    #expect(try store.contents() == before)
    #expect(try store.schemaVersion() == 1)
  }

  @Test(arguments: TestEngine.enabled)
  func newStoreWithAPlanStartsAtTheLatestVersion(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("new.store"))
    _ = try ModelContainer(
      for: [TripsV3.Trip.self, TripsV2.Activity.self], migrationPlan: TripsPlan.self,
      configurations: store.configuration)
    #expect(try store.schemaVersion() == 3)
  }

  @Test(arguments: TestEngine.enabled)
  func requiredPropertyMadeOptionalKeepsItsValues(_ engine: TestEngine) throws {
    struct Before: PersistentModel {
      var id: Int
      var name: String
      static var schemaName: String { "Person" }
    }
    struct After: PersistentModel, Equatable {
      var id: Int
      var name: String?
      static var schemaName: String { "Person" }
    }
    let store = try freshStore(engine, sqlite: .file("people.store"))
    do {
      let context = ModelContext(
        try ModelContainer(for: Before.self, configurations: store.configuration))
      try context.insert(Before(id: 1, name: "Ginny"))
      try context.save()
    }
    let context = ModelContext(
      try ModelContainer(for: After.self, configurations: store.configuration))
    try context.insert(After(id: 2, name: nil))
    try context.save()
    #expect(
      try context.fetch(FetchDescriptor<After>(sortBy: [SortDescriptor(\.id)]))
        == [After(id: 1, name: "Ginny"), After(id: 2, name: nil)])
  }

  /// On SQLite, a refused or failed migration leaves the file byte for byte as it was.
  @Test func refusedMigrationsLeaveTheSQLiteFileByteIdentical() throws {
    enum FailingPlan: SchemaMigrationPlan {
      struct Nope: Error {}
      static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self, TripsV3.self] }
      static var stages: [MigrationStage] {
        [
          .lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self),
          .custom(fromVersion: TripsV2.self, toVersion: TripsV3.self) { _ in throw Nope() },
        ]
      }
    }
    let folder = TemporaryDirectory()
    let url = folder.file("trips.store")
    _ = try writeV1Store(url)
    let before = try Data(contentsOf: url)
    let refusals: [(StoreError.Code, () throws -> Void)] = [
      (
        .schemaMismatch,
        {
          _ = try ModelContainer(
            for: [TripsV2.Trip.self, TripsV2.Activity.self], configurations: .url(url))
        }
      ),
      (
        .migrationRefused,
        {
          _ = try ModelContainer(
            for: Refused.NewRequired.self, TripsV1.Activity.self, configurations: .url(url))
        }
      ),
      (
        .migrationRefused,
        { _ = try ModelContainer(for: Refused.Narrowed.self, configurations: .url(url)) }
      ),
      (
        .migrationRefused,
        { _ = try ModelContainer(for: Refused.NoLongerOptional.self, configurations: .url(url)) }
      ),
      (
        .migrationRefused,
        {
          _ = try ModelContainer(
            for: TripsV2.Activity.self, Refused.NewRequired.self, configurations: .url(url))
        }
      ),
      (
        .migrationFailed,
        {
          _ = try ModelContainer(
            for: [TripsV3.Trip.self, TripsV2.Activity.self], migrationPlan: FailingPlan.self,
            configurations: .url(url))
        }
      ),
    ]
    for (number, (code, refusal)) in refusals.enumerated() {
      expectStoreError(code, "refusal \(number)") { try refusal() }
      #expect(try Data(contentsOf: url) == before, "refusal \(number)")
    }
  }
}
