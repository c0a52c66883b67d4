import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

/// A save's change set when one save changes an id several times (each id is reported once,
/// by its net effect), for text and integer ids, and the history agrees with it.
@Suite("Change classification")
struct ChangeClassificationTests {
  @Test(arguments: TestEngine.enabled)
  func repeatedChangesOfAnIdInOneSaveReportItsNetEffect(_ engine: TestEngine) throws {
    let store = try relationStore(engine)
    let container = try relationContainer(store)
    let context = ModelContext(container)
    var kyoto = RTrip(name: "Kyoto")
    var nara = RTrip(name: "Nara")
    try context.insert(kyoto)
    try context.insert(nara)
    let first = try context.save()
    var osaka = RTrip(name: "Osaka")
    try context.insert(osaka)
    osaka.name = "Ōsaka"
    try context.insert(osaka)  // inserted then changed: inserted once
    let temporary = RTrip(name: "Kobe")
    try context.insert(temporary)
    try context.delete(temporary)  // never stored: not reported
    kyoto.name = "Kyōto"
    try context.insert(kyoto)
    try context.delete(nara)
    nara.name = "Nara again"
    try context.insert(nara)  // deleted then saved again: updated
    let second = try context.save()
    let expected = ChangeSet.ModelChanges(
      inserted: [osaka.id.uuidString], updated: [kyoto.id.uuidString, nara.id.uuidString])
    #expect(second.changes == ["Trip": expected])
    let history = try container.history(since: first.token)
    #expect(history.map(\.changes) == [["Trip": expected]])
  }

  @Test(arguments: TestEngine.enabled)
  func integerIdsAreReportedByTheirValue(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("counters.store"))
    let container = try ModelContainer(for: Counter.self, configurations: store.configuration)
    let context = ModelContext(container)
    for id in [3, 1, 2] { try context.insert(Counter(id: id, value: 0)) }
    let first = try context.save()
    #expect(first.changes == ["Counter": .init(inserted: ["3", "1", "2"])])
    try context.insert(Counter(id: 1, value: 1))
    try context.insert(Counter(id: 4, value: 1))
    try context.insert(Counter(id: 4, value: 2))
    try context.delete(Counter(id: 2, value: 0))
    let second = try context.save()
    #expect(
      second.changes == ["Counter": .init(inserted: ["4"], updated: ["1"], deleted: ["2"])])
    #expect(try container.history(since: first.token).map(\.changes) == [second.changes])
  }

  /// A save of only new rows with integer ids keeps the ids as integers until they are read:
  /// read as texts, as typed ids, from the history (written from the integers), compared,
  /// hashed and encoded, they are what text ids would be, negative and extreme ids included.
  @Test(arguments: TestEngine.enabled)
  func integerIdsOfNewRowsReadAsTheirTextsEverywhere(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("counters.store"))
    let container = try ModelContainer(for: Counter.self, configurations: store.configuration)
    let context = ModelContext(container)
    let start = try context.save().token
    // Each digit count from 1 to 19, at both ends, with and without a sign (each id once).
    var seen = Set<Int>()
    let ids =
      ([7, -1, 0, 10, -10, 1_000_000_007, Int.min + 1, Int.max, Int(Int64.min)]
      + (1...18).flatMap { digits -> [Int] in
        let power = (1..<digits).reduce(1) { product, _ in product * 10 }
        return [power * 10 - 1, -(power * 10 - 1), power * 10, power]
      }).filter { seen.insert($0).inserted }
    for id in ids { try context.insert(Counter(id: id, value: 1)) }
    let saved = try context.save()
    let texts = ids.map { String($0) }
    let expected = ChangeSet.ModelChanges(inserted: texts)
    #expect(saved.changes["Counter"]?.inserted == texts)
    #expect(saved.inserted(Counter.self) == ids)
    #expect(saved.changes == ["Counter": expected])
    #expect(Set([saved.changes["Counter"]!, expected]).count == 1)
    let json = try JSONEncoder().encode(saved.changes["Counter"])
    #expect(try JSONDecoder().decode(ChangeSet.ModelChanges.self, from: json) == expected)
    #expect(
      String(decoding: json, as: UTF8.self).contains("\"inserted\":[\"7\",\"-1\",\"0\",\"10\""))
    let history = try container.history(since: start)
    #expect(history.map(\.changes) == [["Counter": expected]])
    #expect(history.first?.inserted(Counter.self) == ids)
  }

  /// Changing `inserted` in place changes its one array, copying nothing: appending an id at
  /// a time to a change set (as a save of text ids and a pull do) once copied the whole array
  /// at each append, and an initial sync of 20,000 rows spent most of its time doing so. With
  /// room reserved, every append keeps the array where it is; a copy would move it.
  @Test func insertedIdsAreChangedInPlace() {
    var changes = ChangeSet.ModelChanges()
    changes.inserted.reserveCapacity(1_000)
    let start = changes.inserted.withUnsafeBufferPointer { $0.baseAddress }
    // Checked after each append: a copy's storage can land where a freed one was.
    var moved = 0
    for number in 0..<1_000 {
      changes.inserted.append("id-\(number)")
      if changes.inserted.withUnsafeBufferPointer({ $0.baseAddress }) != start { moved += 1 }
    }
    #expect(moved == 0)
    #expect(changes.inserted.count == 1_000)
    #expect(changes.inserted.last == "id-999")
    // A change set holding integers turns into texts when changed, and keeps them.
    var integers = ChangeSet.ModelChanges()
    integers.insertedIDs = .integers([1, -2])
    integers.inserted.append("3")
    #expect(integers.inserted == ["1", "-2", "3"])
    #expect(integers == ChangeSet.ModelChanges(inserted: ["1", "-2", "3"]))
  }
}
