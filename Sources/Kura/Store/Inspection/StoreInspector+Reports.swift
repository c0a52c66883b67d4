import Foundation

extension StoreInspector {
  /// A summary of a store: its models, their row counts, the schema version and the file size.
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
    /// The store file's path.
    ///
    /// For example: `print(value.path)`.
    public var path: String
    /// The file's size in bytes (the main file, without its WAL).
    ///
    /// For example: `print(value.sizeBytes)`.
    public var sizeBytes: Int
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
      let size =
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
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
        path: url.path, sizeBytes: size,
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

  /// Checks the store's integrity (on SQLite, `PRAGMA integrity_check`) and that it is a Kura
  /// store this version reads.
  ///
  /// For example: `let problems = try inspector.check()   // [] when intact`.
  ///
  /// - Returns: The problems found; empty when the file is intact.
  /// - Throws: ``StoreError``.
  public func check() throws -> [String] {
    try run {
      var problems = try connection.integrityProblems()
      let tables = try connection.tableNames()
      if !tables.isEmpty && !(tables.contains("kura_metadata") && tables.contains("kura_models")) {
        problems.append(
          "`\(url.lastPathComponent)` is not a Kura store: it has tables "
            + tables.prefix(3).map { "`\($0)`" }.joined(separator: ", ")
            + " but no Kura metadata (`kura_metadata`, `kura_models`).")
      }
      if let format = try metadata("storeFormat").flatMap({ Int($0) }),
        format > StoreSetup.storeFormat
      {
        problems.append(
          "`\(url.lastPathComponent)` was written by a newer version of Kura (store format "
            + "\(format); this version reads formats up to \(StoreSetup.storeFormat)).")
      }
      return problems
    }
  }
}
