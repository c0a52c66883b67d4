import Foundation
import KuraBase
import KuraSQLite

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
  /// Migrates the store at `url` — a file, or a PostgreSQL database by its `postgresql://` URL —
  /// to `models`, in one transaction (existing references are kept). Tables of models not
  /// described are left alone.
  ///
  /// For example: `try StoreMigration.migrate(storeAt: url, to: [trip])`.
  ///
  /// - Parameters:
  ///   - url: The store file, or a `postgresql://` (or `postgres://`) URL.
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
    if let configuration = try ExternalEngines.configuration(for: url, doing: "migrate") {
      return try migrate(
        configuration, to: models, allowingDataLoss: allowingDataLoss, progress: progress)
    }
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw StoreError(
        .cannotOpen, url: url,
        message: "Can't open store `\(url.path)`: there is no such file. Check the path.")
    }
    let schemas = try models.map(schema)
    return try migrate(
      try SQLiteStore.openForMigration(url, check: metadataCheck(url)), url: url,
      schemas: schemas, models: models,
      allowingDataLoss: allowingDataLoss, progress: progress)
  }

  /// Migrates the store a configuration names — a file or a PostgreSQL database — to `models`,
  /// in one transaction (existing references are kept). Tables of models not described are
  /// left alone.
  ///
  /// For example:
  ///
  /// ```swift
  /// try StoreMigration.migrate(.postgres(connectionString: "dbname=app"), to: [trip])
  /// ```
  ///
  /// - Parameters:
  ///   - configuration: Where the store is.
  ///   - models: The target models.
  ///   - allowingDataLoss: Whether columns that hold values may be dropped.
  ///   - progress: Called as rows are copied.
  /// - Returns: Whether anything changed.
  /// - Throws: What ``migrate(storeAt:to:allowingDataLoss:progress:)`` throws, and
  ///   ``StoreError/Code/cannotOpen`` for an in-memory store or a server that can't be reached.
  @discardableResult
  public static func migrate(
    _ configuration: ModelConfiguration, to models: [ModelDescription],
    allowingDataLoss: Bool = false, progress: (@Sendable (MigrationProgress) -> Void)? = nil
  ) throws -> Bool {
    switch configuration.storage {
    case .file(let url):
      return try migrate(
        storeAt: url, to: models, allowingDataLoss: allowingDataLoss, progress: progress)
    case .defaultFile:
      return try migrate(
        storeAt: try Locations.current().defaultStoreURL, to: models,
        allowingDataLoss: allowingDataLoss, progress: progress)
    case .memory:
      throw StoreError(
        .cannotOpen,
        message:
          "Can't migrate an in-memory store with a description: it lives only inside its "
          + "container, which migrates it when it opens.")
    case .external(let reference):
      let schemas = try models.map(schema)
      let store = reference.store
      return try migrate(
        try store.openForMigration(check: metadataCheck(store.passwordFreeURL)),
        url: store.passwordFreeURL, schemas: schemas, models: models,
        allowingDataLoss: allowingDataLoss, progress: progress)
    case .invalidExternal(let engine, let why):
      throw StoreError(
        .cannotOpen, message: "Can't migrate the \(engine) store: \(why). Check the URL.")
    }
  }

  /// Migrates the store `pool` opens, in one transaction whose schema changes run no
  /// foreign-key actions.
  private static func migrate(
    _ pool: StorePool, url: URL?, schemas: [ModelSchema], models: [ModelDescription],
    allowingDataLoss: Bool, progress: (@Sendable (MigrationProgress) -> Void)?
  ) throws -> Bool {
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

  /// Refuses a store that is damaged, not a Kura store or written by a newer Kura, before a
  /// migration opens it for writing.
  private static func metadataCheck(_ url: URL) -> (any StoreConnection) throws -> Void {
    let examination = StoreExamination(
      url: url, schemas: [], graph: RelationshipGraph(), migration: nil)
    return { db in _ = try examination.metadata(db, schemaVersionLimit: nil) }
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
        if let value = column.default { declared.defaults[column.name] = value.databaseValue }
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
