import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Delete rules")
struct DeleteRuleTests {
  @Test(arguments: TestEngine.enabled)
  func cascadeDeletesActivitiesAndTheirStepsOnSave(_ engine: TestEngine) throws {
    let store = try relationStore(engine)
    let context = ModelContext(try relationContainer(store))
    let kyoto = RTrip(name: "Kyoto")
    let nara = RTrip(name: "Nara")
    let temple = RActivity(name: "Temple", trip: kyoto.id)
    let tea = RActivity(name: "Tea", trip: kyoto.id)
    let deer = RActivity(name: "Deer", trip: nara.id)
    for model in [kyoto, nara] { try context.insert(model) }
    for model in [temple, tea, deer] { try context.insert(model) }
    for (number, activity) in [temple, temple, tea, deer].enumerated() {
      try context.insert(RStep(id: number, activity: activity.id))
    }
    try context.save()
    try context.delete(kyoto)
    #expect(try context.fetchCount(FetchDescriptor<RActivity>()) == 3)  // not saved yet
    let changes = try context.save()
    #expect(try context.fetch(FetchDescriptor<RTrip>()) == [nara])
    #expect(try context.fetch(FetchDescriptor<RActivity>()) == [deer])
    #expect(try context.fetch(FetchDescriptor<RStep>()).map(\.id) == [3])
    #expect(changes.deleted(RTrip.self) == [kyoto.id])
    #expect(Set(changes.deleted(RActivity.self)) == [temple.id, tea.id])
    #expect(Set(changes.deleted(RStep.self)) == [0, 1, 2])
  }

  @Test(arguments: TestEngine.enabled)
  func nullifyClearsTheReference(_ engine: TestEngine) throws {
    let store = try relationStore(engine)
    let context = ModelContext(try relationContainer(store))
    let kyoto = RTrip(name: "Kyoto")
    let note = RNote(text: "bring yen", trip: kyoto.id)
    let loose = RNote(text: "loose", trip: nil)
    try context.insert(kyoto)
    try context.insert(note)
    try context.insert(loose)
    try context.save()
    try context.delete(kyoto)
    let changes = try context.save()
    #expect(try context.model(for: note.id, as: RNote.self)?.trip == nil)
    #expect(try context.fetchCount(FetchDescriptor<RNote>()) == 2)
    #expect(changes.updated(RNote.self) == [note.id])
  }

  @Test(arguments: TestEngine.enabled)
  func denyRefusesTheSaveNamingTheBlockingRows(_ engine: TestEngine) throws {
    let store = try relationStore(engine)
    let context = ModelContext(try relationContainer(store))
    let kyoto = RTrip(name: "Kyoto")
    try context.insert(kyoto)
    try context.insert(RBooking(id: "ryokan", trip: kyoto.id))
    try context.insert(RBooking(id: "shinkansen", trip: kyoto.id))
    try context.save()
    try context.delete(kyoto)
    #expect {
      try context.save()
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .deleteDenied && error.model == "RBooking" && error.property == "trip"
        && error.message
          == "Can't delete `RTrip` `\(kyoto.id.uuidString)`: 2 `RBooking` rows refer to it "
          + "through `trip`, whose delete rule is `.deny` (`ryokan`, `shinkansen`). Delete or "
          + "reassign them first; nothing was saved."
    }
    #expect(context.hasChanges)
    context.rollback()
    #expect(try context.fetch(FetchDescriptor<RTrip>()) == [kyoto])
    // Deleting the bookings in the same save lets the trip go.
    try context.delete(model: RBooking.self)
    try context.delete(kyoto)
    try context.save()
    #expect(try context.fetchCount(FetchDescriptor<RTrip>()) == 0)
  }

  @Test(arguments: TestEngine.enabled)
  func noActionLeavesTheReferencePointingAtNothing(_ engine: TestEngine) throws {
    let store = try relationStore(engine)
    let context = ModelContext(try relationContainer(store))
    let kyoto = RTrip(name: "Kyoto")
    let photo = RPhoto(trip: kyoto.id)
    try context.insert(kyoto)
    try context.insert(photo)
    try context.save()
    try context.delete(kyoto)
    let changes = try context.save()
    #expect(try context.fetch(FetchDescriptor<RPhoto>()) == [photo])
    #expect(changes.changes.keys.sorted() == ["Trip"])
  }

  @Test(arguments: TestEngine.enabled)
  func foreignKeyRefusesAReferenceToAMissingModel(_ engine: TestEngine) throws {
    let store = try relationStore(engine)
    let context = ModelContext(try relationContainer(store))
    try context.insert(RActivity(name: "Orphan", trip: UUID()))
    #expect {
      try context.save()
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .danglingReference && error.model == "RActivity"
        && error.property == "trip"
    }
  }

  /// The reference is an SQLite foreign key with its delete rule.
  @Test func referenceIsAnSQLiteForeignKeyWithItsDeleteRule() throws {
    let store = try relationStore(.sqlite)
    _ = try relationContainer(store)
    let schema = try Connection(path: store.argument).query(
      "SELECT \"from\", \"table\", on_delete FROM pragma_foreign_key_list('Activity')"
    ) { "\($0.string(at: 0)) \($0.string(at: 1)) \($0.string(at: 2))" }
    #expect(schema == ["trip Trip CASCADE"])
  }

  @Test func sqlDeleteOfATripAlsoCascadesThroughTheForeignKey() throws {
    let store = try relationStore(.sqlite)
    let container = try relationContainer(store)
    let context = ModelContext(container)
    let kyoto = RTrip(name: "Kyoto")
    try context.insert(kyoto)
    try context.insert(RActivity(name: "Temple", trip: kyoto.id))
    try context.save()
    try container.pool.write { db in try db.run("DELETE FROM Trip") }
    #expect(try context.fetchCount(FetchDescriptor<RActivity>()) == 0)
  }

  @Test(arguments: TestEngine.enabled)
  func relatedFetchesTheInverseToManySide(_ engine: TestEngine) throws {
    let store = try relationStore(engine)
    let context = ModelContext(try relationContainer(store))
    let kyoto = RTrip(name: "Kyoto")
    let nara = RTrip(name: "Nara")
    try context.insert(kyoto)
    try context.insert(nara)
    try context.insert(RActivity(name: "Temple", trip: kyoto.id))
    try context.insert(RActivity(name: "Deer", trip: nara.id))
    try context.insert(RActivity(name: "Tea", trip: kyoto.id))
    try context.insert(RNote(text: "yen", trip: kyoto.id))
    try context.save()
    let activities = try context.related(
      RActivity.self, of: kyoto, via: \.trip, sortBy: [SortDescriptor(\.name)])
    #expect(activities.map(\.name) == ["Tea", "Temple"])
    #expect(try context.related(RNote.self, of: kyoto, via: \.trip).map(\.text) == ["yen"])
    #expect(try context.related(RNote.self, of: nara, via: \.trip).isEmpty)
    let descriptor = FetchDescriptor<RActivity>.related(to: nara, via: \.trip)
    #expect(try context.fetch(descriptor).map(\.name) == ["Deer"])
  }

  @Test(arguments: TestEngine.enabled)
  func nullifyOnANonOptionalReferenceIsAnInvalidModel(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    struct Bad: PersistentModel {
      var id = UUID()
      var trip: RTrip.ID
      static var schema: Schema<Bad> {
        Schema(.reference(\.trip, to: RTrip.self, deleteRule: .nullify))
      }
    }
    #expect {
      _ = try ModelContainer(for: RTrip.self, Bad.self, configurations: store.configuration)
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .invalidModel && error.model == "Bad" && error.property == "trip"
        && error.message
          == "Can't nullify `Bad.trip` when a `RTrip` is deleted: the property is not optional. "
          + "Make it `RTrip.ID?`, or choose the delete rule `.cascade`, `.deny` or `.noAction`."
    }
    #expect {
      _ = try ModelContainer(for: RActivity.self, configurations: store.configuration)
    } throws: { error in
      (error as? StoreError)?.message
        == "Can't relate `RActivity.trip` to `RTrip`: `RTrip` is not one of the container's "
        + "models. Add `RTrip.self` to `ModelContainer(for:)`."
    }
  }
}
