import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

/// A text with an optional second text (for equality, ordering and optionals).
private struct Lexeme: PersistentModel, Equatable {
  var id: Int
  var text: String
  var note: String? = nil
}

/// A `Double` and an optional one (for NaN, ±0 and ±infinity).
private struct Gauge: PersistentModel, Equatable {
  var id: Int
  var value: Double
  var optionalValue: Double? = nil
}

/// Integers for arithmetic: a count, a divisor, and optionals.
private struct Tally: PersistentModel, Equatable {
  var id: Int
  var count: Int
  var divisor: Int = 1
  var rank: Int? = nil
  var flag: Bool? = nil
}

/// The ids `predicate` selects in the store (by id), checked against `fetchCount`.
private func storeIDs<Model: PersistentModel>(
  _ context: ModelContext, _ predicate: Predicate<Model>,
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> [Model.ID] where Model.ID: Comparable {
  let ids = try context.fetch(FetchDescriptor(predicate: predicate)).map(\.id).sorted()
  #expect(
    try context.fetchCount(FetchDescriptor(predicate: predicate)) == ids.count,
    sourceLocation: sourceLocation)
  return ids
}

/// The ids `predicate.evaluate` selects among `models`.
private func swiftIDs<Model: PersistentModel>(_ models: [Model], _ predicate: Predicate<Model>)
  throws -> [Model.ID] where Model.ID: Comparable
{
  try models.filter { try predicate.evaluate($0) }.map(\.id).sorted()
}

/// What the issue asks of every engine: `#Predicate` and `SortDescriptor` give Swift's results,
/// including text (canonical equivalence, Swift's `<`), NaN, ±0, ±infinity, optionals, integer
/// overflow and division.
@Suite("Swift semantics on every engine")
struct SwiftSemanticsTests {
  @Test(arguments: TestEngine.enabled)
  func composedAndDecomposedTextAreEqualInPredicates(_ engine: TestEngine) throws {
    let store = try freshStore(engine)
    let context = ModelContext(
      try ModelContainer(for: Lexeme.self, configurations: store.configuration))
    let composed = "caf\u{E9}"
    let decomposed = "cafe\u{301}"
    #expect(composed == decomposed)
    let rows = [
      Lexeme(id: 1, text: composed, note: decomposed), Lexeme(id: 2, text: decomposed),
      Lexeme(id: 3, text: "cafe", note: composed), Lexeme(id: 4, text: "CAF\u{C9}"),
      Lexeme(id: 5, text: "Caf\u{E9}"), Lexeme(id: 6, text: "caf"),
      Lexeme(id: 7, text: "cafe\u{301}s", note: "cafe"), Lexeme(id: 8, text: "cafe\u{300}"),
    ]
    for row in rows { try context.insert(row) }
    try context.save()
    // Both forms select both rows, whichever form the constant has.
    #expect(try storeIDs(context, #Predicate<Lexeme> { $0.text == composed }) == [1, 2])
    #expect(try storeIDs(context, #Predicate<Lexeme> { $0.text == decomposed }) == [1, 2])
    #expect(try storeIDs(context, #Predicate<Lexeme> { $0.note == composed }) == [1, 3])
    let forms = [decomposed]
    let predicates: [Predicate<Lexeme>] = [
      #Predicate { $0.text == composed }, #Predicate { $0.text != decomposed },
      #Predicate { $0.note == decomposed }, #Predicate { $0.note != composed },
      #Predicate { forms.contains($0.text) }, #Predicate { $0.text < decomposed },
      #Predicate { $0.text <= composed }, #Predicate { $0.text >= decomposed },
      #Predicate { $0.text > composed }, #Predicate { $0.text.starts(with: decomposed) },
      #Predicate { $0.text.starts(with: "caf\u{E9}") }, #Predicate { $0.text.contains("\u{E9}") },
      #Predicate { $0.text.contains("e") }, #Predicate { $0.text == $0.note ?? "" },
      #Predicate { ($0.note ?? composed) == decomposed },
    ]
    for (number, predicate) in predicates.enumerated() {
      #expect(
        try storeIDs(context, predicate) == swiftIDs(rows, predicate), "predicate \(number)")
    }
  }

  @Test(arguments: TestEngine.enabled)
  func textSortsAsSwiftsLessThan(_ engine: TestEngine) throws {
    let store = try freshStore(engine)
    let context = ModelContext(
      try ModelContainer(for: Lexeme.self, configurations: store.configuration))
    let texts = [
      "", " ", "!", "0", "9", "A", "B", "Z", "a", "b", "z", "aa", "aA", "Aa", "ab", "a b",
      "\u{C9}", "\u{E9}", "e\u{301}z", "e", "f", "\u{E4}", "a\u{308}b", "\u{C5}ngstr\u{F6}m",
      "\u{212B}", "\u{1E9E}", "\u{DF}", "\u{131}", "\u{3A9}", "\u{2126}", "\u{3C9}", "\u{AC00}",
      "\u{1100}\u{1161}", "\u{3042}", "\u{30A2}", "\u{304C}", "\u{304B}\u{3099}", "\u{4E00}",
      "\u{4E2D}", "\u{4EAC}\u{90FD}", "\u{6771}\u{4EAC}", "\u{65E5}\u{672C}", "\u{FA10}",
      "\u{1F600}", "\u{1F44D}", "\u{1F44D}\u{1F3FD}", "\u{2764}\u{FE0F}", "\u{1F1EF}\u{1F1F5}",
      "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", "\u{FFFD}", "\u{10FFFF}", "~",
    ]
    // Swift's `<` must order this set strictly (else the test, not the store, is wrong):
    // canonically equivalent texts are equal, and no two others are unordered.
    for a in texts {
      for b in texts {
        #expect(
          [a < b, b < a, a == b].filter { $0 }.count == 1,
          "\(a.debugDescription) \(b.debugDescription)")
      }
    }
    for (id, text) in texts.enumerated() {
      try context.insert(Lexeme(id: id, text: text, note: id.isMultiple(of: 3) ? nil : text))
    }
    try context.save()
    let rows = try context.fetch(FetchDescriptor<Lexeme>())
    let byText = { (a: Lexeme, b: Lexeme) in a.text != b.text ? a.text < b.text : a.id < b.id }
    let forward = try context.fetch(
      FetchDescriptor<Lexeme>(sortBy: [SortDescriptor(\.text), SortDescriptor(\.id)]))
    #expect(forward.map(\.id) == rows.sorted(by: byText).map(\.id))
    let reverse = try context.fetch(
      FetchDescriptor<Lexeme>(
        sortBy: [SortDescriptor(\.text, order: .reverse), SortDescriptor(\.id)]))
    #expect(
      reverse.map(\.id)
        == rows.sorted { a, b in a.text != b.text ? a.text > b.text : a.id < b.id }.map(\.id))
    // An optional text: nil first, then Swift's order.
    let notes = try context.fetch(
      FetchDescriptor<Lexeme>(sortBy: [SortDescriptor(\.note), SortDescriptor(\.id)]))
    let expectedNotes = rows.sorted { a, b in
      switch (a.note, b.note) {
      case (nil, nil): return a.id < b.id
      case (nil, _): return true
      case (_, nil): return false
      case (let x?, let y?): return x != y ? x < y : a.id < b.id
      }
    }
    #expect(notes.map(\.id) == expectedNotes.map(\.id))
    // Range predicates agree with the same order.
    for bound in ["a", "\u{E9}", "e\u{301}", "\u{4EAC}", "\u{1F44D}", ""] {
      let below = #Predicate<Lexeme> { $0.text < bound }
      let from = #Predicate<Lexeme> { $0.text >= bound }
      #expect(try storeIDs(context, below) == swiftIDs(rows, below), "< \(bound.debugDescription)")
      #expect(try storeIDs(context, from) == swiftIDs(rows, from), ">= \(bound.debugDescription)")
    }
    // Limits and offsets apply after the sort.
    let page = try context.fetch(
      FetchDescriptor<Lexeme>(
        sortBy: [SortDescriptor(\.text), SortDescriptor(\.id)], fetchLimit: 7, fetchOffset: 20))
    #expect(page.map(\.id) == Array(rows.sorted(by: byText).dropFirst(20).prefix(7)).map(\.id))
  }

  @Test(arguments: TestEngine.enabled)
  func nanZeroAndInfinitiesCompareAndSortAsInSwift(_ engine: TestEngine) throws {
    let store = try freshStore(engine)
    let context = ModelContext(
      try ModelContainer(for: Gauge.self, configurations: store.configuration))
    let values: [Double] = [
      .nan, -0.0, 0, .infinity, -.infinity, 1, -1, .greatestFiniteMagnitude,
      -.greatestFiniteMagnitude, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 0.1 + 0.2, 0.3,
    ]
    var rows: [Gauge] = []
    for (index, value) in values.enumerated() {
      rows.append(Gauge(id: index, value: value, optionalValue: value))
      rows.append(Gauge(id: 100 + index, value: value, optionalValue: nil))
    }
    for row in rows { try context.insert(row) }
    try context.save()
    let stored = try context.fetch(FetchDescriptor<Gauge>(sortBy: [SortDescriptor(\.id)]))
    #expect(
      stored.map(\.value.bitPattern) == rows.sorted { $0.id < $1.id }.map(\.value.bitPattern))
    let notANumber = Double.nan
    let infinity = Double.infinity
    let minusZero = -0.0
    let sum = 0.1 + 0.2
    let predicates: [Predicate<Gauge>] = [
      #Predicate { $0.value == 0 }, #Predicate { $0.value == minusZero },
      #Predicate { $0.value != 0 }, #Predicate { $0.value < 0 }, #Predicate { $0.value > 0 },
      #Predicate { $0.value <= minusZero }, #Predicate { $0.value == infinity },
      #Predicate { $0.value < infinity }, #Predicate { $0.value > -infinity },
      #Predicate { $0.value == notANumber }, #Predicate { $0.value != notANumber },
      #Predicate { $0.value < notANumber }, #Predicate { !($0.value >= notANumber) },
      #Predicate { $0.value != $0.value }, #Predicate { $0.value == $0.value },
      #Predicate { $0.value == 0.3 }, #Predicate { $0.value == sum },
      #Predicate { $0.value - $0.value == 0 }, #Predicate { $0.value * 0 != 0 },
      #Predicate { $0.value + infinity == infinity }, #Predicate { -$0.value < 0 },
      #Predicate { $0.value / 2 > 0 }, #Predicate { $0.optionalValue == nil },
      #Predicate { $0.optionalValue != nil }, #Predicate { $0.optionalValue == minusZero },
      #Predicate { $0.optionalValue != $0.optionalValue },
      #Predicate { ($0.optionalValue ?? notANumber) > 0 },
      #Predicate { ($0.optionalValue ?? 0) >= 0 },
      #Predicate { $0.optionalValue.flatMap { $0 - $0 } == 0 },
      #Predicate { $0.optionalValue.flatMap { $0 * 0 } == nil },
    ]
    for (number, predicate) in predicates.enumerated() {
      #expect(
        try storeIDs(context, predicate) == swiftIDs(rows, predicate), "predicate \(number)")
    }
    // Sorting: Swift's order for every number (-0.0 and 0.0 are equal, so the id decides);
    // NaN has no place in Swift's order and sorts with nil, first (last in reverse).
    let numbers = rows.filter { !$0.value.isNaN }
    let nanIDs = rows.filter { $0.value.isNaN }.map(\.id).sorted()
    let forward = try context.fetch(
      FetchDescriptor<Gauge>(sortBy: [SortDescriptor(\.value), SortDescriptor(\.id)]))
    let ascending = numbers.sorted { $0.value != $1.value ? $0.value < $1.value : $0.id < $1.id }
    #expect(forward.map(\.id) == nanIDs + ascending.map(\.id))
    let reverse = try context.fetch(
      FetchDescriptor<Gauge>(
        sortBy: [SortDescriptor(\.value, order: .reverse), SortDescriptor(\.id)]))
    let descending = numbers.sorted { $0.value != $1.value ? $0.value > $1.value : $0.id < $1.id }
    #expect(reverse.map(\.id) == descending.map(\.id) + nanIDs)
  }

  @Test(arguments: TestEngine.enabled)
  func integerArithmeticAndDivisionAreSwifts(_ engine: TestEngine) throws {
    let store = try freshStore(engine)
    let context = ModelContext(
      try ModelContainer(for: Tally.self, configurations: store.configuration))
    let rows = [
      Tally(id: 1, count: 7, divisor: 2, rank: 3, flag: true),
      Tally(id: 2, count: -7, divisor: 2, rank: nil, flag: false),
      Tally(id: 3, count: 7, divisor: -2, rank: -3, flag: nil),
      Tally(id: 4, count: -7, divisor: -2, rank: 0),
      Tally(id: 5, count: 0, divisor: 5, rank: 5, flag: true),
      Tally(id: 6, count: 1 << 40, divisor: 3, rank: 1 << 20),
      Tally(id: 7, count: -(1 << 40) - 1, divisor: 1 << 20, rank: nil, flag: false),
      Tally(id: 8, count: 4_611_686_018_427_387_903, divisor: 7, rank: 2),
    ]
    for row in rows { try context.insert(row) }
    try context.save()
    var predicates: [Predicate<Tally>] = [
      #Predicate { $0.count / $0.divisor == -3 }, #Predicate { $0.count % $0.divisor == -1 },
      #Predicate { $0.count % $0.divisor == 1 }, #Predicate { $0.count / 2 < 0 },
      #Predicate { $0.count % 3 == 2 }, #Predicate { -$0.count / $0.divisor > 0 },
    ]
    predicates.append(#Predicate<Tally> { $0.count * 2 - $0.count == $0.count })
    predicates.append(#Predicate<Tally> { $0.count + $0.count > 0 })
    predicates.append(#Predicate<Tally> { $0.count / $0.divisor * $0.divisor <= $0.count })
    predicates += [
      #Predicate { $0.rank == nil }, #Predicate { $0.rank != 3 }, #Predicate { $0.rank == 0 },
      #Predicate { ($0.rank ?? -1) < 0 }, #Predicate { $0.rank.flatMap { $0 * 2 } == 6 },
      #Predicate { $0.rank.flatMap { $0 % 2 } != 1 },
    ]
    predicates += [
      #Predicate { $0.flag == true }, #Predicate { $0.flag != true },
      #Predicate { $0.flag == nil }, #Predicate { !($0.flag ?? false) },
      #Predicate { $0.flag == false || $0.rank == nil },
    ]
    for (number, predicate) in predicates.enumerated() {
      #expect(
        try storeIDs(context, predicate) == swiftIDs(rows, predicate), "predicate \(number)")
    }
  }

  /// Integer overflow and division by zero stop a Swift program; in the store the row does not
  /// match ("Querying Models"), whichever way the condition is put, while every other row gets
  /// Swift's answer.
  @Test(arguments: TestEngine.enabled)
  func integerOverflowAndDivisionByZeroMatchNoRow(_ engine: TestEngine) throws {
    let store = try freshStore(engine)
    let context = ModelContext(
      try ModelContainer(for: Tally.self, configurations: store.configuration))
    let rows = [
      Tally(id: 1, count: .max, divisor: 0), Tally(id: 2, count: .max - 1, divisor: -1),
      Tally(id: 3, count: .min, divisor: -1), Tally(id: 4, count: .min + 1, divisor: 2),
      Tally(id: 5, count: 1 << 62, divisor: 1), Tally(id: 6, count: -1, divisor: 0),
      Tally(id: 7, count: 0, divisor: 3),
    ]
    for row in rows { try context.insert(row) }
    try context.save()
    /// The rows where `value` doesn't overflow and `condition` holds for its result.
    func expected(_ value: (Tally) -> (Int, overflow: Bool)?, _ condition: (Int) -> Bool) -> [Int] {
      rows.filter { row in
        guard let (result, overflow) = value(row), !overflow else { return false }
        return condition(result)
      }.map(\.id)
    }
    let plusOne = { (row: Tally) -> (Int, overflow: Bool)? in
      let (value, overflow) = row.count.addingReportingOverflow(1)
      return (value, overflow)
    }
    let doubled = { (row: Tally) -> (Int, overflow: Bool)? in
      let (value, overflow) = row.count.multipliedReportingOverflow(by: 2)
      return (value, overflow)
    }
    let minusOne = { (row: Tally) -> (Int, overflow: Bool)? in
      let (value, overflow) = row.count.subtractingReportingOverflow(1)
      return (value, overflow)
    }
    let negated = { (row: Tally) -> (Int, overflow: Bool)? in
      let (value, overflow) = Int(0).subtractingReportingOverflow(row.count)
      return (value, overflow)
    }
    let quotient = { (row: Tally) -> (Int, overflow: Bool)? in
      guard row.divisor != 0 else { return nil }
      let (value, overflow) = row.count.dividedReportingOverflow(by: row.divisor)
      return (value, overflow)
    }
    let remainder = { (row: Tally) -> (Int, overflow: Bool)? in
      guard row.divisor != 0 else { return nil }
      let (value, overflow) = row.count.remainderReportingOverflow(dividingBy: row.divisor)
      return (value, overflow)
    }
    let cases: [(String, Predicate<Tally>, [Int])] = [
      ("count + 1 > 0", #Predicate { $0.count + 1 > 0 }, expected(plusOne) { $0 > 0 }),
      ("!(count + 1 > 0)", #Predicate { !($0.count + 1 > 0) }, expected(plusOne) { !($0 > 0) }),
      ("count * 2 > 0", #Predicate { $0.count * 2 > 0 }, expected(doubled) { $0 > 0 }),
      ("count * 2 <= 0", #Predicate { $0.count * 2 <= 0 }, expected(doubled) { $0 <= 0 }),
      ("count - 1 < 0", #Predicate { $0.count - 1 < 0 }, expected(minusOne) { $0 < 0 }),
      ("-count > 0", #Predicate { -$0.count > 0 }, expected(negated) { $0 > 0 }),
      (
        "count / divisor > 0", #Predicate { $0.count / $0.divisor > 0 },
        expected(quotient) { $0 > 0 }
      ),
      (
        "count / divisor <= 0", #Predicate { $0.count / $0.divisor <= 0 },
        expected(quotient) { $0 <= 0 }
      ),
      (
        "count % divisor == 0", #Predicate { $0.count % $0.divisor == 0 },
        expected(remainder) { $0 == 0 }
      ),
      (
        "count % divisor != 0", #Predicate { $0.count % $0.divisor != 0 },
        expected(remainder) { $0 != 0 }
      ),
    ]
    for (name, predicate, ids) in cases {
      #expect(try storeIDs(context, predicate) == ids, "\(name)")
    }
  }
}
