import Foundation
import KuraBase
import KuraSQLite

/// Creates a store's metadata and model tables when missing, and checks that existing tables
/// match the models (migrations are a later addition; until then a mismatch is an error).
///
/// The metadata lives in two tables: `kura_metadata` (`storeFormat`, `schemaVersion`) and
/// `kura_models` (per model: its table and its columns with their kinds).
package struct StoreSetup {
  /// Creates the tables where a store records its format, schema version and models.
  package static let metadataTablesSQL = """
    CREATE TABLE IF NOT EXISTS kura_metadata (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS kura_models (model TEXT NOT NULL PRIMARY KEY, \
    table_name TEXT NOT NULL, columns TEXT NOT NULL)
    """

  /// The store file, for messages.
  package let url: URL?
  /// The engine whose tables are created and checked.
  package let engine: StoreEngine
  /// Declared references (foreign keys), search indexes and migration inputs.
  package var graph = RelationshipGraph()
  /// How to migrate a store whose models changed (custom stages, progress).
  package var migration: MigrationOptions? = nil

  /// The format of Kura's metadata tables (``StoreRecords/format``).
  package static let storeFormat = StoreRecords.format
  /// The schema version recorded for new stores (migrations will raise it).
  package static let schemaVersion = 1

  /// A column as recorded in `kura_models`.
  package typealias StoredColumn = StoreRecords.Column

  private var file: String { storeLabel(url, inMemory: "in memory") }

  /// The dialect of the engine's SQL.
  private var dialect: any SQLDialect { engine.dialect }

  package func prepare(_ pool: StorePool, schemas: [ModelSchema]) throws {
    try refuseNameCollisions(schemas)
    do {
      // Dropping and rebuilding a table must not run its delete actions while a migration runs;
      // `StoreMigrator` checks the references before the transaction commits.
      try pool.writeSchemaChanges { db in
        try db.execute(StoreSetup.metadataTablesSQL)
        let recordedFormat = try db.queryFirst(
          "SELECT value FROM kura_metadata WHERE key = 'storeFormat'"
        ) { Int($0.string(at: 0)) }
        if let recordedFormat, let format = recordedFormat, format < Self.storeFormat {
          try upgradeFormat(from: format, in: db)
        }
        try db.run(
          "INSERT INTO kura_metadata (key, value) VALUES ('storeFormat', ?), "
            + "('schemaVersion', ?) ON CONFLICT DO NOTHING",
          [
            .text(String(Self.storeFormat)),
            .text(String(StoreExamination.knownSchemaVersion(migration))),
          ])
        try refuseTablesNotRecorded(schemas, in: db)
        let migrator = StoreMigrator(url: url, graph: graph, options: migration)
        let migrated = try migrator.migrate(db, schemas: schemas)
        for schema in creationOrder(schemas) { try prepare(schema, in: db) }
        try StoreExtensions(graph: graph).prepare(db, schemas: schemas)
        if migrated { try migrator.checkForeignKeys(db) }
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.wrapping(error, url: url, doing: "prepare")
    }
  }

  /// Refuses, before anything is sent, models whose different names the engine would give one
  /// identifier (``StoreEngine/identifier(_:)``: PostgreSQL shortens a name longer than 63
  /// bytes to its first bytes and a hash): two tables or indexes of the store, or two columns
  /// of one table.
  package func refuseNameCollisions(_ schemas: [ModelSchema]) throws {
    var relations: [String: (name: String, owner: ModelSchema, what: String)] = [:]
    for schema in schemas {
      let named =
        [(schema.tableName, "table")] + declaredIndexes(schema).map { ($0.name, "index") }
      for (name, what) in named {
        let identifier = engine.identifier(name)
        if let other = relations[identifier], other.name != name {
          throw nameCollision(
            schema, "its \(what) `\(name)`",
            other: "the \(other.what) `\(other.name)` of "
              + "`\(other.owner.modelName)`", identifier: identifier,
            fix: "give one of the models another `schemaName`")
        }
        relations[identifier] = (name, schema, what)
      }
      var columns: [String: String] = [:]
      for column in schema.columns {
        let identifier = engine.identifier(column.name)
        if let other = columns[identifier], other != column.name {
          throw nameCollision(
            schema, "its property `\(column.name)`", other: "its property `\(other)`",
            identifier: identifier, property: column.name,
            fix: "rename one of the properties (its coding key)")
        }
        columns[identifier] = column.name
      }
    }
  }

  private func nameCollision(
    _ schema: ModelSchema, _ first: String, other: String, identifier: String,
    property: String? = nil, fix: String
  ) -> StoreError {
    StoreError(
      .invalidModel, model: schema.modelName, property: property, url: url,
      message:
        "Can't store `\(schema.modelName)` in \(engine.databaseDescription): \(first) and "
        + "\(other) would both be named `\(identifier)` there (it shortens names longer than it "
        + "keeps to their first bytes and a hash). Nothing was changed; \(fix).")
  }

  /// On PostgreSQL, whose databases hold other programs' tables beside Kura's: a table with a
  /// model's name that `kura_models` does not record as a model's table is another program's,
  /// and is refused rather than read and written as the model's.
  private func refuseTablesNotRecorded(_ schemas: [ModelSchema], in db: StoreConnection) throws {
    guard engine.refusesTablesNotRecorded else { return }
    for schema in schemas where try db.tableExists(schema.tableName) {
      let recorded =
        try db.queryFirst(
          "SELECT 1 FROM kura_models WHERE table_name = ?", [.text(schema.tableName)]
        ) { _ in true } ?? false
      if recorded { continue }
      throw StoreError(
        .schemaMismatch, model: schema.modelName, url: url,
        message:
          "Can't open store \(file): its schema has a table `\(schema.tableName)` that Kura did "
          + "not make (`kura_models` records no model in it), so model `\(schema.modelName)` "
          + "would read and write another program's rows. Nothing was changed; give the model "
          + "another name (`schemaName`), or keep the store in a schema or database of its own "
          + "(`search_path`).")
    }
  }

  /// `schemas` with every model after the models it refers to (PostgreSQL creates a foreign key
  /// only to a table that exists; SQLite takes either order), otherwise in the order given; a
  /// cycle of references keeps the given order.
  package func creationOrder(_ schemas: [ModelSchema]) -> [ModelSchema] {
    var ordered: [ModelSchema] = []
    var placed = Set<String>()
    var remaining = schemas
    while !remaining.isEmpty {
      let tables = Set(remaining.map(\.tableName))
      let ready = remaining.firstIndex { schema in
        (graph.attributesByTable[schema.tableName]?.references ?? []).allSatisfy {
          $0.targetTable == schema.tableName || placed.contains($0.targetTable)
            || !tables.contains($0.targetTable)
        }
      }
      let next = remaining.remove(at: ready ?? 0)
      ordered.append(next)
      placed.insert(next.tableName)
    }
    return ordered
  }

  /// Brings a store written in an earlier format of Kura's metadata to ``storeFormat``, inside
  /// the setup transaction (the one place that upgrades formats).
  private func upgradeFormat(from format: Int, in db: StoreConnection) throws {
    // Format 1 → 2 (SQLite): dates re-encoded, text indexes rebuilt under the total order.
    try db.upgradeStoreFormat(from: format, url: url)
    try db.run(
      "UPDATE kura_metadata SET value = ? WHERE key = 'storeFormat'",
      [.text(String(Self.storeFormat))])
  }

  /// The columns `kura_models` records for a model, as JSON with sorted keys (so recording the
  /// same columns writes the same text).
  package static func recordedJSON(_ schema: ModelSchema) throws -> String {
    let columns = schema.columns.map {
      StoredColumn(name: $0.name, kind: $0.kind.rawValue, optional: $0.isOptional)
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return String(decoding: try encoder.encode(columns), as: UTF8.self)
  }

  /// Whether `kura_models` records the model with its table and columns as they are now.
  package func isRecorded(_ schema: ModelSchema, in db: StoreConnection) throws -> Bool {
    let row = try db.queryFirst(
      "SELECT table_name, columns FROM kura_models WHERE model = ?", [.text(schema.storedName)]
    ) { ($0.string(at: 0), $0.string(at: 1)) }
    guard let (table, text) = row, table == schema.tableName else { return false }
    let recorded = try Self.recordedColumns(text, model: schema.modelName, url: url, file: file)
    let expected = schema.columns.map {
      StoredColumn(name: $0.name, kind: $0.kind.rawValue, optional: $0.isOptional)
    }
    guard recorded == expected else { return false }
    try verify(schema, in: db)
    return true
  }

  /// The model's declared unique and plain indexes: name and `CREATE INDEX` statement. Two
  /// declarations whose generated names collide get distinct names (a number is added).
  package func declaredIndexes(_ schema: ModelSchema) -> [(name: String, sql: String, unique: Bool)]
  {
    var result: [(name: String, sql: String, unique: Bool)] = []
    var used = Set<String>()
    let declared =
      schema.uniqueConstraints.map { ($0, true) } + schema.indexes.map { ($0, false) }
    for (columns, unique) in declared {
      let names = columns.map { schema.columns[$0].name }
      let base = schema.tableName + (unique ? "_unique_" : "_index_") + names.joined(separator: "_")
      var name = base
      var number = 2
      while used.contains(name) {
        name = "\(base)_\(number)"
        number += 1
      }
      used.insert(name)
      let sql =
        "CREATE \(unique ? "UNIQUE " : "")INDEX \(quoteIdentifier(name)) ON "
        + "\(schema.quotedTable) (\(StoreSQL.indexedColumns(schema, columns, dialect: dialect)))"
      result.append((name, sql, unique))
    }
    return result
  }

  /// What brings the table's Kura indexes to the declared ones: the indexes to drop (no longer
  /// declared, or declared differently) and those to create.
  package func indexChanges(_ schema: ModelSchema, in db: StoreConnection) throws
    -> (drop: [String], create: [(name: String, sql: String, unique: Bool)])
  {
    let declared = declaredIndexes(schema)
    let existing = try db.kuraIndexDefinitions(of: schema.tableName)
    let prefixes = [schema.tableName + "_unique_", schema.tableName + "_index_"]
    let kuraIndexes = existing.filter { index in prefixes.contains { index.name.hasPrefix($0) } }
    let wanted = Dictionary(declared.map { ($0.name, $0.sql) }, uniquingKeysWith: { a, _ in a })
    let drop = kuraIndexes.filter { wanted[$0.name] != $0.sql }.map(\.name)
    let kept = Set(kuraIndexes.map(\.name)).subtracting(drop)
    return (drop, declared.filter { !kept.contains($0.name) })
  }

  /// Whether the model's unique and plain indexes and its search index exist as declared.
  package static func indexesAreCurrent(
    _ schema: ModelSchema, graph: RelationshipGraph, in db: StoreConnection
  ) throws -> Bool {
    let changes = try StoreSetup(url: nil, engine: db.engine, graph: graph).indexChanges(
      schema, in: db)
    if !changes.drop.isEmpty || !changes.create.isEmpty { return false }
    let searchable = graph.attributesByTable[schema.tableName]?.searchable ?? []
    return try db.searchIndexIsCurrent(SearchIndex(schema: schema, columns: searchable))
  }

  private func prepare(_ schema: ModelSchema, in db: StoreConnection) throws {
    if try db.tableExists(schema.tableName) {
      try verify(schema, in: db)
    } else {
      try db.execute(createTableSQL(schema))
    }
    let indexes = try indexChanges(schema, in: db)
    for name in indexes.drop { try db.execute("DROP INDEX \(quoteIdentifier(name))") }
    for index in indexes.create {
      do {
        try db.execute(index.sql)
      } catch let error where index.unique && engine.isConstraintViolation(error) {
        throw duplicateValues(schema, index: index.name)
      }
    }
    if try isRecorded(schema, in: db) { return }
    try StoreMigrator.recordColumns(schema, db)
  }

  package func createTableSQL(_ schema: ModelSchema) -> String {
    var definitions = schema.columns.map(engine.columnDefinition)
    definitions[schema.primaryKeyIndex] = engine.primaryKeyDefinition(schema)
    definitions += graph.attributesByTable[schema.tableName]?.foreignKeyClauses ?? []
    return "CREATE TABLE \(schema.quotedTable) (\(definitions.joined(separator: ", ")))"
  }

  /// The error for a unique attribute that stored rows already break.
  private func duplicateValues(_ schema: ModelSchema, index: String) -> StoreError {
    let columns = index.dropFirst(schema.tableName.count + "_unique_".count)
    return StoreError(
      .migrationRefused, model: schema.modelName, url: url,
      message:
        "Can't migrate store \(file): `\(schema.modelName)` now declares `\(columns)` unique, but "
        + "stored rows share a value. Nothing was changed; remove the duplicates with the "
        + "earlier version of the app, or declare a custom stage that merges them.")
  }

  /// Decodes the columns `kura_models` records for a model; unreadable text is a damaged store.
  package static func recordedColumns(_ text: String, model: String, url: URL?, file: String) throws
    -> [StoredColumn]
  {
    try StoreRecords.columns(text, model: model, url: url, file: file)
  }

  package func verify(_ schema: ModelSchema, in db: StoreConnection) throws {
    struct Stored {
      var type: String
      var notNull: Bool
      var primaryKey: Bool
    }
    var stored: [String: Stored] = [:]
    var order: [String] = []
    for column in try db.tableColumns(schema.tableName) {
      stored[column.name] = Stored(
        type: column.type.uppercased(), notNull: column.notNull, primaryKey: column.primaryKey)
      order.append(column.name)
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
      if !engine.declaredType(existing.type, holds: column.kind) || notNull == column.isOptional
        || existing.primaryKey != isKey
      {
        let expected =
          isKey ? engine.primaryKeyDefinition(schema) : engine.columnDefinition(column)
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

  /// Creates the value from each of its stored properties.
  package init(
    url: URL?, engine: StoreEngine, graph: RelationshipGraph = RelationshipGraph(),
    migration: MigrationOptions? = nil
  ) {
    self.url = url
    self.engine = engine
    self.graph = graph
    self.migration = migration
  }
}
