import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Sort translation")
struct SortTranslationTests {
  /// Checks the SQLite dialect's `ORDER BY` (on SQLite) and that the store sorts as Swift on
  /// `engine`.
  private func check(
    _ engine: TestEngine, _ sortBy: [SortDescriptor<Item>], orderBy: String?,
    inMemory reason: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let descriptor = FetchDescriptor<Item>(sortBy: sortBy)
    if engine == .sqlite {
      let query = try translate(descriptor, schema: Item.schema, dialect: SQLiteDialect())
      #expect(query.orderBy == orderBy, sourceLocation: sourceLocation)
      #expect(query.sortsInMemory == (reason != nil), sourceLocation: sourceLocation)
      #expect(
        query.fallbackDescription == reason.map { "Sorted in memory: " + $0 },
        sourceLocation: sourceLocation)
    }
    let table = try ItemTable(engine, sampleItems)
    #expect(
      try table.fetch(descriptor).map(\.id) == sampleItems.sorted(using: sortBy).map(\.id),
      sourceLocation: sourceLocation)
  }

  @Test(arguments: TestEngine.enabled)
  func severalKeysWithBoolAndOptionalKeys(_ engine: TestEngine) throws {
    try check(
      engine,
      [
        SortDescriptor(\.isActive), SortDescriptor(\.rank, order: .reverse),
        SortDescriptor(\.name), SortDescriptor(\.id),
      ],
      orderBy: #""isActive" ASC, "rank" DESC, "name" COLLATE kura_unicode ASC, "id" ASC"#)
    try check(
      engine,
      [SortDescriptor(\.flag, order: .reverse), SortDescriptor(\.id, order: .reverse)],
      orderBy: #""flag" DESC, "id" DESC"#)
    try check(
      engine,
      [SortDescriptor(\.flag), SortDescriptor(\.isActive, order: .reverse), SortDescriptor(\.id)],
      orderBy: #""flag" ASC, "isActive" DESC, "id" ASC"#)
  }

  @Test(arguments: TestEngine.enabled)
  func nilSortsFirstForwardAndLastReversedAsInFoundation(_ engine: TestEngine) throws {
    try check(
      engine,
      [SortDescriptor(\.nickname), SortDescriptor(\.id)],
      orderBy: #""nickname" COLLATE kura_unicode ASC, "id" ASC"#)
    try check(
      engine,
      [SortDescriptor(\.weight, order: .reverse), SortDescriptor(\.id)],
      orderBy: #"kura_real("weight") DESC, "id" ASC"#)
  }

  @Test(arguments: TestEngine.enabled)
  func textSortsInSwiftStringOrder(_ engine: TestEngine) throws {
    try check(engine, [SortDescriptor(\.name)], orderBy: #""name" COLLATE kura_unicode ASC"#)
    let table = try ItemTable(engine, sampleItems)
    let names = try table.fetch(FetchDescriptor(sortBy: [SortDescriptor(\.name)])).map(\.name)
    #expect(names == sampleItems.map(\.name).sorted())
    // The Kelvin sign is canonically "K", so it sorts with K (SQLite's byte order would put it
    // last); the two spellings of "café" are equal, so their order is either.
    let kelvin = "\u{212A}elvin"
    #expect(
      names == ["", "B", "Harry", kelvin, "Luna Lovegood", "a\r\nb", "caf\u{E9}", "cafe\u{301}"]
        || names == [
          "", "B", "Harry", kelvin, "Luna Lovegood", "a\r\nb", "cafe\u{301}", "caf\u{E9}",
        ])
  }

  @Test(arguments: TestEngine.enabled)
  func otherOrderedTypes(_ engine: TestEngine) throws {
    try check(
      engine,
      [
        SortDescriptor(\.createdAt), SortDescriptor(\.score, order: .reverse), SortDescriptor(\.id),
      ],
      orderBy: #"kura_real("createdAt") ASC, kura_real("score") DESC, "id" ASC"#)
    try check(
      engine, [SortDescriptor(\.uuid), SortDescriptor(\.id)], orderBy: #""uuid" ASC, "id" ASC"#)
    try check(
      engine,
      [SortDescriptor(\.ratio), SortDescriptor(\.id)], orderBy: #"kura_real("ratio") ASC, "id" ASC"#
    )
  }

  @Test(arguments: TestEngine.enabled)
  func comparatorsAndComputedKeysSortInMemory(_ engine: TestEngine) throws {
    try check(
      engine,
      [SortDescriptor(\.name, comparator: .lexical), SortDescriptor(\.id)], orderBy: nil,
      inMemory: "a sort with a string comparator (such as `.lexical`) has no SQL form")
    try check(
      engine,
      [SortDescriptor(\.id), SortDescriptor(\.name.count)], orderBy: nil,
      inMemory:
        "sorting by a computed property of `Item` (of type `Int`), which is not a stored column")
  }
}
