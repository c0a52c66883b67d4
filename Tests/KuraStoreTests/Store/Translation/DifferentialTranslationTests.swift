import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

/// Text that tells byte comparison from Swift's: canonical equivalents (é, K/Kelvin sign, Ω/Ohm
/// sign, Å/Angstrom sign), combining marks, CR LF, flags, LIKE wildcards, case pairs, empty text.
private let texts = [
  "", "a", "A", "ab", "abc", "b", "B", "\u{E9}", "e\u{301}", "e", "caf\u{E9}", "cafe\u{301}",
  "cafe", "K", "\u{212A}", "Kelvin", "\u{212A}elvin", "a\r\nb", "\r", "\n", "\u{1F1EF}\u{1F1F5}",
  "\u{1F1EF}", "日本", "日", "na\u{EF}ve", "x y", "%", "_", "a%b", "\u{DF}", "ss", "\u{3A9}",
  "\u{2126}", "\u{C5}", "\u{212B}", "A\u{30A}", "z", "Z", "-1", "0",
]
private let doubles: [Double] = [
  -2.5, -1, -0.0, 0, 0.5, 1, 3.25, 1e10, -1e-3, .infinity, -.infinity,
]

private func randomItem(id: Int, _ random: inout SeededGenerator) -> Item {
  func maybe<T>(_ value: @autoclosure () -> T) -> T? {
    Int.random(in: 0..<10, using: &random) < 3 ? nil : value()
  }
  var item = Item(id: id)
  item.count =
    Int.random(in: 0..<10, using: &random) == 0
    ? Int.random(in: -1000...1000, using: &random) : Int.random(in: -5...5, using: &random)
  item.score = doubles.randomElement(using: &random) ?? 0
  item.ratio = Float(doubles.randomElement(using: &random) ?? 0)
  item.name = texts.randomElement(using: &random) ?? ""
  item.nickname = maybe(texts.randomElement(using: &random) ?? "")
  item.rank = maybe(Int.random(in: -3...5, using: &random))
  item.weight = maybe(doubles.randomElement(using: &random) ?? 0)
  item.isActive = Bool.random(using: &random)
  item.flag = maybe(Bool.random(using: &random))
  item.createdAt = Date(
    timeIntervalSince1970: Double(Int.random(in: -3...3, using: &random)) * 1000)
  item.color = [Item.Color.red, .green, .blue].randomElement(using: &random) ?? .red
  item.level = maybe(Bool.random(using: &random) ? Item.Level.low : .high)
  return item
}

/// One random predicate from a fixed set of templates, with random constants.
private func randomPredicate(_ random: inout SeededGenerator) -> Predicate<Item> {
  let c = Int.random(in: -5...5, using: &random)
  let k = [1, 2, 3, -2].randomElement(using: &random) ?? 1
  let d = doubles.randomElement(using: &random) ?? 0
  let s = texts.randomElement(using: &random) ?? ""
  let t = texts.randomElement(using: &random) ?? ""
  let r: Int? = Bool.random(using: &random) ? nil : Int.random(in: -3...5, using: &random)
  let b = Bool.random(using: &random)
  let o: String? = Bool.random(using: &random) ? nil : s
  switch Int.random(in: 0..<36, using: &random) {
  case 0: return #Predicate { $0.count == c }
  case 1: return #Predicate { $0.count != c }
  case 2: return #Predicate { $0.count < c }
  case 3: return #Predicate { $0.count >= c }
  case 4: return #Predicate { $0.name == s }
  case 5: return #Predicate { $0.name < s }
  case 6: return #Predicate { $0.name >= s || $0.name != t }
  case 7: return #Predicate { $0.name.contains(s) }
  case 8: return #Predicate { $0.name.starts(with: s) }
  case 9: return #Predicate { $0.nickname == o }
  case 10: return #Predicate { $0.nickname != o }
  case 11: return #Predicate { $0.rank == r }
  case 12: return #Predicate { $0.rank != r }
  case 13: return #Predicate { ($0.rank ?? c) > k }
  case 14: return #Predicate { $0.rank.flatMap { $0 * k } == r }
  case 15:
    let values = (0..<Int.random(in: 0...4, using: &random)).map { _ in
      Int.random(in: -5...5, using: &random)
    }
    return #Predicate { values.contains($0.count) }
  case 16:
    let names = [s, t]
    return #Predicate { !names.contains($0.name) }
  case 17:
    let ranks: [Int?] = [r, c]
    return #Predicate { ranks.contains($0.rank) }
  case 18:
    let range = min(c, k)...max(c, k)
    return #Predicate { range.contains($0.count) }
  case 19:
    let low = min(d, 1)
    return #Predicate { (low..<2.0).contains($0.score) }
  case 20:
    let range = min(s, t)...max(s, t)
    return #Predicate { range.contains($0.name) }
  case 21: return #Predicate { $0.isActive && $0.count > c || !($0.flag == b) }
  case 22: return #Predicate { ($0.isActive ? $0.count : -$0.count) >= c }
  case 23: return #Predicate { $0.score * 2 + d < 1 }
  case 24: return #Predicate { !($0.score - $0.score == 0) }
  case 25: return #Predicate { $0.count % k == c % 3 || $0.count / k == c }
  case 26: return #Predicate { $0.nickname.flatMap { $0.contains(s) } == true }
  case 27: return #Predicate { ($0.weight ?? d) <= 0.5 }
  case 28:
    let date = Date(timeIntervalSince1970: Double(c) * 1000)
    return #Predicate { $0.createdAt > date }
  case 29:
    let color = b ? Item.Color.red : .blue
    let level: Item.Level? = r == nil ? nil : .low
    return #Predicate { $0.color == color && $0.level != level }
  case 30: return #Predicate { $0.name.isEmpty || $0.nickname == nil }
  case 31: return #Predicate { $0.count > c && $0.name.count > 1 }
  case 32: return #Predicate { !$0.name.contains(s) && $0.score >= d }
  case 33:
    let half: Float = 0.5
    return #Predicate { $0.ratio < half || $0.weight != nil }
  case 34: return #Predicate { ($0.nickname ?? s).starts(with: t) }
  default: return #Predicate { $0.score / 2 > d && $0.name != s }
  }
}

private func randomSort(_ random: inout SeededGenerator) -> [SortDescriptor<Item>] {
  let pool: [SortDescriptor<Item>] = [
    SortDescriptor(\.name), SortDescriptor(\.name, order: .reverse), SortDescriptor(\.nickname),
    SortDescriptor(\.rank, order: .reverse), SortDescriptor(\.isActive),
    SortDescriptor(\.flag, order: .reverse), SortDescriptor(\.score), SortDescriptor(\.weight),
    SortDescriptor(\.createdAt, order: .reverse), SortDescriptor(\.count),
  ]
  let keys = (0..<Int.random(in: 0...2, using: &random)).compactMap { _ in
    pool.randomElement(using: &random)
  }
  return keys + [SortDescriptor(\.id)]
}

@Suite("Predicate translation: differential")
struct DifferentialTranslationTests {
  @Test(arguments: TestEngine.enabled)
  func sqlSelectsExactlyWhatEvaluateSelects(_ engine: TestEngine) throws {
    var random = SeededGenerator(seed: 20_261_130)
    let table = try ItemTable(engine)
    var pairs = 0
    var nonTrivial = 0
    var inSQLOnly = 0
    for _ in 0..<250 {
      let items = (1...20).map { randomItem(id: $0, &random) }
      try table.replace(with: items)
      for _ in 0..<40 {
        let predicate = randomPredicate(&random)
        let sortBy = randomSort(&random)
        let descriptor = FetchDescriptor(predicate: predicate, sortBy: sortBy)
        let (fetchedItems, ranInSQL) = try table.fetchSayingWhetherInSQL(descriptor)
        if ranInSQL { inSQLOnly += 1 }
        let fetched = fetchedItems.map(\.id)
        let expected = try items.filter { try predicate.evaluate($0) }.sorted(using: sortBy)
          .map(\.id)
        pairs += 1
        if !expected.isEmpty && expected.count < items.count { nonTrivial += 1 }
        if fetched != expected {
          // The SQL shown is the SQLite dialect's.
          let query = try translate(descriptor, schema: Item.schema, dialect: SQLiteDialect())
          let message =
            "\(predicate) sorted by \(sortBy.count) keys on \(engine): SQL `\(query.whereClause ?? "")`"
            + " ORDER BY `\(query.orderBy ?? "")` gave \(fetched), Swift gave \(expected)"
          Issue.record(Comment(rawValue: message))
          return
        }
      }
    }
    #expect(pairs == 10_000)
    #expect(nonTrivial > 6_000)
    #expect(inSQLOnly > 8_000)
  }
}
