import Foundation
import KuraBase
import KuraSQLite

extension StoreInspector {
  /// A summary of a store: its engine and location, its models, their row counts, the schema
  /// version and the size.
  ///
  /// For example: `print(try inspector.info().schemaVersion ?? 0)`.
  public struct Info: Codable, Sendable, Equatable {
    /// One model.
    ///
    /// For example: `for model in info.models { print(model.name, model.rows) }`.
    public struct Model: Codable, Sendable, Equatable {
      /// The model type's name.
      ///
      /// For example: `print(value.name)`.
      public var name: String
      /// Its table.
      ///
      /// For example: `print(value.table)`.
      public var table: String
      /// Its number of rows.
      ///
      /// For example: `print(value.rows)`.
      public var rows: Int
    }
    /// The engine holding the store.
    ///
    /// For example: `print(value.engine)`.
    public var engine: Engine
    /// Where the store is: the file's path, or the database, server and user (never the
    /// password).
    ///
    /// For example: `print(value.location)`.
    public var location: String
    /// The store file's path, or `nil` for a PostgreSQL database.
    ///
    /// For example: `print(value.path ?? value.location)`.
    public var path: String?
    /// The size in bytes: the SQLite file (without its WAL), or the PostgreSQL database (as
    /// `pg_database_size` reports it).
    ///
    /// For example: `print(value.sizeBytes)`.
    public var sizeBytes: Int
    /// Whether the database holds nothing at all (no store was created in it yet).
    ///
    /// For example: `if value.isEmpty { print("no store yet") }`.
    public var isEmpty: Bool
    /// The schema version Kura recorded, or `nil` for a file Kura did not make.
    ///
    /// For example: `print(value.schemaVersion)`.
    public var schemaVersion: Int?
    /// The models.
    ///
    /// For example: `print(value.models)`.
    public var models: [Model]
  }

  /// One table's structure.
  ///
  /// For example: `for table in try inspector.schema() { print(table.table) }`.
  public struct TableSchema: Codable, Sendable, Equatable {
    /// One column.
    ///
    /// For example: `for column in table.columns { print(column.name, column.type) }`.
    public struct Column: Codable, Sendable, Equatable {
      /// The column (and property) name.
      ///
      /// For example: `print(value.name)`.
      public var name: String
      /// The declared SQL type.
      ///
      /// For example: `print(value.type)`.
      public var type: String
      /// How Kura stores the property (`uuid`, `date`, `json`…), when recorded.
      ///
      /// For example: `print(value.kind)`.
      public var kind: String?
      /// Whether NULL is allowed (the property is optional).
      ///
      /// For example: `print(value.nullable)`.
      public var nullable: Bool
      /// Whether it is the primary key.
      ///
      /// For example: `print(value.primaryKey)`.
      public var primaryKey: Bool
    }
    /// One index.
    ///
    /// For example: `for index in table.indexes where index.unique { print(index.columns) }`.
    public struct Index: Codable, Sendable, Equatable {
      /// The index name.
      ///
      /// For example: `print(value.name)`.
      public var name: String
      /// Its columns, in order.
      ///
      /// For example: `print(value.columns)`.
      public var columns: [String]
      /// Whether it is a unique attribute.
      ///
      /// For example: `print(value.unique)`.
      public var unique: Bool

      /// Creates the value from each of its stored properties.
      package init(name: String, columns: [String], unique: Bool) {
        self.name = name
        self.columns = columns
        self.unique = unique
      }
    }
    /// The model type's name.
    ///
    /// For example: `print(value.model)`.
    public var model: String
    /// The table.
    ///
    /// For example: `print(value.table)`.
    public var table: String
    /// The columns, in order.
    ///
    /// For example: `print(value.columns)`.
    public var columns: [Column]
    /// The indexes (unique attributes and plain indexes).
    ///
    /// For example: `print(value.indexes)`.
    public var indexes: [Index]
  }

  /// Summarizes the store.
  ///
  /// For example: `let info = try inspector.info()`.
  ///
  /// - Returns: The summary.
  /// - Throws: ``StoreError``.
  public func info() throws -> Info {
    try run {
      let size: Int
      switch engine {
      case .sqlite:
        size =
          url.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int }
          ?? 0
      case .postgresql:
        size = Int(
          try connection.queryFirst("SELECT pg_database_size(current_database())") {
            $0.int64(at: 0)
          } ?? 0)
      }
      let models = try models().map { model in
        let rows =
          try tableExists(model.table)
          ? Int(
            try connection.queryFirst("SELECT count(*) FROM \(quoteIdentifier(model.table))") {
              $0.int64(at: 0)
            } ?? 0) : 0
        return Info.Model(name: model.name, table: model.table, rows: rows)
      }
      return Info(
        engine: engine, location: location, path: url?.path, sizeBytes: size,
        isEmpty: try connection.schemaObjects().isEmpty,
        schemaVersion: try metadata("schemaVersion").flatMap { Int($0) }, models: models)
    }
  }

  /// Describes every model's table: columns, unique attributes and indexes.
  ///
  /// For example: `let tables = try inspector.schema()`.
  ///
  /// - Returns: One entry per model.
  /// - Throws: ``StoreError``.
  public func schema() throws -> [TableSchema] {
    try run {
      try models().map { model in
        let columns = try connection.tableColumns(model.table).map { column in
          TableSchema.Column(
            name: column.name, type: column.type, kind: model.kinds[column.name],
            nullable: !column.notNull && !column.primaryKey, primaryKey: column.primaryKey)
        }
        let indexes = try connection.indexes(of: model.table).map { index in
          TableSchema.Index(name: index.name, columns: index.columns, unique: index.unique)
        }
        return TableSchema(
          model: model.name, table: model.table, columns: columns, indexes: indexes)
      }
    }
  }

  /// Checks the store: the engine's integrity check (on SQLite, `PRAGMA integrity_check`; a
  /// PostgreSQL server keeps its own files and has none), then that it is a Kura store this
  /// version reads, that each model's table has the columns Kura recorded, that every reference
  /// points at a row, and that no two text keys (or unique text values) are equal as Swift's
  /// `==` compares them.
  ///
  /// An empty database (no store created yet) has nothing wrong with it.
  ///
  /// For example: `let problems = try inspector.check()   // [] when intact`.
  ///
  /// - Returns: The problems found; empty when the store is intact.
  /// - Throws: ``StoreError``.
  public func check() throws -> [String] {
    try run {
      let problems = try connection.integrityProblems()
      // A damaged file can't be read further.
      guard problems.isEmpty else { return problems }
      let store = engine == .sqlite ? "`\(name)`" : "Database `\(name)`"
      let tables = Set(try connection.tableNames())
      if tables.isEmpty { return [] }
      guard tables.contains("kura_metadata") && tables.contains("kura_models") else {
        return [
          "\(store) is not a Kura store: it has tables "
            + tables.sorted().prefix(3).map { "`\($0)`" }.joined(separator: ", ")
            + " but no Kura metadata (`kura_metadata`, `kura_models`)."
        ]
      }
      if let format = try metadata("storeFormat").flatMap({ Int($0) }),
        format > StoreSetup.storeFormat
      {
        return [
          "\(store) was written by a newer version of Kura (store format "
            + "\(format); this version reads formats up to \(StoreSetup.storeFormat))."
        ]
      }
      return try modelProblems(tables: tables) + (try referenceProblems())
    }
  }

  /// Each model's table and recorded columns that are missing, and text keys or unique text
  /// values that Swift's `==` calls equal.
  private func modelProblems(tables: Set<String>) throws -> [String] {
    var problems: [String] = []
    for model in try models() {
      guard tables.contains(model.table) else {
        problems.append(
          "`\(model.name)`: its table `\(model.table)` is missing (Kura recorded the model, but "
            + "the table is gone).")
        continue
      }
      let columns = try connection.tableColumns(model.table)
      let names = Set(columns.map(\.name))
      let missing = model.kinds.keys.filter { !names.contains($0) }.sorted()
      if !missing.isEmpty {
        problems.append(
          "`\(model.name)`: its table `\(model.table)` has no column "
            + missing.map { "`\($0)`" }.joined(separator: ", ")
            + " (Kura recorded \(missing.count == 1 ? "it" : "them"), but the table lacks "
            + "\(missing.count == 1 ? "it" : "them")).")
      }
      // Text columns that must be unique as Swift's `==` compares: the primary key, and each
      // unique attribute of one column.
      var keys = columns.filter(\.primaryKey).map(\.name)
      keys += try connection.indexes(of: model.table).filter { $0.unique && $0.columns.count == 1 }
        .map { $0.columns[0] }
      for key in keys where model.kinds[key] == ColumnKind.text.rawValue {
        let equal = try connection.equivalentTextKeys(table: model.table, key: key)
        guard !equal.isEmpty else { continue }
        problems.append(
          "`\(model.name).\(key)` holds values that Swift's `==` calls equal, so they should be "
            + "one: " + equal.map { "`\($0)`" }.joined(separator: ", ") + ".")
      }
    }
    return problems
  }

  /// References that point at no row.
  private func referenceProblems() throws -> [String] {
    var seen = Set<String>()
    var problems: [String] = []
    for violation in try connection.foreignKeyViolations() {
      let pair = violation.table + "\u{0}" + violation.target
      guard seen.insert(pair).inserted else { continue }
      problems.append(
        "Table `\(violation.table)` has rows that refer to rows of `\(violation.target)` that do "
          + "not exist.")
    }
    return problems
  }
}
