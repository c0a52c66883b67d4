import Foundation

/// Migrates a store file to models described as data (``ModelDescription``), without the model
/// types: what `kura store migrate` runs. It makes the same changes, with the same checks, as
/// opening a ``ModelContainer`` whose models changed.
///
/// For example:
///
/// ```swift
/// let changed = try StoreMigration.migrate(storeAt: url, to: descriptions) { progress in
///   print(progress.model, progress.completedRows, "/", progress.totalRows)
/// }
/// ```
public enum StoreMigration {
  /// Migrates the store at `url` to `models`, in one transaction (existing references are
  /// kept). Tables of models not described are left alone.
  ///
  /// For example: `try StoreMigration.migrate(storeAt: url, to: [trip])`.
  ///
  /// - Parameters:
  ///   - url: The store file.
  ///   - models: The target models.
  ///   - allowingDataLoss: Whether columns that hold values may be dropped (columns the models
  ///     no longer describe); without it such a change is refused.
  ///   - progress: Called as rows are copied.
  /// - Returns: Whether anything changed.
  /// - Throws: ``StoreError/Code/migrationRefused`` for a change that could lose data, and
  ///   ``StoreError/Code/schemaMismatch`` for a dropped column holding values without
  ///   `allowingDataLoss` (nothing is changed), ``StoreError/Code/invalidModel`` for a
  ///   description that is not valid, ``StoreError`` when the file cannot be opened, is damaged,
  ///   is not a Kura store or was written by a newer Kura (it is left untouched).
  @discardableResult
  public static func migrate(
    storeAt url: URL, to models: [ModelDescription], allowingDataLoss: Bool = false,
    progress: (@Sendable (MigrationProgress) -> Void)? = nil
  ) throws -> Bool {
    let pool: StorePool
    var url = url
    #if canImport(CLibPQ)
      if PostgresLocation.isPostgresURL(url) {
        do {
          let location = try PostgresLocation(url: url)
          url = location.passwordFreeURL
          pool = .postgres(try PostgresStorePool(location: location, readOnly: false))
        } catch let error as PostgresError {
          throw StoreError.wrapping(postgres: error, url: nil, doing: "migrate")
        }
      } else {
        pool = try openFile(url)
      }
    #else
      pool = try openFile(url)
    #endif
    let schemas = try models.map(schema)
    var changed = false
    do {
      try pool.writeSchemaChanges { db in
        try db.execute(StoreSetup.metadataTablesSQL)
        let graph = try existingReferences(schemas, models, db)
        let migrator = StoreMigrator(
          url: url, graph: graph, options: MigrationOptions(plan: nil, progress: progress),
          allowsDataLoss: allowingDataLoss)
        changed = try migrator.migrate(db, schemas: schemas)
        if changed { try migrator.checkForeignKeys(db) }
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.wrapping(error, url: url, doing: "migrate")
    }
    return changed
  }

  /// The store file at `url`, opened for migrating.
  private static func openFile(_ url: URL) throws -> StorePool {
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw StoreError(
        .cannotOpen, url: url,
        message: "Can't open store `\(url.path)`: there is no such file. Check the path.")
    }
    return try SQLiteStore.openForMigration(url)
  }

  private static func schema(_ model: ModelDescription) throws -> ModelSchema {
    var columns: [ColumnSchema] = []
    for (index, column) in model.columns.enumerated() {
      guard let kind = ColumnKind(rawValue: column.kind) else {
        throw StoreError(
          .invalidModel, model: model.model, property: column.name,
          message:
            "Can't migrate to `\(model.model).\(column.name)`: `\(column.kind)` is not a column "
            + "kind. Use integer, real, text, blob, bool, date, uuid, url or json.")
      }
      // Descriptions have no key paths; each column gets a distinct placeholder.
      columns.append(
        ColumnSchema(
          name: column.name, keyPath: \[String].[index], kind: kind, isOptional: column.nullable))
    }
    guard columns.contains(where: { $0.name == "id" }) else {
      throw StoreError(
        .invalidModel, model: model.model,
        message:
          "Can't migrate to `\(model.model)`: it has no `id` column. Describe the primary key "
          + "as a column named `id`.")
    }
    return ModelSchema(
      tableName: model.table ?? model.model, columns: columns, modelName: model.model)
  }

  /// The described defaults and renames, with the references the tables already declare.
  private static func existingReferences(
    _ schemas: [ModelSchema], _ models: [ModelDescription], _ db: StoreConnection
  ) throws -> RelationshipGraph {
    var attributes: [String: ModelAttributes] = [:]
    for (schema, model) in zip(schemas, models) {
      var declared = ModelAttributes()
      for column in model.columns {
        if let value = column.default { declared.defaults[column.name] = value.sqliteValue }
        if let old = column.renamedFrom { declared.renamedFrom[column.name] = old }
      }
      declared.references = try db.foreignKeys(of: schema.tableName).map { foreignKey in
        let rule: DeleteRule
        switch foreignKey.onDelete {
        case "CASCADE": rule = .cascade
        case "SET NULL": rule = .nullify
        default: rule = .deny
        }
        let column = foreignKey.column
        return ModelAttributes.Reference(
          model: schema.modelName, table: schema.tableName, column: column,
          isOptional: schema.columnIndexByName[column].map { schema.columns[$0].isOptional }
            ?? true,
          primaryKey: schema.primaryKey.name, target: ObjectIdentifier(ModelDescription.self),
          targetModel: foreignKey.targetTable, targetTable: foreignKey.targetTable,
          targetKey: foreignKey.targetColumn ?? "id", deleteRule: rule)
      }
      attributes[schema.tableName] = declared
    }
    return RelationshipGraph(attributesByTable: attributes)
  }
}
