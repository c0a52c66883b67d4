import Foundation
import KuraBase
import KuraSQLite

/// The checks that decide, on any engine and before anything is written, whether an existing
/// store may be opened and what opening it takes: another program's database, a store written by
/// a newer Kura or app version and a migration that would lose data are refused; a store that
/// matches the models needs no write at all.
///
/// It reads through a ``StoreConnection`` it is given; how that connection leaves the database
/// as found is the engine's part (SQLite: ``StoreProbe``, which reads the file, its `-wal` and its
/// `-shm` without changing them).
package struct StoreExamination {
  /// What opening the store takes.
  package typealias Outcome = StoreFinding

  /// The store, for errors.
  package let url: URL
  package let schemas: [ModelSchema]
  package let graph: RelationshipGraph
  package let migration: MigrationOptions?
  /// Whether a store that holds only other models may be opened
  /// (``ModelConfiguration/allowsUnrelatedModels``).
  package var allowsUnrelatedModels = false

  private var file: String { storeLabel(url) }

  /// The highest schema version this code knows: its migration plan's latest version, or the
  /// version stores without a plan record.
  package static func knownSchemaVersion(_ migration: MigrationOptions?) -> Int {
    migration?.plan?.schemas.map { $0.versionIdentifier }.max() ?? StoreSetup.schemaVersion
  }

  /// The store's tables and its recorded format and schema version, or `nil` for an empty
  /// database; refuses another program's database and a store newer than `schemaVersionLimit`
  /// or than this version's store format.
  package func metadata(_ db: StoreConnection, schemaVersionLimit: Int?) throws
    -> (tables: Set<String>, format: Int?, version: Int?)?
  {
    let objects = try db.schemaObjects()
    let tables = Set(objects.filter { $0.kind == "table" }.map(\.name))
    guard tables.contains("kura_metadata") && tables.contains("kura_models") else {
      if objects.isEmpty { return nil }
      let names = objects.filter { $0.kind == "table" }.prefix(3).map { "`\($0.name)`" }
      throw StoreError(
        .notAStore, url: url,
        message:
          "Can't open store \(file): it is \(db.engine.databaseDescription) made by another "
          + "program (it has "
          + "\(names.isEmpty ? "no Kura tables" : "tables " + names.joined(separator: ", ")) "
          + "but no Kura metadata). It was left untouched; choose another file or move this one "
          + "away.")
    }
    let metadata = Dictionary(
      try db.query("SELECT key, value FROM kura_metadata") { ($0.string(at: 0), $0.string(at: 1)) },
      uniquingKeysWith: { first, _ in first })
    let format = try number(metadata, "storeFormat")
    let version = try number(metadata, "schemaVersion")
    if let format, format > StoreSetup.storeFormat {
      throw newer(
        "its format is \(format), and this version of Kura reads formats up to "
          + "\(StoreSetup.storeFormat)")
    }
    if let known = schemaVersionLimit, let version, version > known {
      throw newer(
        "its models are at schema version \(version), and this app knows versions up to \(known)")
    }
    return (tables, format, version)
  }

  /// What opening the store for the models takes (refusing what ``metadata(_:schemaVersionLimit:)``
  /// refuses, and a migration that would lose data).
  package func outcome(_ db: StoreConnection) throws -> Outcome {
    let known = Self.knownSchemaVersion(migration)
    guard let (tables, format, version) = try metadata(db, schemaVersionLimit: known) else {
      return .new
    }
    try refuseUnrelatedModels(db, tables: tables)
    var outcome = Outcome.current
    if format != StoreSetup.storeFormat || version == nil { outcome = .needsChanges }
    // A plan whose stages still have to run changes the tables in the write transaction.
    if migration?.plan != nil, let version, version < known { return .needsChanges }
    if !tables.contains("kura_history") { outcome = .needsChanges }
    for schema in schemas {
      guard tables.contains(schema.tableName) else {
        outcome = .needsChanges
        continue
      }
      let attributes = graph.attributesByTable[schema.tableName] ?? ModelAttributes()
      let plan = try TableMigration(
        schema: schema, attributes: attributes, fileName: file, url: url
      ).plan(db)
      guard case .unchanged = plan else {
        outcome = .needsChanges
        continue
      }
      if try !StoreSetup(url: url, engine: db.engine).isRecorded(schema, in: db)
        || !StoreSetup.indexesAreCurrent(schema, graph: graph, in: db)
      {
        outcome = .needsChanges
      }
    }
    return outcome
  }

  /// Refuses a store whose models are all other models than these (most likely another app's
  /// store, or a mistyped path): opening it would add these models' tables to it. A migration
  /// plan knows the models' earlier names, so a store it migrates is not refused here.
  private func refuseUnrelatedModels(_ db: StoreConnection, tables: Set<String>) throws {
    guard !allowsUnrelatedModels, migration?.plan == nil, !schemas.isEmpty else { return }
    let stored = try db.query("SELECT model, table_name FROM kura_models ORDER BY model") {
      (model: $0.string(at: 0), table: $0.string(at: 1))
    }
    let ours = Set(schemas.map(\.tableName))
    guard !stored.isEmpty, !stored.contains(where: { ours.contains($0.table) }) else { return }
    let theirs = stored.map { "`\($0.model)`" }.joined(separator: ", ")
    let these = schemas.map { "`\($0.modelName)`" }.joined(separator: ", ")
    throw StoreError(
      .schemaMismatch, url: url,
      message:
        "Can't open store \(file): it holds other models (\(theirs)) and none of these "
        + "(\(these)), so it is most likely another app's store. Nothing was changed; choose "
        + "this app's store, or set `allowsUnrelatedModels` on the configuration to add these "
        + "models to it.")
  }

  private func number(_ metadata: [String: String], _ key: String) throws -> Int? {
    guard let text = metadata[key] else { return nil }
    guard let value = Int(text) else {
      throw StoreError(
        .damaged, url: url,
        message:
          "Can't open store \(file): its `\(key)` (table `kura_metadata`) is `\(text)`, not a "
          + "number. The file was left untouched; restore it from a backup, or check it with "
          + "`kura store check`.")
    }
    return value
  }

  private func newer(_ why: String) -> StoreError {
    StoreError(
      .newerStore, url: url,
      message:
        "Can't open store \(file): it was written by a newer version: \(why). It was left "
        + "untouched; open it with the newer version of the app.")
  }
}
