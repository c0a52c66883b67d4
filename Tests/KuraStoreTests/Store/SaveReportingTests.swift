import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

private struct Account: PersistentModel, Equatable {
  var id = UUID()
  var email: String
  var name: String
  static var schema: Schema<Account> { Schema(.unique(\.email)) }
}

private struct Counted: PersistentModel, Equatable {
  var id: Int
  var code: String
  var value: Int
  static var schema: Schema<Counted> { Schema(.unique(\.code)) }
}

@Suite("Save reporting")
struct SaveReportingTests {
  @Test(arguments: TestEngine.enabled)
  func uniqueUpsertReportsTheStoredID(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("a.store"))
    let context = ModelContext(
      try ModelContainer(for: Account.self, Counted.self, configurations: store.configuration))
    let stored = Account(email: "ann@example.com", name: "Ann")
    try context.insert(stored)
    try context.save()
    let newcomer = Account(email: "ann@example.com", name: "Ann Lee")
    try context.insert(newcomer)
    let changes = try context.save()
    #expect(changes.updated(Account.self) == [stored.id])
    #expect(changes.inserted(Account.self) == [])
    #expect(try context.model(for: stored.id, as: Account.self)?.name == "Ann Lee")
    #expect(try context.model(for: newcomer.id, as: Account.self) == nil)
    let history = try context.container.history(since: .start)
    #expect(history.last?.updated(Account.self) == [stored.id])
    // Integer keys too.
    try context.insert(Counted(id: 1, code: "a", value: 1))
    try context.save()
    try context.insert(Counted(id: 2, code: "a", value: 2))
    let second = try context.save()
    #expect(second.updated(Counted.self) == [1])
    #expect(try context.model(for: 1, as: Counted.self)?.value == 2)
  }

  @Test(arguments: TestEngine.enabled)
  func denyRuleSeesTheStateTheSaveProduces(_ engine: TestEngine) throws {
    let store = try relationStore(engine)
    let context = ModelContext(try relationContainer(store))
    let paris = RTrip(name: "Paris")
    let rome = RTrip(name: "Rome")
    try context.insert(paris)
    try context.insert(rome)
    try context.insert(RBooking(id: "b1", trip: paris.id))
    try context.save()
    // Moving the booking to Rome and deleting Paris in one save is allowed.
    try context.insert(RBooking(id: "b1", trip: rome.id))
    try context.delete(paris)
    let changes = try context.save()
    #expect(changes.deleted(RTrip.self) == [paris.id])
    #expect(try context.model(for: "b1", as: RBooking.self)?.trip == rome.id)
    // Deleting Rome while the booking still refers to it is refused, nothing saved.
    try context.delete(rome)
    #expect {
      try context.save()
    } throws: { error in
      (error as? StoreError)?.code == .deleteDenied
    }
    context.rollback()
    #expect(try context.model(for: rome.id, as: RTrip.self) != nil)
  }

  @Test(arguments: TestEngine.enabled)
  func danglingReferenceNamesTheModelThePropertyAndTheMissingID(_ engine: TestEngine) throws {
    let store = try relationStore(engine)
    let context = ModelContext(try relationContainer(store))
    let missing = UUID()
    try context.insert(RBooking(id: "b1", trip: missing))
    #expect {
      try context.save()
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .danglingReference && error.model == "RBooking"
        && error.property == "trip"
        && error.message
          == "Can't save `RBooking` `b1`: its `trip` refers to `RTrip` `\(missing.uuidString)`, "
          + "which does not exist. Nothing was saved; save that `RTrip` first (in the same save "
          + "or before), or refer to one that exists."
    }
  }
}
