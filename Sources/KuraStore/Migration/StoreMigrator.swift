import Foundation
import KuraBase
import KuraSQLite

/// Brings an existing store to the container's models inside the setup transaction: runs the
/// migration plan's stages from the version recorded in the file, then the automatic changes
/// (``TableMigration``), and records the new schema version.
package struct StoreMigrator {
  package let url: URL?
  package let graph: RelationshipGraph
  package let options: MigrationOptions?
  /// Whether the automatic step may drop columns holding values (`--allow-data-loss`).
  package var allowsDataLoss = false

  package var fileName: String { storeLabel(url, inMemory: "in memory") }

  /// Migrates; returns whether any table changed.
  package func migrate(_ db: StoreConnection, schemas: [ModelSchema]) throws -> Bool {
    let recordedVersion = try db.queryFirst(
      "SELECT value FROM kura_metadata WHERE key = 'schemaVersion'"
    ) { Int($0.string(at: 0)) }
    let storedVersion = (recordedVersion ?? nil) ?? StoreSetup.schemaVersion
    let isFresh =
      try db.queryFirst("SELECT count(*) FROM kura_models") { $0.int64(at: 0) } == 0
      && !schemas.contains { (try? db.tableExists($0.tableName)) ?? false }
    var version = storedVersion
    var changed = false
    if let plan = options?.plan {
      let latest = plan.schemas.map { $0.versionIdentifier }.max() ?? version
      if isFresh {
        version = latest
      } else {
        let stages = plan.stages
        while let stage = stages.first(where: {
          $0.fromVersion == version && $0.toVersion > version
        }) {
          var stageSchemas: [ObjectIdentifier: ModelSchema] = [:]
          var ordered: [ModelSchema] = []
          for model in stage.toModels {
            let schema = try ModelSchema.of(model)
            stageSchemas[ObjectIdentifier(model)] = schema
            ordered.append(schema)
          }
          let stageGraph = try RelationshipGraph(models: stage.toModels, schemas: stageSchemas)
          if let migrate = stage.migrate {
            let context = MigrationContext(db: db, fileName: fileName, progress: options?.progress)
            do {
              try migrate(context)
            } catch let error as StoreError {
              throw error
            } catch {
              throw StoreError(
                .migrationFailed, url: url,
                message:
                  "Can't migrate store \(fileName) from version \(stage.fromVersion) to "
                  + "\(stage.toVersion): the custom stage failed (\(error)). Nothing was "
                  + "changed; fix the stage and open the store again.")
            }
            changed = true
          }
          changed =
            try automatic(db, schemas: ordered, graph: stageGraph, allowsDataLoss: true)
            || changed
          version = stage.toVersion
        }
        version = max(version, latest)
      }
    }
    if try automatic(db, schemas: schemas, graph: graph, allowsDataLoss: allowsDataLoss) {
      changed = true
    }
    if version != storedVersion || recordedVersion == nil {
      try db.run(
        "INSERT INTO kura_metadata (key, value) VALUES ('schemaVersion', ?) ON CONFLICT (key) "
          + "DO UPDATE SET value = excluded.value", [.text(String(version))])
    }
    return changed
  }

  /// Checks the references after tables were rebuilt (foreign keys are off meanwhile).
  package func checkForeignKeys(_ db: StoreConnection) throws {
    let problems = try db.foreignKeyViolations()
    guard let first = problems.first else { return }
    let (table, target) = (first.table, first.target)
    throw StoreError(
      .migrationFailed, url: url,
      message:
        "Can't migrate store \(fileName): \(problems.count) `\(table)` "
        + "\(problems.count == 1 ? "row refers" : "rows refer") to a `\(target)` that does not "
        + "exist. Nothing was changed; delete or fix those rows with the earlier version of the "
        + "app, or declare the reference with `deleteRule: .noAction`.")
  }

  /// Plans every table first (so a refusal comes before any change), then applies the plans.
  private func automatic(
    _ db: StoreConnection, schemas: [ModelSchema], graph: RelationshipGraph, allowsDataLoss: Bool
  ) throws -> Bool {
    var plans: [(ModelSchema, TableMigration.Plan)] = []
    for schema in schemas where try db.tableExists(schema.tableName) {
      let attributes = graph.attributesByTable[schema.tableName] ?? ModelAttributes()
      let migration = TableMigration(
        schema: schema, attributes: attributes, fileName: fileName, url: url,
        allowsDataLoss: allowsDataLoss)
      plans.append((schema, try migration.plan(db)))
    }
    var changed = false
    var setup = StoreSetup(url: url, engine: db.engine)
    setup.graph = graph
    for (schema, plan) in plans {
      switch plan {
      case .unchanged:
        continue
      case .alter(let renames, let additions, let descriptions):
        for (old, new) in renames {
          try db.execute(
            "ALTER TABLE \(schema.quotedTable) RENAME COLUMN \(quoteIdentifier(old)) TO "
              + "\(quoteIdentifier(new))")
        }
        if !renames.isEmpty { try dropKuraIndexes(schema, db) }
        for definition in additions {
          try db.execute("ALTER TABLE \(schema.quotedTable) ADD COLUMN \(definition)")
        }
        let rows = try count(schema.quotedTable, db)
        report(schema, descriptions.joined(separator: ", "), rows, rows)
      case .rebuild(let expressions, let descriptions):
        try rebuild(
          schema, expressions: expressions, step: descriptions.joined(separator: ", "),
          setup: setup, db)
      }
      try Self.recordColumns(schema, db)
      changed = true
    }
    return changed
  }

  private func rebuild(
    _ schema: ModelSchema, expressions: [String], step: String, setup: StoreSetup,
    _ db: StoreConnection
  ) throws {
    let temporary = "kura_migrating_" + schema.tableName
    try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(temporary))")
    let create = setup.createTableSQL(schema)
    let prefix = "CREATE TABLE \(schema.quotedTable)"
    try db.execute("CREATE TABLE \(quoteIdentifier(temporary))" + create.dropFirst(prefix.count))
    let total = try count(schema.quotedTable, db)
    report(schema, step, 0, total)
    if total > 0 {
      try db.copyRows(
        from: schema.tableName, into: temporary, columns: schema.quotedColumnList,
        expressions: expressions
      ) { done in report(schema, step, done, total) }
    }
    try db.replaceTable(schema.tableName, with: temporary)
  }

  private func dropKuraIndexes(_ schema: ModelSchema, _ db: StoreConnection) throws {
    let prefixes = [schema.tableName + "_index_", schema.tableName + "_unique_"]
    let names = try db.kuraIndexDefinitions(of: schema.tableName).map(\.name).filter { name in
      prefixes.contains { name.hasPrefix($0) }
    }
    for name in names { try db.execute("DROP INDEX \(quoteIdentifier(name))") }
  }

  private func count(_ table: String, _ db: StoreConnection) throws -> Int {
    Int(try db.queryFirst("SELECT count(*) FROM \(table)") { $0.int64(at: 0) } ?? 0)
  }

  private func report(_ schema: ModelSchema, _ step: String, _ done: Int, _ total: Int) {
    options?.progress?(
      MigrationProgress(model: schema.modelName, step: step, completedRows: done, totalRows: total))
  }

  /// Records a model's columns in `kura_models` (what the next migration compares with).
  package static func recordColumns(_ schema: ModelSchema, _ db: StoreConnection) throws {
    let json = try StoreSetup.recordedJSON(schema)
    try db.run(
      "DELETE FROM kura_models WHERE table_name = ? AND model <> ?",
      [.text(schema.tableName), .text(schema.storedName)])
    try db.run(
      "INSERT INTO kura_models (model, table_name, columns) VALUES (?, ?, ?) "
        + "ON CONFLICT (model) DO UPDATE SET table_name = excluded.table_name, "
        + "columns = excluded.columns",
      [.text(schema.storedName), .text(schema.tableName), .text(json)])
  }
}
