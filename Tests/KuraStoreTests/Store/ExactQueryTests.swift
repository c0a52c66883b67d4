import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

/// A model with a unique name, dates and every kind of floating-point value.
struct Reading: PersistentModel, Equatable {
  var id: Int
  var name: String = ""
  var date: Date = Date(timeIntervalSinceReferenceDate: 0)
  var value: Double = 0
  var optionalValue: Double? = nil
  var count: UInt64 = 0
  static var schema: Schema<Reading> { Schema(.unique(\.name), .index(\.date)) }
}

/// Names that mix composed and decomposed forms of the same letters: é / e + ◌́, Å / A + ◌̊ /
/// ANGSTROM SIGN, K / KELVIN SIGN.
let mixedNames: [String] = {
  let pieces = [
    "\u{E9}", "e\u{301}", "e", "\u{C5}", "A\u{30A}", "\u{212B}", "A", "K", "\u{212A}", "a", "",
  ]
  var names: [String] = []
  for first in pieces {
    for second in pieces { names.append(first + second) }
  }
  return names
}()

@Suite("Exact queries")
struct ExactQueryTests {
  private func container(_ store: TestStore) throws -> ModelContainer {
    try ModelContainer(for: Reading.self, configurations: store.configuration)
  }

  @Test func textOrderIsTotalAndAgreesWithSwiftEquality() throws {
    // Swift's own `<` says neither "e\u{301}" < "\u{E9}a" nor the reverse, and they differ.
    let pool =
      Array(Set(mixedNames.prefix(80))) + [
        "Jose\u{301}", "Jos\u{E9}", "z", "\u{1F1EF}", "\u{304C}", "\u{304B}\u{3099}", "\u{304B}",
        "\u{AC00}", "\u{1100}\u{1161}", "\u{AC00}\u{11A8}", "\u{AC01}", "\u{FA10}", "\u{585A}",
        "高速代金", "高速", "\u{2126}", "\u{3A9}",
      ]
    for a in pool {
      for b in pool {
        let order = SwiftStringSQL.order(a, b)
        #expect((order == 0) == (a == b), "\(Array(a.unicodeScalars)) \(Array(b.unicodeScalars))")
        #expect(order == -SwiftStringSQL.order(b, a))
      }
    }
    let sorted = pool.sorted { SwiftStringSQL.order($0, $1) < 0 }
    for (index, a) in sorted.enumerated() {
      for b in sorted[index...] { #expect(SwiftStringSQL.order(a, b) <= 0) }
    }
    #expect(SwiftStringSQL.order("e\u{301}", "\u{E9}a") == -1)
    // On text already in NFC, Swift's `<` is consistent and is the store's order.
    let composed = pool.filter {
      Array($0.utf8) == Array($0.precomposedStringWithCanonicalMapping.utf8)
    }
    for a in composed {
      for b in composed where a != b {
        #expect((SwiftStringSQL.order(a, b) < 0) == (a < b), "\(a) \(b)")
      }
    }
  }

  @Test(arguments: TestEngine.enabled)
  func uniqueUpsertsOfMixedNormalizationsKeepTheIndexSound(_ engine: TestEngine) throws {
    // Before: 41 one-at-a-time upserts ended in "database disk image is malformed".
    let store = try freshStore(engine, sqlite: .file("exact.sqlite"))
    do {
      let context = ModelContext(try container(store))
      for (number, name) in mixedNames.enumerated() {
        try context.insert(Reading(id: number, name: name))
        try context.save()
      }
      let all = try context.fetch(FetchDescriptor<Reading>())
      for name in ["Jose\u{301}", "\u{E9}\u{E9}", "e\u{301}K", "A\u{30A}\u{212A}"] {
        let swift = all.filter { $0.name == name }.count
        let sql = try context.fetchCount(
          FetchDescriptor<Reading>(predicate: #Predicate { $0.name == name }))
        #expect(sql == swift, "\(name)")
        let fetched = try context.fetch(
          FetchDescriptor<Reading>(predicate: #Predicate { $0.name == name }))
        #expect(fetched.count == sql)
      }
      let bound = "\u{E9}a"
      let below = try context.fetch(
        FetchDescriptor<Reading>(predicate: #Predicate { $0.name < bound }))
      #expect(
        Set(below.map(\.id))
          == Set(all.filter { SwiftStringSQL.order($0.name, bound) < 0 }.map(\.id)))
      let sorted = try context.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.name)]))
      #expect(
        zip(sorted, sorted.dropFirst()).allSatisfy {
          SwiftStringSQL.order($0.name, $1.name) <= 0
        })
    }
    #expect(try store.inspector().check() == [])
  }

  @Test(arguments: TestEngine.enabled)
  func everyDateRoundTripsAndComparesAsInSwift(_ engine: TestEngine) throws {
    // Before: about half of `Date()` values came back one ulp off, and dates one ulp apart
    // compared equal in SQL.
    let store = try freshStore(engine, sqlite: .file("exact.sqlite"))
    let context = ModelContext(try container(store))
    var random = SeededGenerator(seed: 16)
    var readings: [Reading] = []
    for id in 0..<400 {
      let base = Double.random(in: 7e8...8e8, using: &random)
      let seconds = id % 2 == 0 ? base : base.nextUp
      readings.append(
        Reading(id: id, name: "r\(id)", date: Date(timeIntervalSinceReferenceDate: seconds)))
    }
    readings.append(
      Reading(id: 400, name: "minus zero", date: Date(timeIntervalSinceReferenceDate: -0.0)))
    for reading in readings { try context.insert(reading) }
    try context.save()
    let fetched = try context.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)]))
    #expect(
      fetched.map(\.date.timeIntervalSinceReferenceDate.bitPattern)
        == readings.map(\.date.timeIntervalSinceReferenceDate.bitPattern))
    for reading in readings.prefix(20) {
      let date = reading.date
      let equal = try context.fetch(
        FetchDescriptor<Reading>(predicate: #Predicate { $0.date == date })
      ).map(\.id)
      #expect(equal == readings.filter { $0.date == date }.map(\.id))
      let before = try context.fetchCount(
        FetchDescriptor<Reading>(predicate: #Predicate { $0.date < date }))
      #expect(before == readings.filter { $0.date < date }.count)
    }
  }

  @Test(arguments: TestEngine.enabled)
  func nanInfinityAndNegativeZeroAreStoredExactly(_ engine: TestEngine) throws {
    // Before: NaN in a non-optional Double failed with NOT NULL; an optional NaN read back nil;
    // -0.0 read back as 0.0.
    let store = try freshStore(engine, sqlite: .file("exact.sqlite"))
    let context = ModelContext(try container(store))
    let values: [Double] = [.nan, -0.0, 0, .infinity, -.infinity, 1.5, -.nan]
    for (id, value) in values.enumerated() {
      try context.insert(Reading(id: id, name: "v\(id)", value: value, optionalValue: value))
    }
    try context.insert(Reading(id: 99, name: "nil", value: 1, optionalValue: nil))
    try context.save()
    let fetched = try context.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.id)]))
    #expect(fetched.prefix(values.count).map(\.value.bitPattern) == values.map(\.bitPattern))
    #expect(
      fetched.prefix(values.count).map { $0.optionalValue?.bitPattern }
        == values.map(\.bitPattern))
    #expect(fetched.last?.optionalValue == nil)
    let all = fetched
    let pair: [Double] = [0.0, 1.5]
    let withNil: [Double?] = [nil, 0.0]
    let product = #Predicate<Reading> { $0.optionalValue.flatMap { $0 * 0.0 } == nil }
    let difference = #Predicate<Reading> {
      ($0.optionalValue.flatMap { $0 - $0 } ?? 5.0) > -22.125
    }
    var predicates: [Predicate<Reading>] = [
      #Predicate { $0.value == 0 }, #Predicate { $0.value < 1 }, #Predicate { $0.value > 0 },
      #Predicate { $0.value != 1.5 }, #Predicate { $0.optionalValue == nil },
      #Predicate { $0.optionalValue != nil }, #Predicate { $0.optionalValue == 0 },
    ]
    predicates.append(#Predicate { ($0.optionalValue ?? 5) > 2 })
    predicates.append(#Predicate { ($0.optionalValue ?? 5) <= 2 })
    predicates.append(#Predicate { pair.contains($0.value) })
    predicates.append(#Predicate { withNil.contains($0.optionalValue) })
    predicates += [product, difference]
    for predicate in predicates {
      let expected = try all.filter { try predicate.evaluate($0) }.map(\.id)
      let sql = try context.fetch(
        FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.id)])
      ).map(\.id)
      #expect(sql == expected, "\(expected)")
      #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count)
    }
  }

  @Test(arguments: TestEngine.enabled)
  func nanMadeInsideAPredicateIsNotNil(_ engine: TestEngine) throws {
    // Before: `flatMap { $0 * 0.0 } == nil` matched a row with -infinity in SQL.
    let table = try ItemTable(engine, [Item(id: 1, weight: -.infinity), Item(id: 2, weight: 3)])
    let product = #Predicate<Item> { $0.weight.flatMap { $0 * 0.0 } == nil }
    #expect(try table.ids(product) == table.expectedIDs(product))
    let difference = #Predicate<Item> { ($0.weight.flatMap { $0 - $0 } ?? 5.0) > -22.125 }
    #expect(try table.ids(difference) == table.expectedIDs(difference))
  }

  @Test(arguments: TestEngine.enabled)
  func unsignedArithmeticAboveInt64MaxIsExact(_ engine: TestEngine) throws {
    // Before: 4611686018427387905 + itself became a rounded REAL in SQLite.
    let store = try freshStore(engine, sqlite: .file("exact.sqlite"))
    let context = ModelContext(try container(store))
    try context.insert(Reading(id: 1, name: "big", count: 4_611_686_018_427_387_905))
    try context.insert(Reading(id: 2, name: "small", count: 3))
    try context.save()
    let predicate = #Predicate<Reading> { $0.count + $0.count - $0.count == $0.count }
    #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == 2)
  }

  @Test(arguments: TestEngine.enabled)
  func largeBooleanTreesAndListsRunWithoutLimits(_ engine: TestEngine) throws {
    // Before: 91 chained `||` failed with "parser stack overflow", 1,201 `&&` with "Expression
    // tree is too large", a 300,000-value list with "too many SQL variables".
    let table = try ItemTable(engine, sampleItems)
    let ors = Predicate<Item> { item in
      var expression: any StandardPredicateExpression<Bool> = PredicateExpressions.build_Equal(
        lhs: PredicateExpressions.build_KeyPath(root: item, keyPath: \.count),
        rhs: PredicateExpressions.build_Arg(-100))
      for value in 0..<91 {
        expression = or(
          expression,
          PredicateExpressions.build_Equal(
            lhs: PredicateExpressions.build_KeyPath(root: item, keyPath: \.count),
            rhs: PredicateExpressions.build_Arg(value * 4)))
      }
      return expression
    }
    #expect(try table.runsInSQL(ors))
    #expect(try table.ids(ors) == table.expectedIDs(ors))
    let ands = Predicate<Item> { item in
      var expression: any StandardPredicateExpression<Bool> = PredicateExpressions.build_Equal(
        lhs: PredicateExpressions.build_KeyPath(root: item, keyPath: \.isActive),
        rhs: PredicateExpressions.build_Arg(true))
      for value in 0..<1_201 {
        expression = and(
          expression,
          PredicateExpressions.build_NotEqual(
            lhs: PredicateExpressions.build_KeyPath(root: item, keyPath: \.count),
            rhs: PredicateExpressions.build_Arg(value + 5)))
      }
      return expression
    }
    #expect(try table.runsInSQL(ands))
    #expect(try table.ids(ands) == table.expectedIDs(ands))
    let counts = Array(0..<300_000)
    let inList = #Predicate<Item> { counts.contains($0.count) }
    #expect(try table.runsInSQL(inList))
    #expect(try table.ids(inList) == table.expectedIDs(inList))
    let names = (0..<50_000).map { "name \($0)" } + ["caf\u{E9}", "\u{212A}elvin"]
    let nameList = #Predicate<Item> { names.contains($0.name) }
    #expect(try table.ids(nameList) == table.expectedIDs(nameList))
    #expect(try table.ids(nameList) == [3, 4, 5])
  }

  @Test(arguments: TestEngine.enabled)
  func nestedFlatMapsSelectAsInSwift(_ engine: TestEngine) throws {
    let table = try ItemTable(engine, sampleItems)
    let nested = nestedFlatMaps()
    #expect(try table.ids(nested) == table.expectedIDs(nested))
    #expect(try table.ids(nested) == [1])
  }

  @Test func nestedFlatMapsStaySmallInTheSQLiteDialect() throws {
    // Before: each `flatMap` level copied the wrapped SQL into every use: 12 levels made 14 MB.
    let query = try translated(nestedFlatMaps())
    #expect((query.whereClause?.utf8.count ?? 0) < 100_000)
  }

  @Test(arguments: TestEngine.enabled)
  func unsavedModelsWithTheSameUniqueValueAreSeenAsTheSaveStoresThem(_ engine: TestEngine) throws {
    // Before: two unsaved inserts with one unique name counted 2 before the save, 1 after.
    let store = try freshStore(engine, sqlite: .file("exact.sqlite"))
    let context = ModelContext(try container(store))
    try context.insert(Reading(id: 1, name: "stored", value: 1))
    try context.save()
    try context.insert(Reading(id: 2, name: "Jos\u{E9}", value: 2))
    try context.insert(Reading(id: 3, name: "Jose\u{301}", value: 3))
    try context.insert(Reading(id: 4, name: "stored", value: 4))
    try context.insert(Reading(id: 5, name: "other", value: 5))
    let all = FetchDescriptor<Reading>()
    let high = FetchDescriptor<Reading>(predicate: #Predicate { $0.value >= 3 })
    let before = (
      count: try context.fetchCount(all), values: try context.fetch(all).map(\.value).sorted(),
      high: try context.fetchCount(high)
    )
    try context.save()
    let after = (
      count: try context.fetchCount(all), values: try context.fetch(all).map(\.value).sorted(),
      high: try context.fetchCount(high)
    )
    #expect(before.count == after.count)
    #expect(before.values == after.values)
    #expect(before.high == after.high)
    #expect(after.values == [3, 4, 5])
  }

  @Test(arguments: TestEngine.enabled)
  func dumpShowsTheStoredDate(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("exact.sqlite"))
    do {
      let context = ModelContext(try container(store))
      try context.insert(
        Reading(id: 1, name: "a", date: Date(timeIntervalSince1970: 1_764_500_000.25)))
      try context.save()
    }
    let dump = try store.inspector().dump(model: "Reading")
    let column = try #require(dump.columns.firstIndex(of: "date"))
    #expect(dump.rows.first?[column] == .text("2025-11-30T10:53:20.250Z"))
  }

  @Test func sqlInErrorsIsShortened() throws {
    let error = SQLiteError(
      code: .error, extendedCode: 1, message: "too big",
      sql: "SELECT " + String(repeating: "1 + ", count: 100_000) + "1")
    #expect(error.description.count < 500)
  }
}

/// `lhs || rhs` for type-erased Boolean expressions.
private func or(
  _ lhs: any StandardPredicateExpression<Bool>, _ rhs: any StandardPredicateExpression<Bool>
) -> any StandardPredicateExpression<Bool> {
  func open<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(
    _ lhs: L, _ rhs: R
  ) -> any StandardPredicateExpression<Bool> {
    PredicateExpressions.build_Disjunction(lhs: lhs, rhs: rhs)
  }
  return open(lhs, rhs)
}

/// `lhs && rhs` for type-erased Boolean expressions.
private func and(
  _ lhs: any StandardPredicateExpression<Bool>, _ rhs: any StandardPredicateExpression<Bool>
) -> any StandardPredicateExpression<Bool> {
  func open<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(
    _ lhs: L, _ rhs: R
  ) -> any StandardPredicateExpression<Bool> {
    PredicateExpressions.build_Conjunction(lhs: lhs, rhs: rhs)
  }
  return open(lhs, rhs)
}

/// `rank` doubled through 12 nested `flatMap`s, compared with 4096.
private func nestedFlatMaps() -> Predicate<Item> {
  Predicate<Item> { item in
    var rank: any StandardPredicateExpression<Int?> = PredicateExpressions.build_KeyPath(
      root: item, keyPath: \.rank)
    for _ in 0..<12 { rank = doubled(rank) }
    return equals(rank, 4096)
  }
}

/// `value.flatMap { $0 + $0 }` for a type-erased optional integer.
private func doubled(_ value: any StandardPredicateExpression<Int?>)
  -> any StandardPredicateExpression<Int?>
{
  func open<Wrapped: StandardPredicateExpression<Int?>>(_ value: Wrapped)
    -> any StandardPredicateExpression<Int?>
  {
    PredicateExpressions.build_flatMap(value) { variable in
      PredicateExpressions.build_Arithmetic(lhs: variable, rhs: variable, op: .add)
    }
  }
  return open(value)
}

/// `value == constant` for a type-erased optional integer.
private func equals(_ value: any StandardPredicateExpression<Int?>, _ constant: Int?)
  -> any StandardPredicateExpression<Bool>
{
  func open<Wrapped: StandardPredicateExpression<Int?>>(_ value: Wrapped)
    -> any StandardPredicateExpression<Bool>
  {
    PredicateExpressions.build_Equal(lhs: value, rhs: PredicateExpressions.build_Arg(constant))
  }
  return open(value)
}
