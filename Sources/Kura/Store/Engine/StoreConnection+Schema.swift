import Foundation

/// A column of a stored table, as the engine reports it.
struct StoreColumnInfo: Equatable {
  /// The column name.
  var name: String
  /// The declared type, as written when the table was created (such as `TEXT`).
  var type: String
  /// Whether the column is declared `NOT NULL`.
  var notNull: Bool
  /// Whether the column is (part of) the primary key.
  var primaryKey: Bool
}

/// A foreign key of a stored table.
struct StoreForeignKey: Equatable {
  /// The referring column.
  var column: String
  /// The table referred to.
  var targetTable: String
  /// The column referred to, or `nil` when the key names none (the target's primary key).
  var targetColumn: String?
  /// The `ON DELETE` action, uppercased (`CASCADE`, `SET NULL`, `NO ACTION`…).
  var onDelete: String
}

/// An index of a stored table (not the primary key's).
struct StoreIndexInfo: Equatable {
  /// The index name.
  var name: String
  /// Whether it is unique.
  var unique: Bool
  /// Its columns, in order.
  var columns: [String]
}

/// A row whose reference points at nothing.
struct StoreForeignKeyViolation: Equatable {
  /// The referring table.
  var table: String
  /// The table referred to.
  var target: String
}

/// The first row of a table whose reference points at nothing: its key, the referring column,
/// the table referred to and the missing value.
struct StoreDanglingReference: Equatable {
  var key: SQLiteValue
  var column: String
  var target: String
  var missing: SQLiteValue
}

extension StoreConnection {
  /// Whether a table named `name` exists.
  func tableExists(_ name: String) throws -> Bool {
    switch self {
    case .sqlite(let connection): return try SQLiteStoreEngine.tableExists(name, connection)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try PostgresStoreEngine.tableExists(name, connection.connection)
    #endif
    }
  }

  /// Every named object of the database (tables, indexes, views, triggers), but the engine's own,
  /// by name: its kind (`table`, `index`, …) and name.
  func schemaObjects() throws -> [(kind: String, name: String)] {
    switch self {
    case .sqlite(let connection): return try SQLiteStoreEngine.schemaObjects(connection)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try PostgresStoreEngine.schemaObjects(connection.connection)
    #endif
    }
  }

  /// The tables of the database, but the engine's own, by name.
  func tableNames() throws -> [String] {
    try schemaObjects().filter { $0.kind == "table" }.map(\.name)
  }

  /// The columns of `table`, in order (none when there is no such table).
  func tableColumns(_ table: String) throws -> [StoreColumnInfo] {
    switch self {
    case .sqlite(let connection): return try SQLiteStoreEngine.tableColumns(table, connection)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try PostgresStoreEngine.tableColumns(table, connection.connection)
    #endif
    }
  }

  /// The foreign keys of `table`.
  func foreignKeys(of table: String) throws -> [StoreForeignKey] {
    switch self {
    case .sqlite(let connection): return try SQLiteStoreEngine.foreignKeys(table, connection)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try PostgresStoreEngine.foreignKeys(table, connection.connection)
    #endif
    }
  }

  /// The indexes of `table` but its primary key's, by name.
  func indexes(of table: String) throws -> [StoreIndexInfo] {
    switch self {
    case .sqlite(let connection): return try SQLiteStoreEngine.indexes(table, connection)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try PostgresStoreEngine.indexes(table, connection.connection)
    #endif
    }
  }

  /// The indexes created on `table` by statements (not by constraints), each with its
  /// definition: what compares equal to the `CREATE INDEX` statement the store ran.
  func kuraIndexDefinitions(of table: String) throws -> [(name: String, sql: String)] {
    switch self {
    case .sqlite(let connection): return try SQLiteStoreEngine.indexDefinitions(table, connection)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try PostgresStoreEngine.indexDefinitions(table, connection.connection)
    #endif
    }
  }

  /// The rows whose reference points at nothing (checked after a migration rebuilt tables).
  func foreignKeyViolations() throws -> [StoreForeignKeyViolation] {
    switch self {
    case .sqlite(let connection): return try SQLiteStoreEngine.foreignKeyViolations(connection)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try PostgresStoreEngine.foreignKeyViolations(connection.connection)
    #endif
    }
  }

  /// The first row of `table` whose reference points at nothing, or `nil`.
  func firstDanglingReference(in table: String, primaryKey: String) throws
    -> StoreDanglingReference?
  {
    switch self {
    case .sqlite(let connection):
      return try SQLiteStoreEngine.firstDanglingReference(
        in: table, primaryKey: primaryKey, connection)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try PostgresStoreEngine.firstDanglingReference(
          in: table, primaryKey: primaryKey, connection.connection)
    #endif
    }
  }

  /// Whether references written in the open transaction point at nothing right now (they are
  /// checked at commit), so a save can explain the failure before committing.
  var hasForeignKeyViolations: Bool {
    switch self {
    case .sqlite(let connection): return connection.hasForeignKeyViolations
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return PostgresStoreEngine.hasForeignKeyViolations(connection)
    #endif
    }
  }

  /// What the engine's integrity check finds wrong with the database; empty when it is intact.
  func integrityProblems() throws -> [String] {
    switch self {
    case .sqlite(let connection): return try SQLiteStoreEngine.integrityProblems(connection)
    #if canImport(CLibPQ)
      case .postgres: return []  // no page-level check: the server keeps its files consistent
    #endif
    }
  }

  /// The text of the columns `kura_models` records for `table`: the record of `model`, else the
  /// newest record of the table.
  func recordedColumnsText(table: String, model: String) throws -> String? {
    switch self {
    case .sqlite(let connection):
      return try SQLiteStoreEngine.recordedColumnsText(table: table, model: model, connection)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try PostgresStoreEngine.recordedColumnsText(
          table: table, model: model, connection.connection)
    #endif
    }
  }

  /// Whether the text primary key of `table` compares like Swift's `==` (stores of SQLite
  /// format 1 compared bytes).
  func textKeyComparesLikeSwift(table: String) throws -> Bool {
    switch self {
    case .sqlite(let connection):
      return try SQLiteFormatUpgrade.primaryKeyCollation(table, connection)
        == SwiftStringSQL.collation
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try PostgresStoreEngine.textKeyComparesLikeSwift(
          table: table, connection.connection)
    #endif
    }
  }

  /// Up to 10 values of the text column `key` of `table` that Swift's `==` calls equal to another
  /// value of it (the first such group).
  func equivalentTextKeys(table: String, key: String) throws -> [String] {
    switch self {
    case .sqlite(let connection):
      return try SQLiteFormatUpgrade.equivalentKeys(table: table, key: key, connection)
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try PostgresStoreEngine.equivalentTextKeys(
          table: table, key: key, connection.connection)
    #endif
    }
  }
}
