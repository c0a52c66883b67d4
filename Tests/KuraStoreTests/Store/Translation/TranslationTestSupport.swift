import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
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

/// `Item`s to run queries against and compare with `Predicate.evaluate`, on one engine. On
/// SQLite: a real table written with the store's value mapping, queried with the SQLite
/// dialect's translation (the unit check of that translation). On any other engine: a model store
/// queried through `ModelContext` (the SQL is the engine's own).
final class ItemTable {
  private enum Backing {
    case sqlite(Connection)
    case store(TestStore, ModelContext)
  }

  private let backing: Backing
  private(set) var items: [Item] = []

  init(_ engine: TestEngine, _ items: [Item] = [], _ testName: String = #function) throws {
    switch engine {
    case .sqlite:
      let connection = try Connection(path: ":memory:")
      let columns = Item.schema.columns.map { column in
        "\"\(column.name)\" \(Self.sqlType(column.kind))\(column.isOptional ? "" : " NOT NULL")"
      }
      try connection.execute("CREATE TABLE item (\(columns.joined(separator: ", ")))")
      backing = .sqlite(connection)
    case .postgres:
      let store = try freshStore(engine, testName)
      backing = .store(
        store, ModelContext(try ModelContainer(for: Item.self, configurations: store.configuration))
      )
    }
    try replace(with: items)
  }

  /// The SQLite table's connection (the SQLite dialect tests add indexes to it).
  var connection: Connection {
    get throws {
      guard case .sqlite(let connection) = backing else {
        throw TestStoreUnavailable(description: "not an SQLite table")
      }
      return connection
    }
  }

  /// Replaces every row with `items`.
  func replace(with items: [Item]) throws {
    self.items = items
    switch backing {
    case .sqlite(let connection):
      let names = Item.schema.columns.map { "\"\($0.name)\"" }.joined(separator: ", ")
      let marks = Array(repeating: "?", count: Item.schema.columns.count).joined(separator: ", ")
      try connection.transaction {
        try connection.run("DELETE FROM item")
        for item in items {
          let values = try Item.schema.columns.map { column in
            try #require(
              databaseValue(for: item[keyPath: column.keyPath] as Any, kind: column.kind))
          }
          try connection.run("INSERT INTO item (\(names)) VALUES (\(marks))", values)
        }
      }
    case .store(_, let context):
      try context.delete(model: Item.self)
      for item in items { try context.insert(item) }
      try context.save()
    }
  }

  /// Runs `descriptor`: on SQLite through the translator and SQLite, finishing in memory as the
  /// store does; otherwise through the store.
  func fetch(_ descriptor: FetchDescriptor<Item>) throws -> [Item] {
    switch backing {
    case .sqlite(let connection):
      let query = try translate(descriptor, schema: Item.schema, dialect: SQLiteDialect())
      let statement = query.selectStatement(
        columns: "\"id\"", table: "item", dialect: SQLiteDialect())
      let ids = try connection.query(statement.sql, statement.arguments) { $0.int64(at: 0) }
      let byID = Dictionary(uniqueKeysWithValues: items.map { (Int64($0.id), $0) })
      return try query.finish(ids.compactMap { byID[$0] })
    case .store(_, let context):
      return try context.fetch(descriptor)
    }
  }

  /// Runs `descriptor` as ``fetch(_:)`` does, and says whether it ran wholly in SQL (no part of
  /// the predicate or sort in memory).
  func fetchSayingWhetherInSQL(_ descriptor: FetchDescriptor<Item>) throws
    -> (items: [Item], inSQLOnly: Bool)
  {
    switch backing {
    case .sqlite:
      let query = try translate(descriptor, schema: Item.schema, dialect: SQLiteDialect())
      return (try fetch(descriptor), query.residual == nil && !query.sortsInMemory)
    case .store(_, let context):
      let result = try context.fetchResult(descriptor)
      return (result.models, result.inMemoryFallback == nil)
    }
  }

  /// Whether `predicate` runs wholly in SQL, with no part in memory.
  func runsInSQL(_ predicate: Predicate<Item>) throws -> Bool {
    switch backing {
    case .sqlite: return try translated(predicate).residual == nil
    case .store(_, let context):
      return try context.fetchResult(FetchDescriptor(predicate: predicate)).inMemoryFallback == nil
    }
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

/// Checks that `predicate` translates to `sql` with `arguments` and needs no in-memory part (the
/// SQLite dialect's translation, checked on SQLite), and selects exactly the rows
/// `predicate.evaluate` selects on `engine`.
func expectSQL(
  _ engine: TestEngine, _ predicate: Predicate<Item>, _ sql: String, _ arguments: [DatabaseValue],
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let table = try ItemTable(engine, sampleItems)
  if engine == .sqlite {
    let query = try translated(predicate)
    #expect(query.whereClause == sql, sourceLocation: sourceLocation)
    #expect(query.arguments == arguments, sourceLocation: sourceLocation)
    #expect(query.residual == nil, sourceLocation: sourceLocation)
    #expect(query.fallbackDescription == nil, sourceLocation: sourceLocation)
  }
  #expect(
    try table.ids(predicate) == table.expectedIDs(predicate), sourceLocation: sourceLocation)
}

/// Checks that `predicate` runs (partly) in memory for `reason`, with `sql` left in SQL (the
/// SQLite dialect's translation, checked on SQLite), and still selects exactly the rows
/// `predicate.evaluate` selects on `engine`.
func expectFallback(
  _ engine: TestEngine, _ predicate: Predicate<Item>, sql: String?, reason: String,
  rows: [Item] = sampleItems, sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let table = try ItemTable(engine, rows)
  if engine == .sqlite {
    let query = try translated(predicate)
    #expect(query.whereClause == sql, sourceLocation: sourceLocation)
    #expect(query.residual != nil, sourceLocation: sourceLocation)
    #expect(
      query.fallbackDescription == "Filtered in memory: " + reason, sourceLocation: sourceLocation)
  }
  #expect(
    try table.ids(predicate) == table.expectedIDs(predicate), sourceLocation: sourceLocation)
}
