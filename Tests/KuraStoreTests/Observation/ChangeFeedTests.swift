import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Change feed")
struct ChangeFeedTests {
  @Test(arguments: TestEngine.enabled)
  func saveReturnsInsertedUpdatedAndDeletedIds(_ engine: TestEngine) throws {
    let store = try relationStore(engine)
    let context = ModelContext(try relationContainer(store))
    var kyoto = RTrip(name: "Kyoto")
    let nara = RTrip(name: "Nara")
    try context.insert(kyoto)
    try context.insert(nara)
    let first = try context.save()
    #expect(first.inserted(RTrip.self) == [kyoto.id, nara.id])
    #expect(first.updated(RTrip.self).isEmpty)
    kyoto.name = "Kyōto"
    try context.insert(kyoto)
    try context.delete(nara)
    try context.delete(RTrip(name: "never saved"))
    let second = try context.save()
    #expect(
      second.changes == [
        "Trip": .init(updated: [kyoto.id.uuidString], deleted: [nara.id.uuidString])
      ])
    // Consecutive on SQLite; on PostgreSQL tokens follow transaction ids (gaps between them).
    #expect(
      engine == .sqlite
        ? second.token.rawValue == first.token.rawValue + 1 : second.token > first.token)
    #expect(second.contains(RTrip.self) && !second.contains(RNote.self))
    let nothing = try context.save()
    #expect(nothing.isEmpty && nothing.token == second.token)
  }

  @Test(arguments: TestEngine.enabled)
  func historySinceATokenReturnsLaterSavesOnly(_ engine: TestEngine) throws {
    let store = try relationStore(engine)
    let container = try relationContainer(store)
    let context = ModelContext(container)
    #expect(try container.currentHistoryToken() == .start)
    let kyoto = RTrip(name: "Kyoto")
    try context.insert(kyoto)
    let first = try context.save()
    let note = RNote(text: "yen", trip: kyoto.id)
    try context.insert(note)
    let second = try context.save()
    try context.delete(kyoto)
    let third = try context.save()
    let since = try container.history(since: first.token)
    #expect(since.map(\.token) == [second.token, third.token])
    #expect(since[0].inserted(RNote.self) == [note.id])
    #expect(since[1].deleted(RTrip.self) == [kyoto.id])
    #expect(since[1].updated(RNote.self) == [note.id])
    #expect(try container.history(since: .start).count == 3)
    #expect(try container.history(since: third.token).isEmpty)
    try container.trimHistory(through: second.token)
    #expect(try container.history(since: second.token).map(\.token) == [third.token])
    // A reader from before the trimmed saves is told to refetch, never handed a gap.
    #expect {
      _ = try container.history(since: .start)
    } throws: { error in
      (error as? StoreError)?.code == .historyTrimmed
    }
    #expect(try container.currentHistoryToken() == third.token)
    // The newest change set stays, so the next save's token is still above every earlier one.
    try container.trimHistory(through: third.token)
    #expect(try container.history(since: second.token).map(\.token) == [third.token])
    try context.insert(RTrip(name: "Nara"))
    let fourth = try context.save().token
    #expect(engine == .sqlite ? fourth.rawValue == third.token.rawValue + 1 : fourth > third.token)
  }

  @Test(arguments: TestEngine.enabled)
  func anotherProcessesSavesAreInTheHistoryAndTheStream(_ engine: TestEngine) async throws {
    let store = try relationStore(engine)
    let container = try relationContainer(store)
    let token = try container.currentHistoryToken()
    let stream = try container.changeSets()
    let printed = try runHelper(
      ["relations-insert", store.argument, "trip", "Hakone"], store: store)
    let history = try container.history(since: token)
    #expect(history.count == 1)
    #expect(printed == String(history[0].token.rawValue))
    let inserted = try #require(history.first?.inserted(RTrip.self).first)
    let context = ModelContext(container)
    #expect(try context.model(for: inserted, as: RTrip.self)?.name == "Hakone")
    let changeSet = await Inbox(stream).next()
    #expect(changeSet?.token == history[0].token)
    #expect(changeSet?.inserted(RTrip.self) == [inserted])
  }
}
