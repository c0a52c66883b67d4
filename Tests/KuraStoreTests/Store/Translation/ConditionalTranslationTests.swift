import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Predicate translation: conditionals")
struct ConditionalTranslationTests {
  /// Rows where a conditional picks a stored NaN, nil, or a number.
  private let rows = [
    Item(id: 1, isActive: true), Item(id: 2, weight: .nan, isActive: true),
    Item(id: 3, weight: 2, isActive: true), Item(id: 4, isActive: false),
    Item(id: 5, weight: .nan, isActive: false), Item(id: 6, weight: 2, isActive: false),
  ]

  /// A NaN the conditional chooses is a value, not nil: its nil test chooses between the
  /// branches' nil tests (issue 23), in SQL.
  @Test(arguments: TestEngine.enabled)
  func aStoredNaNChosenByAConditionalIsNotNil(_ engine: TestEngine) throws {
    let none: Double? = nil
    let predicate = #Predicate<Item> {
      none != ($0.isActive ? $0.weight : $0.weight.flatMap { _ in -1.5 })
    }
    let table = try ItemTable(engine, rows)
    #expect(try table.ids(predicate) == [2, 3, 5, 6])
    #expect(try table.ids(predicate) == table.expectedIDs(predicate))
    let query = try translated(predicate)
    #expect(
      query.whereClause
        == #"((CASE WHEN "isActive" THEN (CASE WHEN "weight" IS NULL THEN NULL ELSE 1 END)"#
        + #" ELSE (CASE WHEN (CASE WHEN "weight" IS NULL THEN NULL ELSE ? END) IS NULL THEN"#
        + #" NULL ELSE 1 END) END) IS NOT NULL)"#)
    #expect(query.arguments == [.real(-1.5)])
    #expect(query.residual == nil && query.fallbackDescription == nil)
  }

  /// `??` on such a conditional takes the fallback only where the chosen value is nil.
  @Test(arguments: TestEngine.enabled)
  func nilCoalescingAConditionalKeepsItsNaN(_ engine: TestEngine) throws {
    let other: Double? = 2
    let predicate = #Predicate<Item> { (($0.isActive ? $0.weight : other) ?? 2) != 2 }
    let table = try ItemTable(engine, rows)
    // NaN != 2 is true in Swift: row 2 only (rows 4–6 choose `other`, 2).
    #expect(try table.ids(predicate) == [2])
    #expect(try table.ids(predicate) == table.expectedIDs(predicate))
    #expect(try translated(predicate).residual == nil)
  }
}
