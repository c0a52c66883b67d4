import Foundation

/// Creates a store's metadata and model tables when missing, and checks that existing tables
/// match the models (migrations are a later addition; until then a mismatch is an error).
///
/// The metadata lives in two tables: `kura_metadata` (`storeFormat`, `schemaVersion`) and
/// `kura_models` (per model: its table and its columns with their kinds).
struct StoreSetup {
  /// Creates the tables where a store records its format, schema version and models.
  static let metadataTablesSQL = """
    CREATE TABLE IF NOT EXISTS kura_metadata (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS kura_models (model TEXT NOT NULL PRIMARY KEY, \
    table_name TEXT NOT NULL, columns TEXT NOT NULL)
    """

  /// The store file, for messages.
  let url: URL?
  /// Declared references (foreign keys), search indexes and migration inputs.
  var graph = RelationshipGraph()
  /// How to migrate a store whose models changed (custom stages, progress).
  var migration: MigrationOptions? = nil

  /// The format of Kura's metadata tables.
  static let storeFormat = 2
  /// The schema version recorded for new stores (migrations will raise it).
  static let schemaVersion = 1

  /// A column as recorded in `kura_models`.
  struct StoredColumn: Codable, Equatable {
    var name: String
    var kind: String
    var optional: Bool
  }

  private var file: String { url.map { "`\($0.lastPathComponent)`" } ?? "in memory" }

  func prepare(_ pool: DatabasePool, schemas: [ModelSchema]) throws {
    do {
      // Foreign keys are off while a migration rebuilds tables (dropping a table must not run
      // its delete actions); `StoreMigrator` checks them before the transaction commits.
      try pool.writeWithoutTransaction { db in
        try db.execute("PRAGMA foreign_keys = OFF")
        defer { try? db.execute("PRAGMA foreign_keys = ON") }
        try db.transaction(.immediate) {
          try db.execute(StoreSetup.metadataTablesSQL)
          try db.run(
            "INSERT OR IGNORE INTO kura_metadata (key, value) VALUES ('storeFormat', ?), "
              + "('schemaVersion', ?)",
            [.text(String(Self.storeFormat)), .text(String(Self.schemaVersion))])
          try StoreFormatUpgrade.upgradeIfNeeded(db, url: url)
          let migrator = StoreMigrator(url: url, graph: graph, options: migration)
          let migrated = try migrator.migrate(db, schemas: schemas)
          for schema in schemas { try prepare(schema, in: db) }
          try StoreExtensions(graph: graph).prepare(db, schemas: schemas)
          if migrated { try migrator.checkForeignKeys(db) }
        }
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.wrapping(error, url: url, doing: "prepare")
    }
  }

  private func prepare(_ schema: ModelSchema, in db: Connection) throws {
    let exists =
      try db.queryFirst(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(schema.tableName)]
      ) { _ in true } ?? false
    if exists {
      try verify(schema, in: db)
    } else {
      try db.execute(createTableSQL(schema))
    }
    for (number, columns) in schema.uniqueConstraints.enumerated() {
      try db.execute(indexSQL(schema, columns: columns, unique: true, number: number))
    }
    for (number, columns) in schema.indexes.enumerated() {
      try db.execute(indexSQL(schema, columns: columns, unique: false, number: number))
    }
    let columns = schema.columns.map {
      StoredColumn(name: $0.name, kind: $0.kind.rawValue, optional: $0.isOptional)
    }
    let json = String(decoding: try JSONEncoder().encode(columns), as: UTF8.self)
    try db.run(
      "INSERT INTO kura_models (model, table_name, columns) VALUES (?, ?, ?) "
        + "ON CONFLICT (model) DO UPDATE SET table_name = excluded.table_name, "
        + "columns = excluded.columns",
      [.text(schema.modelName), .text(schema.tableName), .text(json)])
  }

  func createTableSQL(_ schema: ModelSchema) -> String {
    var definitions = schema.columns.map(\.definition)
    definitions[schema.primaryKeyIndex] += " PRIMARY KEY"
    definitions += graph.attributesByTable[schema.tableName]?.foreignKeyClauses ?? []
    return "CREATE TABLE \(schema.quotedTable) (\(definitions.joined(separator: ", ")))"
  }

  func indexSQL(_ schema: ModelSchema, columns: [Int], unique: Bool, number: Int) -> String {
    let names = columns.map { schema.columns[$0].name }
    let name = schema.tableName + (unique ? "_unique_" : "_index_") + names.joined(separator: "_")
    return "CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(quoteIdentifier(name)) ON "
      + "\(schema.quotedTable) (\(StoreSQL.indexedColumns(schema, columns)))"
  }

  /// Decodes the columns `kura_models` records for a model; unreadable text is a damaged store.
  static func recordedColumns(_ text: String, model: String, url: URL?, file: String) throws
    -> [StoredColumn]
  {
    do {
      return try JSONDecoder().decode([StoredColumn].self, from: Data(text.utf8))
    } catch {
      throw StoreError(
        .damaged, model: model, url: url,
        message:
          "Can't open store \(file): its record of model `\(model)` (table `kura_models`) is "
          + "not readable. The file was left untouched; restore it from a backup, or check it "
          + "with `kura store check`.")
    }
  }

  private func verify(_ schema: ModelSchema, in db: Connection) throws {
    struct Stored {
      var type: String
      var notNull: Bool
      var primaryKey: Bool
    }
    var stored: [String: Stored] = [:]
    var order: [String] = []
    let rows = try db.query(
      "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?)",
      [
        .text(schema.tableName)
      ]
    ) { row in
      (row.string(at: 0), row.string(at: 1).uppercased(), row.int64(at: 2) != 0, row.int64(at: 3))
    }
    for (name, type, notNull, primaryKey) in rows {
      stored[name] = Stored(type: type, notNull: notNull, primaryKey: primaryKey != 0)
      order.append(name)
    }
    let recorded =
      try db.queryFirst(
        "SELECT columns FROM kura_models WHERE model = ?", [.text(schema.modelName)]
      ) { row in
        try Self.recordedColumns(
          row.string(at: 0), model: schema.modelName, url: url, file: file)
      } ?? []
    let recordedKinds = Dictionary(
      recorded.map { ($0.name, $0.kind) }, uniquingKeysWith: { first, _ in first })
    for (index, column) in schema.columns.enumerated() {
      guard let existing = stored[column.name] else {
        throw mismatch(
          schema, property: column.name, column: column.name,
          why: "table `\(schema.tableName)` has no column `\(column.name)` for property "
            + "`\(column.name)`")
      }
      let isKey = index == schema.primaryKeyIndex
      let notNull = existing.notNull || (isKey && existing.primaryKey)
      if existing.type != column.kind.sqlType || notNull == column.isOptional
        || existing.primaryKey != isKey
      {
        let expected = column.definition + (isKey ? " PRIMARY KEY" : "")
        let found =
          "\(existing.type)\(existing.notNull ? " NOT NULL" : "")"
          + (existing.primaryKey ? " PRIMARY KEY" : "")
        throw mismatch(
          schema, property: column.name, column: column.name,
          why: "column `\(column.name)` is `\(found)` but property `\(column.name)` needs "
            + "`\(expected)`")
      }
      if let kind = recordedKinds[column.name], kind != column.kind.rawValue {
        throw mismatch(
          schema, property: column.name, column: column.name,
          why: "column `\(column.name)` holds \(kind) values but property `\(column.name)` is "
            + "stored as \(column.kind.rawValue)")
      }
    }
    if let extra = order.first(where: { schema.columnIndexByName[$0] == nil }) {
      throw mismatch(
        schema, property: nil, column: extra,
        why: "table `\(schema.tableName)` has a column `\(extra)` that no property of "
          + "`\(schema.modelName)` stores")
    }
  }

  private func mismatch(_ schema: ModelSchema, property: String?, column: String, why: String)
    -> StoreError
  {
    StoreError(
      .schemaMismatch, model: schema.modelName, property: property, column: column, url: url,
      message:
        "Can't open store \(file) for model `\(schema.modelName)`: \(why). The store was made "
        + "for a different version of the model in a way migration does not cover; nothing "
        + "was changed. Restore the matching model, migrate with a custom stage (see \"Migrating "
        + "Stores\"), or move the store file away to start a new one.")
  }
}
