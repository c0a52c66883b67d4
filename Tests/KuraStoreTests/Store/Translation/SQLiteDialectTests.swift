import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

@Suite("SQLite dialect and Swift string SQL")
struct SQLiteDialectTests {
  @Test func quotesIdentifiersAndEscapesLikePatterns() {
    let dialect = SQLiteDialect()
    #expect(dialect.quoteIdentifier(#"first "name""#) == #""first ""name""""#)
    #expect(dialect.quoteIdentifier("plain") == #""plain""#)
    #expect(dialect.quoteIdentifier("") == #""""#)
    #expect(dialect.quoteIdentifier(#"""#) == #""""""#)
    // A quote followed by a combining mark is one character; its quote is still doubled.
    #expect(dialect.quoteIdentifier("a\"\u{301}b") == "\"a\"\"\u{301}b\"")
    #expect(dialect.placeholder(3) == "?")
    #expect(dialect.escapeLikePattern(#"50%_a\b"#) == #"50\%\_a\\b"#)
    #expect(dialect.likeEscapeClause == #" ESCAPE '\'"#)
    #expect(dialect.booleanLiteral(true) == "1")
    #expect(dialect.booleanLiteral(false) == "0")
  }

  /// SQLite reads every quoted identifier back as the name it quoted: a table made under it
  /// lists that name.
  @Test func quotedIdentifiersNameWhatTheyQuote() throws {
    let connection = try Connection(path: ":memory:")
    let names = [#"a"b"#, #"""#, "a\"\u{301}b", #"x"; DROP TABLE t; --"#, "日本\"語", "plain"]
    for (index, name) in names.enumerated() {
      try connection.execute("CREATE TABLE \(quoteIdentifier(name)) (id INTEGER)")
      let listed = try connection.query(
        "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rowid"
      ) { $0.string(at: 0) }
      #expect(listed.count == index + 1)
      #expect(listed.last == name)
    }
  }

  @Test func likeEscapingMatchesLiterally() throws {
    let connection = try Connection(path: ":memory:")
    let dialect = SQLiteDialect()
    let pattern = "%" + dialect.escapeLikePattern(#"5%_\"#) + "%"
    let sql = "SELECT ? LIKE ?" + dialect.likeEscapeClause
    let matches = try connection.queryFirst(sql, [.text(#"a5%_\b"#), .text(pattern)]) {
      $0.int64(at: 0)
    }
    let misses = try connection.queryFirst(sql, [.text("a5xx\\b"), .text(pattern)]) {
      $0.int64(at: 0)
    }
    #expect(matches == 1)
    #expect(misses == 0)
  }

  @Test func collationOrdersAndComparesLikeSwift() throws {
    let connection = try Connection(path: ":memory:")
    let pairs: [(String, String)] = [
      ("\u{E9}", "e\u{301}"), ("K", "\u{212A}"), ("\u{3A9}", "\u{2126}"), ("a", "b"),
      ("B", "a"), ("", "a"), ("ab", "a"), ("\u{C5}", "A\u{30A}"), ("\u{212B}", "\u{C5}"),
      ("z", "\u{E9}"), ("\u{1F1EF}\u{1F1F5}", "\u{1F1EF}"), ("a\r\nb", "a\rb"), ("\u{DF}", "ss"),
    ]
    let sql = "SELECT ? = ? COLLATE kura_unicode, ? < ? COLLATE kura_unicode"
    for (left, right) in pairs {
      let row = try connection.queryFirst(
        sql, [.text(left), .text(right), .text(left), .text(right)]
      ) { [$0.int64(at: 0), $0.int64(at: 1)] }
      #expect(row == [left == right ? 1 : 0, left < right ? 1 : 0], "\(left) vs \(right)")
    }
  }

  @Test func collationAgreesWithSwiftOnRandomCanonicalEquivalents() throws {
    // Combining marks in either order (canonical reordering), precomposed and decomposed forms,
    // Hangul syllables and jamo, singletons (Kelvin, Ohm, Angstrom signs).
    let pieces = [
      "a", "A", "e", "K", "z", "\u{E9}", "\u{E1}", "\u{301}", "\u{327}", "\u{323}", "\u{212A}",
      "\u{2126}", "\u{3A9}", "\u{212B}", "\u{C5}", "\u{30A}", "\u{AC00}", "\u{1100}", "\u{1161}",
      "\u{1E0B}", "d", "\u{307}", "\r", "\n", "",
    ]
    var random = SeededGenerator(seed: 42)
    func text() -> String {
      (0..<Int.random(in: 0...4, using: &random)).map { _ in
        pieces.randomElement(using: &random) ?? ""
      }.joined()
    }
    let connection = try Connection(path: ":memory:")
    let sql = "SELECT ? = ? COLLATE kura_unicode, ? < ? COLLATE kura_unicode"
    var equalButDifferentBytes = 0
    for _ in 0..<3_000 {
      let left = text()
      let right = text()
      let row = try connection.queryFirst(
        sql, [.text(left), .text(right), .text(left), .text(right)]
      ) { [$0.int64(at: 0), $0.int64(at: 1)] }
      #expect(row == [left == right ? 1 : 0, left < right ? 1 : 0], "\(left) vs \(right)")
      if left == right && Array(left.utf8) != Array(right.utf8) { equalButDifferentBytes += 1 }
    }
    #expect(equalButDifferentBytes > 0)
  }

  @Test func containsAndStartsWithMatchCharacters() throws {
    let connection = try Connection(path: ":memory:")
    let cases: [(String, String)] = [
      ("cafe\u{301}", "cafe"), ("caf\u{E9}", "e\u{301}"), ("a\r\nb", "\r"), ("abc", ""),
      ("", ""), ("", "a"), ("\u{1F1EF}\u{1F1F5}", "\u{1F1EF}"), ("Kelvin", "\u{212A}"),
      ("ABC", "b"), ("abc", "bc"),
    ]
    for (text, other) in cases {
      let row = try connection.queryFirst(
        "SELECT kura_contains(?, ?), kura_starts_with(?, ?)",
        [.text(text), .text(other), .text(text), .text(other)]
      ) { [$0.int64(at: 0), $0.int64(at: 1)] }
      // The reference is the predicate's own evaluation (Character-based; Foundation's
      // `String.contains` outside a predicate differs, e.g. on the empty string).
      let contains = try #Predicate<String> { $0.contains(other) }.evaluate(text)
      let startsWith = try #Predicate<String> { $0.starts(with: other) }.evaluate(text)
      #expect(row == [contains ? 1 : 0, startsWith ? 1 : 0], "\(text) / \(other)")
    }
    let nulls = try connection.queryFirst(
      "SELECT kura_contains(NULL, 'a') IS NULL, kura_starts_with('a', NULL) IS NULL"
    ) { [$0.int64(at: 0), $0.int64(at: 1)] }
    #expect(nulls == [1, 1])
  }
}

@Suite("Translated SQL and indexes")
struct TranslatedIndexTests {
  @Test func textConditionsUseAnIndexWithTheSwiftCollation() throws {
    let connection = try ItemTable(.sqlite, sampleItems).connection
    try connection.execute(#"CREATE INDEX item_name ON item ("name" COLLATE kura_unicode)"#)
    try connection.execute(#"CREATE INDEX item_count ON item ("count")"#)
    let names = ["B", "Harry"]
    let predicates = [
      #Predicate<Item> { $0.name == "Harry" }, #Predicate<Item> { names.contains($0.name) },
      #Predicate<Item> { ("A"..."C").contains($0.name) }, #Predicate<Item> { $0.name < "C" },
      #Predicate<Item> { $0.count == 3 }, #Predicate<Item> { (1..<4).contains($0.count) },
    ]
    for predicate in predicates {
      let query = try translated(predicate)
      let sql = "EXPLAIN QUERY PLAN SELECT id FROM item WHERE " + (query.whereClause ?? "")
      let plan = try connection.query(sql, query.arguments) { $0.string(at: 3) }
      #expect(plan.contains { $0.contains("USING INDEX") }, "\(plan)")
    }
  }
}

/// A dialect with numbered placeholders and no Swift string semantics, as a PostgreSQL dialect
/// without Kura's functions would be.
private struct NumberedDialect: SQLDialect {
  func quoteIdentifier(_ name: String) -> String { "\"\(name)\"" }
  func placeholder(_ index: Int) -> String { "$\(index)" }
  func escapeLikePattern(_ text: String) -> String { text }
  var likeEscapeClause: String { "" }
  func booleanLiteral(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }
  func swiftStringComparable(_ expression: String) -> String? { nil }
  func stringContains(_ text: String, _ other: String) -> String? { nil }
  func stringStartsWith(_ text: String, _ prefix: String) -> String? { nil }
}

@Suite("Translation through another dialect")
struct OtherDialectTests {
  @Test func placeholdersAreNumberedAndTextRunsInMemory() throws {
    let ranks: [Int?] = [1, nil]
    let descriptor = FetchDescriptor<Item>(
      predicate: #Predicate<Item> {
        (0..<5).contains($0.count) && ranks.contains($0.rank) && $0.name == "B"
      },
      sortBy: [SortDescriptor(\.count), SortDescriptor(\.name)], fetchLimit: 3)
    let query = try translate(descriptor, schema: Item.schema, dialect: NumberedDialect())
    #expect(
      query.whereClause
        == #"(("count" >= $1) AND ("count" < $2)) AND (("rank" IN ($3)) OR "rank" IS NULL)"#)
    #expect(query.arguments == [.integer(0), .integer(5), .integer(1)])
    #expect(query.sortsInMemory)
    #expect(
      query.fallbackDescription
        == "Filtered in memory: `==` on text has no exact form in this SQL dialect; sorted in"
        + " memory: sorting text has no exact form in this SQL dialect")
    let statement = query.selectStatement(columns: "*", table: "item", dialect: NumberedDialect())
    #expect(
      statement.sql
        == #"SELECT * FROM "item" WHERE (("count" >= $1) AND ("count" < $2)) AND (("rank" IN ($3)) OR "rank" IS NULL)"#
    )
    #expect(statement.arguments == [.integer(0), .integer(5), .integer(1)])
  }
}
