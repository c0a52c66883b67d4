import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Predicate translation: arithmetic, text, optionals, collections, ranges, conditionals")
struct ExpressionTranslationTests {
  @Test(arguments: TestEngine.enabled)
  func arithmetic(_ engine: TestEngine) throws {
    try expectSQL(
      engine,
      #Predicate<Item> { $0.count + 2 > 5 }, #"(kura_int_add("count", ?) > ?)"#,
      [.integer(2), .integer(5)])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.count - $0.count * 2 == -3 },
      #"(kura_int_subtract("count", kura_int_multiply("count", ?)) = ?)"#,
      [.integer(2), .integer(-3)])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.count / 2 == -2 }, #"(kura_int_divide("count", ?) = ?)"#,
      [.integer(2), .integer(-2)])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.count % 3 == -1 }, #"(kura_int_remainder("count", ?) = ?)"#,
      [.integer(3), .integer(-1)])
    try expectSQL(
      engine, #Predicate<Item> { -$0.count > 0 }, #"(kura_int_neg("count") > ?)"#, [.integer(0)])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.score / 2 >= 1 }, #"coalesce((kura_real("score") / ?) >= ?, 0)"#,
      [.real(2), .real(1)])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.score * 1.5 + 1 < 4 },
      #"coalesce(((kura_real("score") * ?) + ?) < ?, 0)"#,
      [.real(1.5), .real(1), .real(4)])
  }

  @Test(arguments: TestEngine.enabled)
  func textContainsAndStartsWithUseSwiftSemantics(_ engine: TestEngine) throws {
    try expectSQL(
      engine,
      #Predicate<Item> { $0.name.contains("caf") }, #"kura_contains("name", ?)"#, [.text("caf")])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.name.starts(with: "Lu") }, #"kura_starts_with("name", ?)"#,
      [.text("Lu")])
    try expectSQL(
      engine,
      #Predicate<Item> { !$0.name.contains("e") }, #"(NOT kura_contains("name", ?))"#,
      [.text("e")])
    try expectSQL(engine, #Predicate<Item> { $0.name.isEmpty }, #"("name" = '')"#, [])
    let table = try ItemTable(engine, sampleItems)
    // "cafe\u{301}" does not contain "cafe" (its last Character is é), but "café" does contain é
    // whichever way either is written.
    #expect(try table.ids(#Predicate<Item> { $0.name.contains("cafe") }) == [])
    #expect(try table.ids(#Predicate<Item> { $0.name.contains("e\u{301}") }) == [3, 4])
    #expect(try table.ids(#Predicate<Item> { $0.name.contains("\r") }) == [])
    #expect(try table.ids(#Predicate<Item> { $0.name.contains("") }) == [1, 2, 3, 4, 5, 6, 7, 8])
    #expect(try table.ids(#Predicate<Item> { $0.name.starts(with: "K") }) == [5])
    #expect(try table.ids(#Predicate<Item> { $0.name.contains("h") }) == [])
  }

  @Test(arguments: TestEngine.enabled)
  func optionalsWithNilCoalescingAndFlatMap(_ engine: TestEngine) throws {
    try expectSQL(
      engine,
      #Predicate<Item> { ($0.rank ?? 0) > 1 }, #"(coalesce("rank", ?) > ?)"#,
      [.integer(0), .integer(1)])
    try expectSQL(
      engine,
      #Predicate<Item> { ($0.nickname ?? "") == "" },
      #"(coalesce("nickname", ?) = ? COLLATE kura_unicode)"#, [.text(""), .text("")])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.rank.flatMap { $0 * 2 } == 10 },
      #"((CASE WHEN "rank" IS NULL THEN NULL ELSE kura_int_multiply("rank", ?) END) IS ?)"#,
      [.integer(2), .integer(10)])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.nickname.flatMap { $0.starts(with: "R") } == true },
      #"((CASE WHEN "nickname" IS NULL THEN NULL ELSE kura_starts_with("nickname", ?) END) IS ?)"#,
      [.text("R"), .integer(1)])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.weight.flatMap { $0 > 1 } ?? false },
      #"coalesce((CASE WHEN "weight" IS NULL THEN NULL ELSE coalesce(kura_real("weight") > ?, 0) END), ?)"#,
      [.real(1), .integer(0)])
  }

  @Test(arguments: TestEngine.enabled)
  func valuesContainsBecomesIn(_ engine: TestEngine) throws {
    let counts = [3, 7, -1]
    try expectSQL(
      engine,
      #Predicate<Item> { counts.contains($0.count) }, #"("count" IN (?, ?, ?))"#,
      [.integer(3), .integer(7), .integer(-1)])
    try expectSQL(
      engine,
      #Predicate<Item> { ["B", "caf\u{E9}"].contains($0.name) },
      #"("name" COLLATE kura_unicode IN (?, ?))"#, [.text("B"), .text("caf\u{E9}")])
    let ranks: [Int?] = [5, nil]
    try expectSQL(
      engine,
      #Predicate<Item> { ranks.contains($0.rank) }, #"(("rank" IN (?)) OR "rank" IS NULL)"#,
      [.integer(5)])
    let someRanks: [Int?] = [1, 2]
    try expectSQL(
      engine,
      #Predicate<Item> { !someRanks.contains($0.rank) },
      #"(NOT coalesce(("rank" IN (?, ?)), 0))"#, [.integer(1), .integer(2)])
    let none: [Int] = []
    try expectSQL(engine, #Predicate<Item> { none.contains($0.count) }, "0", [])
    let colors: Set<Item.Color> = [.blue]
    try expectSQL(
      engine,
      #Predicate<Item> { colors.contains($0.color) }, #"("color" IN (?))"#, [.text("blue")])
  }

  @Test(arguments: TestEngine.enabled)
  func rangeContainsBecomesBetweenOrComparisons(_ engine: TestEngine) throws {
    try expectSQL(
      engine,
      #Predicate<Item> { (0...3).contains($0.count) }, #"("count" BETWEEN ? AND ?)"#,
      [.integer(0), .integer(3)])
    try expectSQL(
      engine,
      #Predicate<Item> { (0..<3).contains($0.count) }, #"(("count" >= ?) AND ("count" < ?))"#,
      [.integer(0), .integer(3)])
    let closed = -2.5...2.0
    try expectSQL(
      engine,
      #Predicate<Item> { closed.contains($0.score) },
      #"coalesce(kura_real("score") BETWEEN ? AND ?, 0)"#,
      [.real(-2.5), .real(2)])
    let from = 5...
    try expectSQL(
      engine, #Predicate<Item> { from.contains($0.count) }, #"("count" >= ?)"#, [.integer(5)])
    let upTo = ..<"C"
    try expectSQL(
      engine,
      #Predicate<Item> { upTo.contains($0.name) }, #"("name" < ? COLLATE kura_unicode)"#,
      [.text("C")])
    try expectSQL(
      engine,
      #Predicate<Item> { ("B"..."Z").contains($0.name) },
      #"("name" COLLATE kura_unicode BETWEEN ? AND ?)"#, [.text("B"), .text("Z")])
  }

  @Test(arguments: TestEngine.enabled)
  func conditionalBecomesCase(_ engine: TestEngine) throws {
    try expectSQL(
      engine,
      #Predicate<Item> { ($0.isActive ? $0.count : -$0.count) > 2 },
      #"((CASE WHEN "isActive" THEN "count" ELSE kura_int_neg("count") END) > ?)"#, [.integer(2)])
    try expectSQL(
      engine,
      #Predicate<Item> { $0.count > 0 ? $0.isActive : $0.name.isEmpty },
      #"(CASE WHEN ("count" > ?) THEN "isActive" ELSE ("name" = '') END)"#, [.integer(0)])
  }
}
