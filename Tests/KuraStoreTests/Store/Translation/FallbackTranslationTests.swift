import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Predicate translation: in-memory fallback")
struct FallbackTranslationTests {
  @Test(arguments: TestEngine.enabled)
  func untranslatableConjunctRunsInMemoryAfterSQLNarrows(_ engine: TestEngine) throws {
    try expectFallback(
      engine,
      #Predicate<Item> { $0.count > 0 && $0.name.count == 5 }, sql: #"("count" > ?)"#,
      reason: "`\\String.count` has no SQL form and runs in memory")
    let query = try translated(#Predicate<Item> { $0.count > 0 && $0.name.count == 5 })
    #expect(query.arguments == [.integer(0)])
  }

  @Test(arguments: TestEngine.enabled)
  func inMemoryConditionBeforeAnSQLConditionStillNarrowsInSQL(_ engine: TestEngine) throws {
    try expectFallback(
      engine,
      #Predicate<Item> { $0.name.count > 1 && $0.count >= 0 }, sql: #"("count" >= ?)"#,
      reason: "`\\String.count` has no SQL form and runs in memory")
    try expectFallback(
      engine,
      #Predicate<Item> { $0.count >= 0 && $0.rank! > 0 }, sql: #"("count" >= ?)"#,
      reason:
        "a force unwrap `!` (which throws on nil) runs in memory; use `??` or `flatMap` to run it"
        + " in SQL",
      rows: sampleItems.filter { $0.rank != nil })
  }

  @Test(arguments: TestEngine.enabled)
  func jsonColumnsRunInMemoryExceptNilChecks(_ engine: TestEngine) throws {
    try expectSQL(engine, #Predicate<Item> { $0.note == nil }, #"("note" IS NULL)"#, [])
    try expectSQL(engine, #Predicate<Item> { $0.note != nil }, #"("note" IS NOT NULL)"#, [])
    let note = Item.Note(text: "first")
    try expectFallback(
      engine,
      #Predicate<Item> { $0.note == note }, sql: nil,
      reason: "a constant of type `Optional<Note>` has no SQL form")
    try expectFallback(
      engine,
      #Predicate<Item> { $0.tags.contains("a") }, sql: nil,
      reason: "`contains` on a stored collection runs in memory")
    try expectFallback(
      engine,
      #Predicate<Item> { $0.tags.contains { $0 == "b" } }, sql: nil,
      reason: "`contains(where:)` runs in memory")
    try expectFallback(
      engine,
      #Predicate<Item> { $0.tags.isEmpty }, sql: nil,
      reason:
        "a computed property of `Array<String>` (of type `Bool`) has no SQL form and runs in"
        + " memory")
  }

  @Test(arguments: TestEngine.enabled)
  func forceUnwrapKeepsLaterConditionsInMemory(_ engine: TestEngine) throws {
    let rows = sampleItems.filter { $0.rank != nil }
    try expectFallback(
      engine,
      #Predicate<Item> { $0.isActive && $0.rank! > 0 && $0.count > 1 }, sql: #""isActive""#,
      reason:
        "a force unwrap `!` (which throws on nil) runs in memory; use `??` or `flatMap` to run it"
        + " in SQL; the conditions after it run in memory too, in their order",
      rows: rows)
    let query = try translated(#Predicate<Item> { $0.isActive && $0.rank! > 0 && $0.count > 1 })
    #expect(query.arguments == [])
    // Swift throws on the first nil it unwraps; so does the fetch.
    let table = try ItemTable(engine, sampleItems)
    #expect(throws: PredicateError.forceUnwrapFailure) {
      try table.ids(#Predicate<Item> { $0.rank! > 0 })
    }
  }

  @Test(arguments: TestEngine.enabled)
  func floatArithmeticAndVariableDivisorsRunInMemory(_ engine: TestEngine) throws {
    try expectFallback(
      engine,
      #Predicate<Item> { $0.ratio * 3 > 1 }, sql: nil,
      reason: "`*` on `float` values runs in memory")
    try expectFallback(
      engine,
      #Predicate<Item> { $0.score / $0.score > 0 }, sql: nil,
      reason:
        "`/` on floating point by anything but a non-zero constant (x / 0 is infinity in Swift,"
        + " NULL in SQL) runs in memory")
    try expectFallback(
      engine,
      #Predicate<Item> { $0.name.contains(/a+/) }, sql: nil,
      reason: "`contains` with a regular expression runs in memory")
  }

  @Test func forbiddenFallbackThrowsNamingTheParts() throws {
    let descriptor = FetchDescriptor<Item>(
      predicate: #Predicate { $0.count > 0 && $0.name.count == 5 },
      sortBy: [SortDescriptor(\.name, comparator: .lexical)],
      allowsInMemoryFallback: false)
    let error = try #require(throws: StoreError.self) {
      try translate(descriptor, schema: Item.schema, dialect: SQLiteDialect())
    }
    #expect(error.code == .inMemoryFallbackForbidden)
    #expect(
      error.description
        == "Can't fetch `Item` in SQL alone: `\\String.count` has no SQL form and runs in memory;"
        + " a sort with a string comparator (such as `.lexical`) has"
        + " no SQL form. Rewrite that part (see \"Querying Models\") or set `allowsInMemoryFallback` to"
        + " true.")
  }

  @Test func negativeLimitIsAnError() throws {
    let error = try #require(throws: StoreError.self) {
      try translate(
        FetchDescriptor<Item>(fetchLimit: -1), schema: Item.schema, dialect: SQLiteDialect())
    }
    #expect(
      error.description
        == "Can't fetch `Item`: `fetchLimit` and `fetchOffset` must not be negative. Pass nil or a"
        + " value of 0 or more.")
  }

  @Test(arguments: TestEngine.enabled)
  func limitAndOffsetApplyAfterTheInMemoryPart(_ engine: TestEngine) throws {
    let table = try ItemTable(engine, sampleItems)
    let predicate = #Predicate<Item> { $0.count >= 0 && $0.name.count > 1 }
    let descriptor = FetchDescriptor<Item>(
      predicate: predicate, sortBy: [SortDescriptor(\.id)], fetchLimit: 2, fetchOffset: 1)
    if engine == .sqlite {
      let query = try translate(descriptor, schema: Item.schema, dialect: SQLiteDialect())
      let statement = query.selectStatement(
        columns: "\"id\"", table: "item", dialect: SQLiteDialect())
      #expect(statement.sql == #"SELECT "id" FROM "item" WHERE ("count" >= ?) ORDER BY "id" ASC"#)
    }
    let expected = try sampleItems.filter { try predicate.evaluate($0) }.map(\.id)
    #expect(try table.fetch(descriptor).map(\.id) == Array(expected.dropFirst().prefix(2)))
    #expect(expected.count > 3)
  }

  @Test(arguments: TestEngine.enabled)
  func limitAndOffsetAreBoundInSQLWhenNothingRunsInMemory(_ engine: TestEngine) throws {
    let descriptor = FetchDescriptor<Item>(
      predicate: #Predicate { $0.count >= 0 }, sortBy: [SortDescriptor(\.id, order: .reverse)],
      fetchLimit: 2, fetchOffset: 1)
    let offsetOnly = FetchDescriptor<Item>(sortBy: [SortDescriptor(\.id)], fetchOffset: 6)
    if engine == .sqlite {
      let query = try translate(descriptor, schema: Item.schema, dialect: SQLiteDialect())
      let statement = query.selectStatement(columns: "*", table: "item", dialect: SQLiteDialect())
      #expect(
        statement.sql
          == #"SELECT * FROM "item" WHERE ("count" >= ?) ORDER BY "id" DESC LIMIT ? OFFSET ?"#)
      #expect(statement.arguments == [.integer(0), .integer(2), .integer(1)])
      let offsetQuery = try translate(offsetOnly, schema: Item.schema, dialect: SQLiteDialect())
      #expect(
        offsetQuery.selectStatement(columns: "*", table: "item", dialect: SQLiteDialect())
          .arguments == [.integer(-1), .integer(6)])
    }
    let table = try ItemTable(engine, sampleItems)
    #expect(try table.fetch(descriptor).map(\.id) == [6, 5])
    #expect(try table.fetch(offsetOnly).map(\.id) == [7, 8])
  }

  @Test func residualPredicateIsAPredicateOnTheModel() throws {
    let query = try translated(#Predicate<Item> { $0.count > 0 && $0.name.count == 5 })
    let residual = try #require(query.residual)
    #expect(try residual.evaluate(Item(id: 1, count: -5, name: "Harry")))
    #expect(try !residual.evaluate(Item(id: 1, count: 5, name: "Ron")))
  }
}
