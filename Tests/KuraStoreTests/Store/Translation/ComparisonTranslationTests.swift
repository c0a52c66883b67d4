import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Predicate translation: comparison and logic")
struct ComparisonTranslationTests {
  @Test(arguments: TestEngine.enabled)
  func equalAndNotEqualOnIntegers(_ engine: TestEngine) throws {
    try expectSQL(engine, #Predicate<Item> { $0.count == 3 }, #"("count" = ?)"#, [.integer(3)])
    try expectSQL(engine, #Predicate<Item> { $0.count != 3 }, #"("count" <> ?)"#, [.integer(3)])
    try expectSQL(engine, #Predicate<Item> { 3 == $0.count }, #"(? = "count")"#, [.integer(3)])
  }

  @Test(arguments: TestEngine.enabled)
  func orderingOperators(_ engine: TestEngine) throws {
    try expectSQL(engine, #Predicate<Item> { $0.count < 3 }, #"("count" < ?)"#, [.integer(3)])
    try expectSQL(engine, #Predicate<Item> { $0.count <= 3 }, #"("count" <= ?)"#, [.integer(3)])
    try expectSQL(engine, #Predicate<Item> { $0.count > -1 }, #"("count" > ?)"#, [.integer(-1)])
    try expectSQL(engine, #Predicate<Item> { $0.count >= 0 }, #"("count" >= ?)"#, [.integer(0)])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.count < $0.rank ?? 0 }, #"("count" < coalesce("rank", ?))"#,
      [.integer(0)])
  }

  @Test(arguments: TestEngine.enabled)
  func textComparesWithTheSwiftStringCollation(_ engine: TestEngine) throws {
    try expectSQL(
      engine,
      #Predicate<Item> { $0.name == "caf\u{E9}" }, #"("name" = ? COLLATE kura_unicode)"#,
      [.text("caf\u{E9}")])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.name != "B" }, #"("name" <> ? COLLATE kura_unicode)"#, [.text("B")])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.name < "b" }, #"("name" < ? COLLATE kura_unicode)"#, [.text("b")])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.name >= "Kelvin" }, #"("name" >= ? COLLATE kura_unicode)"#,
      [.text("Kelvin")])
  }

  @Test(arguments: TestEngine.enabled)
  func canonicallyEquivalentTextIsEqualAsInSwift(_ engine: TestEngine) throws {
    let table = try ItemTable(engine, sampleItems)
    let composed = #Predicate<Item> { $0.name == "caf\u{E9}" }
    #expect(try table.ids(composed) == [3, 4])
    let kelvin = #Predicate<Item> { $0.name == "Kelvin" }
    #expect(try table.ids(kelvin) == [5])
    #expect(try table.expectedIDs(kelvin) == [5])
  }

  @Test(arguments: TestEngine.enabled)
  func floatingPointColumnsCompareDirectly(_ engine: TestEngine) throws {
    try expectSQL(
      engine,
      #Predicate<Item> { $0.score == 0 }, #"coalesce(kura_real("score") = ?, 0)"#, [.real(0)])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.score != 0 }, #"coalesce(kura_real("score") <> ?, 1)"#, [.real(0)])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.score < 2 }, #"coalesce(kura_real("score") < ?, 0)"#, [.real(2)])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.ratio > 0.25 }, #"coalesce(kura_real("ratio") > ?, 0)"#, [.real(0.25)])
  }

  @Test(arguments: TestEngine.enabled)
  func computedNaNComparesAsInSwift(_ engine: TestEngine) throws {
    // inf - inf is NaN in Swift and NULL in SQLite: NaN == x is false, NaN != x is true.
    try expectSQL(
      engine,
      #Predicate<Item> { $0.score - $0.score == 0 },
      #"coalesce((kura_real("score") - kura_real("score")) = ?, 0)"#,
      [.real(0)])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.score - $0.score != 0 },
      #"coalesce((kura_real("score") - kura_real("score")) <> ?, 1)"#,
      [.real(0)])
    try expectSQL(
      engine,
      #Predicate<Item> { !($0.score * 0 < 1) }, #"(NOT coalesce((kura_real("score") * ?) < ?, 0))"#,
      [.real(0), .real(1)])
    let table = try ItemTable(engine, sampleItems)
    #expect(try table.ids(#Predicate<Item> { $0.score - $0.score != 0 }) == [3])
  }

  @Test(arguments: TestEngine.enabled)
  func nanConstantsRunInMemory(_ engine: TestEngine) throws {
    let notANumber = Double.nan
    try expectFallback(
      engine,
      #Predicate<Item> { $0.score != notANumber }, sql: nil,
      reason:
        "a constant of type `Double` that SQL can't match exactly (NaN, a relative URL or an"
        + " integer beyond 64 bits) runs in memory")
  }

  @Test(arguments: TestEngine.enabled)
  func optionalsUseIsSoNilEqualsNil(_ engine: TestEngine) throws {
    try expectSQL(engine, #Predicate<Item> { $0.rank == 5 }, #"("rank" IS ?)"#, [.integer(5)])
    try expectSQL(engine, #Predicate<Item> { $0.rank != 5 }, #"("rank" IS NOT ?)"#, [.integer(5)])
    try expectSQL(engine, #Predicate<Item> { $0.rank == nil }, #"("rank" IS NULL)"#, [])
    try expectSQL(engine, #Predicate<Item> { $0.rank != nil }, #"("rank" IS NOT NULL)"#, [])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.nickname == "e\u{301}" }, #"("nickname" IS ? COLLATE kura_unicode)"#,
      [.text("e\u{301}")])
    try expectSQL(engine, #Predicate<Item> { $0.weight != nil }, #"("weight" IS NOT NULL)"#, [])
    let table = try ItemTable(engine, sampleItems)
    #expect(try table.ids(#Predicate<Item> { $0.rank != 5 }) == [1, 2, 3, 5, 7, 8])
  }

  @Test(arguments: TestEngine.enabled)
  func otherStoredTypesCompareByTheirStoredForm(_ engine: TestEngine) throws {
    try expectSQL(engine, #Predicate<Item> { $0.isActive }, #""isActive""#, [])
    try expectSQL(engine, #Predicate<Item> { !$0.isActive }, #"(NOT "isActive")"#, [])
    try expectSQL(
      engine, #Predicate<Item> { $0.isActive == true }, #"("isActive" = ?)"#, [.integer(1)])
    try expectSQL(engine, #Predicate<Item> { $0.flag == false }, #"("flag" IS ?)"#, [.integer(0)])
    let date = Date(timeIntervalSince1970: 1_000)
    try expectSQL(
      engine,
      #Predicate<Item> { $0.createdAt >= date }, #"coalesce(kura_real("createdAt") >= ?, 0)"#,
      [.real(1_000 - 978_307_200)])
    let uuid = UUID(uuid: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))
    try expectSQL(
      engine,
      #Predicate<Item> { $0.uuid == uuid }, #"("uuid" = ?)"#,
      [.text("01000000-0000-0000-0000-000000000001")])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.uuid > uuid }, #"("uuid" > ?)"#,
      [.text("01000000-0000-0000-0000-000000000001")])
    let link = URL(string: "https://example.com/a")
    try expectSQL(
      engine,
      #Predicate<Item> { $0.link == link }, #"("link" IS ?)"#, [.text("https://example.com/a")])
    let green = Item.Color.green
    try expectSQL(
      engine, #Predicate<Item> { $0.color == green }, #"("color" = ?)"#, [.text("green")])
    let low = Item.Level.low
    try expectSQL(
      engine, #Predicate<Item> { $0.level != low }, #"("level" IS NOT ?)"#, [.integer(1)])
    let bytes = Data([1, 2])
    try expectSQL(
      engine, #Predicate<Item> { $0.payload == bytes }, #"("payload" = ?)"#, [.blob(bytes)])
  }

  @Test(arguments: TestEngine.enabled)
  func andOrNot(_ engine: TestEngine) throws {
    try expectSQL(
      engine,
      #Predicate<Item> { $0.count > 0 && ($0.isActive || !($0.rank == nil)) },
      #"("count" > ?) AND ("isActive" OR (NOT ("rank" IS NULL)))"#, [.integer(0)])
    try expectSQL(
      engine,
      #Predicate<Item> { ($0.count > 0 && $0.isActive) || $0.name == "" },
      #"((("count" > ?) AND "isActive") OR ("name" = ? COLLATE kura_unicode))"#,
      [.integer(0), .text("")])
    try expectSQL(
      engine,
      #Predicate<Item> { !($0.rank != 5) }, #"(NOT ("rank" IS NOT ?))"#, [.integer(5)])
  }

  @Test(arguments: TestEngine.enabled)
  func constantsAlone(_ engine: TestEngine) throws {
    try expectSQL(engine, #Predicate<Item> { _ in true }, "?", [.integer(1)])
    try expectSQL(engine, #Predicate<Item> { _ in false }, "?", [.integer(0)])
  }
}
