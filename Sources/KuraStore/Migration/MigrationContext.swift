import Foundation
import KuraBase
import KuraSQLite

/// What a custom ``MigrationStage`` works with: the store's tables, read and rewritten with the
/// old and new model types, inside the migration's transaction.
///
/// For example:
///
/// ```swift
/// .custom(fromVersion: TripsV1.self, toVersion: TripsV2.self) { context in
///   try context.transform(TripsV1.Trip.self, to: TripsV2.Trip.self) { old in
///     TripsV2.Trip(id: old.id, name: old.name, rating: old.name.count > 5 ? 5 : 3)
///   }
/// }
/// ```
public final class MigrationContext {
  package let db: StoreConnection
  package let fileName: String
  package let progress: (@Sendable (MigrationProgress) -> Void)?

  package init(
    db: StoreConnection, fileName: String, progress: (@Sendable (MigrationProgress) -> Void)?
  ) {
    self.db = db
    self.fileName = fileName
    self.progress = progress
  }

  /// Every stored model of a type, read with the given (usually the old) model type.
  ///
  /// For example: `let trips = try context.fetch(TripsV1.Trip.self)`.
  ///
  /// - Parameter model: A model type matching the table as it is now.
  /// - Returns: The models.
  /// - Throws: ``StoreError`` when the table does not match the type.
  public func fetch<Model: PersistentModel>(_ model: Model.Type) throws -> [Model] {
    let schema = try ModelSchema.of(model)
    let statement = try db.prepare(StoreSQL.select(schema))
    let decoder = RowDecoder(schema: schema, statement: statement)
    var models: [Model] = []
    while try statement.step() { models.append(try decoder.decode(Model.self)) }
    return models
  }

  /// Rewrites a model's table: every stored `old` model becomes the `new` model `body` returns
  /// (or is dropped when it returns `nil`).
  ///
  /// For example:
  ///
  /// ```swift
  /// try context.transform(TripsV1.Trip.self, to: TripsV2.Trip.self) { old in
  ///   TripsV2.Trip(id: old.id, name: old.name, rating: 3)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - old: The model type matching the table as it is now.
  ///   - new: The model type of the next version (same or another table name).
  ///   - body: Makes the new model from the old one.
  /// - Throws: What `body` throws, or ``StoreError``.
  public func transform<Old: PersistentModel, New: PersistentModel>(
    _ old: Old.Type, to new: New.Type, _ body: (Old) throws -> New?
  ) throws {
    let oldSchema = try ModelSchema.of(old)
    let newSchema = try ModelSchema.of(new)
    let temporary = "kura_migrating_" + newSchema.tableName
    try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(temporary))")
    let create = StoreSetup(url: nil, engine: db.engine).createTableSQL(newSchema)
    try db.execute(
      "CREATE TABLE \(quoteIdentifier(temporary))"
        + create.dropFirst("CREATE TABLE \(newSchema.quotedTable)".count))
    let total = Int(
      try db.queryFirst("SELECT count(*) FROM \(oldSchema.quotedTable)") { $0.int64(at: 0) } ?? 0)
    let placeholders = Array(repeating: "?", count: newSchema.columns.count).joined(
      separator: ", ")
    let insert = try db.prepare(
      "INSERT INTO \(quoteIdentifier(temporary)) (\(newSchema.quotedColumnList)) VALUES "
        + "(\(placeholders))")
    let encoder = RowEncoder(schema: newSchema, statement: insert)
    let select = try db.prepare(StoreSQL.select(oldSchema))
    let decoder = RowDecoder(schema: oldSchema, statement: select)
    var done = 0
    let step = "transforming \(oldSchema.modelName)"
    progress?(
      MigrationProgress(model: newSchema.modelName, step: step, completedRows: 0, totalRows: total))
    while try select.step() {
      if let model = try body(try decoder.decode(Old.self)) {
        try encoder.bind(model)
        try insert.execute()
      }
      done += 1
      if done % 10_000 == 0 || done == total {
        progress?(
          MigrationProgress(
            model: newSchema.modelName, step: step, completedRows: done, totalRows: total))
      }
    }
    select.reset()
    if newSchema.tableName != oldSchema.tableName {
      try db.dropTable(oldSchema.tableName)
    }
    try db.replaceTable(newSchema.tableName, with: temporary)
    if oldSchema.storedName != newSchema.storedName {
      try db.run("DELETE FROM kura_models WHERE model = ?", [.text(oldSchema.storedName)])
    }
    try StoreMigrator.recordColumns(newSchema, db)
  }

  /// Runs SQL on the store (an escape hatch for changes the model types cannot express).
  ///
  /// For example: `try context.execute("UPDATE Trip SET name = trim(name)")`.
  ///
  /// - Parameters:
  ///   - sql: One statement.
  ///   - arguments: Values bound to its `?` placeholders.
  /// - Throws: ``SQLiteError``.
  public func execute(_ sql: String, _ arguments: [DatabaseValue] = []) throws {
    try db.run(sql, arguments)
  }
}
