import Foundation
import Testing

@testable import Kura

/// The model the translation tests query: one property per kind of column.
struct Item: PersistentModel, Equatable {
  enum Color: String, Codable, Sendable { case red, green, blue }
  enum Level: Int, Codable, Sendable { case low = 1, high = 2 }
  struct Note: Codable, Sendable, Equatable { var text: String }

  var id: Int
  var count: Int = 0
  var score: Double = 0
  var ratio: Float = 0
  var name: String = ""
  var nickname: String? = nil
  var rank: Int? = nil
  var weight: Double? = nil
  var isActive: Bool = false
  var flag: Bool? = nil
  var createdAt: Date = Date(timeIntervalSince1970: 0)
  var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
  var link: URL? = nil
  var color: Color = .red
  var level: Level? = nil
  var payload: Data = Data()
  var tags: [String] = []
  var note: Note? = nil
}

extension Item {
  /// The schema the store would derive for `Item`.
  static var schema: ModelSchema {
    ModelSchema(
      tableName: "item",
      columns: [
        ColumnSchema(name: "id", keyPath: \Item.id, kind: .integer, isOptional: false),
        ColumnSchema(name: "count", keyPath: \Item.count, kind: .integer, isOptional: false),
        ColumnSchema(name: "score", keyPath: \Item.score, kind: .real, isOptional: false),
        ColumnSchema(name: "ratio", keyPath: \Item.ratio, kind: .real, isOptional: false),
        ColumnSchema(name: "name", keyPath: \Item.name, kind: .text, isOptional: false),
        ColumnSchema(name: "nickname", keyPath: \Item.nickname, kind: .text, isOptional: true),
        ColumnSchema(name: "rank", keyPath: \Item.rank, kind: .integer, isOptional: true),
        ColumnSchema(name: "weight", keyPath: \Item.weight, kind: .real, isOptional: true),
        ColumnSchema(name: "isActive", keyPath: \Item.isActive, kind: .bool, isOptional: false),
        ColumnSchema(name: "flag", keyPath: \Item.flag, kind: .bool, isOptional: true),
        ColumnSchema(name: "createdAt", keyPath: \Item.createdAt, kind: .date, isOptional: false),
        ColumnSchema(name: "uuid", keyPath: \Item.uuid, kind: .uuid, isOptional: false),
        ColumnSchema(name: "link", keyPath: \Item.link, kind: .url, isOptional: true),
        ColumnSchema(name: "color", keyPath: \Item.color, kind: .text, isOptional: false),
        ColumnSchema(name: "level", keyPath: \Item.level, kind: .integer, isOptional: true),
        ColumnSchema(name: "payload", keyPath: \Item.payload, kind: .blob, isOptional: false),
        ColumnSchema(name: "tags", keyPath: \Item.tags, kind: .json, isOptional: false),
        ColumnSchema(name: "note", keyPath: \Item.note, kind: .json, isOptional: true),
      ])
  }
}

/// A real SQLite table of `Item`s, written with the store's value mapping, to run translated
/// queries against and compare with `Predicate.evaluate`.
final class ItemTable {
  let connection: Connection
  private(set) var items: [Item] = []

  init(_ items: [Item] = []) throws {
    connection = try Connection(path: ":memory:")
    let columns = Item.schema.columns.map { column in
      "\"\(column.name)\" \(Self.sqlType(column.kind))\(column.isOptional ? "" : " NOT NULL")"
    }
    try connection.execute("CREATE TABLE item (\(columns.joined(separator: ", ")))")
    try replace(with: items)
  }

  /// Replaces every row with `items`.
  func replace(with items: [Item]) throws {
    self.items = items
    let names = Item.schema.columns.map { "\"\($0.name)\"" }.joined(separator: ", ")
    let marks = Array(repeating: "?", count: Item.schema.columns.count).joined(separator: ", ")
    try connection.transaction {
      try connection.run("DELETE FROM item")
      for item in items {
        let values = try Item.schema.columns.map { column in
          try #require(sqliteValue(for: item[keyPath: column.keyPath] as Any, kind: column.kind))
        }
        try connection.run("INSERT INTO item (\(names)) VALUES (\(marks))", values)
      }
    }
  }

  /// Runs `descriptor` through the translator and SQLite, finishing in memory as the store does.
  func fetch(_ descriptor: FetchDescriptor<Item>) throws -> [Item] {
    let query = try translate(descriptor, schema: Item.schema, dialect: SQLiteDialect())
    let statement = query.selectStatement(
      columns: "\"id\"", table: "item", dialect: SQLiteDialect())
    let ids = try connection.query(statement.sql, statement.arguments) { $0.int64(at: 0) }
    let byID = Dictionary(uniqueKeysWithValues: items.map { (Int64($0.id), $0) })
    return try query.finish(ids.compactMap { byID[$0] })
  }

  /// The ids the translated predicate selects, in id order.
  func ids(_ predicate: Predicate<Item>) throws -> [Int] {
    try fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.id)])).map(\.id)
  }

  /// The ids `predicate.evaluate` selects, in id order.
  func expectedIDs(_ predicate: Predicate<Item>) throws -> [Int] {
    try items.filter { try predicate.evaluate($0) }.map(\.id).sorted()
  }

  private static func sqlType(_ kind: ColumnKind) -> String {
    switch kind {
    case .integer, .bool: return "INTEGER"
    case .real, .date: return "REAL"
    case .text, .uuid, .url, .json: return "TEXT"
    case .blob: return "BLOB"
    }
  }
}

/// The SQL and arguments of `predicate`'s translation.
func translated(_ predicate: Predicate<Item>) throws -> TranslatedQuery<Item> {
  try translate(
    FetchDescriptor(predicate: predicate), schema: Item.schema, dialect: SQLiteDialect())
}

/// Rows covering the edge cases of every column: nil, empty and non-normalized text, negative
/// numbers, NaN, both Bool values.
let sampleItems: [Item] = [
  Item(
    id: 1, count: 3, score: 1.5, ratio: 0.5, name: "Harry", nickname: "H", rank: 1, weight: 2.5,
    isActive: true, flag: true, createdAt: Date(timeIntervalSince1970: 1_000),
    uuid: UUID(uuid: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)),
    link: URL(string: "https://example.com/a"), color: .green, level: .high,
    payload: Data([1, 2]), tags: ["a"], note: Item.Note(text: "first")),
  Item(
    id: 2, count: -4, score: -2.25, ratio: -1, name: "", nickname: nil, rank: nil, weight: nil,
    isActive: false, flag: nil, createdAt: Date(timeIntervalSince1970: -500),
    link: nil, color: .red, level: nil, payload: Data()),
  Item(
    id: 3, count: 0, score: .infinity, ratio: 2, name: "caf\u{E9}", nickname: "",
    rank: 0, weight: -1, isActive: true, flag: false,
    createdAt: Date(timeIntervalSince1970: 2_000),
    uuid: UUID(uuid: (0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), color: .blue,
    level: .low, tags: ["b", "c"]),
  Item(
    id: 4, count: 7, score: 10, ratio: 0.1, name: "cafe\u{301}", nickname: "Ron", rank: 5,
    weight: 0, isActive: false, flag: true, createdAt: Date(timeIntervalSince1970: 1_000),
    link: URL(string: "https://example.com/b"), color: .green),
  Item(id: 5, count: 3, score: 0, name: "\u{212A}elvin", nickname: "Kelvin", rank: -2),
  Item(id: 6, count: 12, score: 3, name: "a\r\nb", nickname: "\u{E9}", rank: 5, weight: 7),
  Item(id: 7, count: -1, score: -0.0, name: "Luna Lovegood", nickname: "e\u{301}", rank: 2),
  Item(id: 8, count: 100, score: 1e300, name: "B", rank: 3, isActive: true, flag: false),
]

/// Checks that `predicate` translates to `sql` with `arguments`, needs no in-memory part, and
/// selects exactly the rows `predicate.evaluate` selects in a real table.
func expectSQL(
  _ predicate: Predicate<Item>, _ sql: String, _ arguments: [SQLiteValue],
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let query = try translated(predicate)
  #expect(query.whereClause == sql, sourceLocation: sourceLocation)
  #expect(query.arguments == arguments, sourceLocation: sourceLocation)
  #expect(query.residual == nil, sourceLocation: sourceLocation)
  #expect(query.fallbackDescription == nil, sourceLocation: sourceLocation)
  let table = try ItemTable(sampleItems)
  #expect(
    try table.ids(predicate) == table.expectedIDs(predicate), sourceLocation: sourceLocation)
}

/// Checks that `predicate` runs (partly) in memory for `reason`, with `sql` left in SQL, and
/// still selects exactly the rows `predicate.evaluate` selects.
func expectFallback(
  _ predicate: Predicate<Item>, sql: String?, reason: String, rows: [Item] = sampleItems,
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let query = try translated(predicate)
  #expect(query.whereClause == sql, sourceLocation: sourceLocation)
  #expect(query.residual != nil, sourceLocation: sourceLocation)
  #expect(
    query.fallbackDescription == "Filtered in memory: " + reason, sourceLocation: sourceLocation)
  let table = try ItemTable(rows)
  #expect(
    try table.ids(predicate) == table.expectedIDs(predicate), sourceLocation: sourceLocation)
}
