import KuraBase
import KuraSQLite

/// An engine's catalog reads, written once as statics over its driver's connection
/// (`Driver`); a connection that names them as its ``IntrospectedConnection/Introspection``
/// answers the seam's introspection requirements with them, with no forwarding of its own.
package protocol EngineIntrospection {
  /// The driver's connection the reads run on.
  associatedtype Driver

  static func tableExists(_ name: String, _ db: Driver) throws -> Bool
  static func schemaObjects(_ db: Driver) throws -> [(kind: String, name: String)]
  static func tableColumns(_ table: String, _ db: Driver) throws -> [StoreColumnInfo]
  static func foreignKeys(_ table: String, _ db: Driver) throws -> [StoreForeignKey]
  static func indexes(_ table: String, _ db: Driver) throws -> [StoreIndexInfo]
  static func indexDefinitions(_ table: String, _ db: Driver) throws
    -> [(name: String, sql: String)]
  static func foreignKeyViolations(_ db: Driver) throws -> [StoreForeignKeyViolation]
  static func firstDanglingReference(in table: String, primaryKey: String, _ db: Driver)
    throws -> StoreDanglingReference?
}

/// A ``StoreConnection`` whose introspection is its engine's ``EngineIntrospection`` run on
/// its driver's ``connection``.
package protocol IntrospectedConnection: StoreConnection {
  associatedtype Introspection: EngineIntrospection
  /// The driver's connection.
  var connection: Introspection.Driver { get }
}

extension IntrospectedConnection {
  package func tableExists(_ name: String) throws -> Bool {
    try Introspection.tableExists(name, connection)
  }

  package func schemaObjects() throws -> [(kind: String, name: String)] {
    try Introspection.schemaObjects(connection)
  }

  package func tableColumns(_ table: String) throws -> [StoreColumnInfo] {
    try Introspection.tableColumns(table, connection)
  }

  package func foreignKeys(of table: String) throws -> [StoreForeignKey] {
    try Introspection.foreignKeys(table, connection)
  }

  package func indexes(of table: String) throws -> [StoreIndexInfo] {
    try Introspection.indexes(table, connection)
  }

  package func kuraIndexDefinitions(of table: String) throws -> [(name: String, sql: String)] {
    try Introspection.indexDefinitions(table, connection)
  }

  package func foreignKeyViolations() throws -> [StoreForeignKeyViolation] {
    try Introspection.foreignKeyViolations(connection)
  }

  package func firstDanglingReference(in table: String, primaryKey: String) throws
    -> StoreDanglingReference?
  {
    try Introspection.firstDanglingReference(in: table, primaryKey: primaryKey, connection)
  }
}

/// An engine's SQL for a ``SearchIndex``: a condition matching the words and an order putting
/// the best matches first.
package protocol EngineSearchIndex {
  init(_ index: SearchIndex)
  func condition(words: [String]) -> (sql: String, arguments: [DatabaseValue])
  func order(words: [String]) -> (sql: String, arguments: [DatabaseValue])
}

/// A ``StoreEngine`` whose search SQL is its ``SearchSQL`` type's.
package protocol SearchingEngine: StoreEngine {
  associatedtype SearchSQL: EngineSearchIndex
}

extension SearchingEngine {
  package func searchCondition(_ index: SearchIndex, words: [String]) -> (
    sql: String, arguments: [DatabaseValue]
  ) {
    SearchSQL(index).condition(words: words)
  }

  package func searchOrder(_ index: SearchIndex, words: [String]) -> (
    sql: String, arguments: [DatabaseValue]
  )? {
    SearchSQL(index).order(words: words)
  }
}

/// A ``StoreEngine`` whose column types and store SQL are written as statics (usable where no
/// engine value is at hand); its instance requirements answer with them.
package protocol StaticEngineSQL: StoreEngine {
  static func columnType(_ kind: ColumnKind) -> String
  static func columnKind(ofDeclaredType type: String) -> ColumnKind?
  static func primaryKeyDefinition(_ schema: ModelSchema) -> String
  static func upsertSQL(
    table: String, columns: [ColumnSchema], primaryKeyIndex: Int, uniqueConstraints: [[Int]]
  ) -> String
  static var historyTableSQL: String { get }
  static func literal(_ value: DatabaseValue) -> String?
}

extension StaticEngineSQL {
  package func columnType(_ kind: ColumnKind) -> String { Self.columnType(kind) }

  package func columnKind(ofDeclaredType type: String) -> ColumnKind? {
    Self.columnKind(ofDeclaredType: type)
  }

  package func primaryKeyDefinition(_ schema: ModelSchema) -> String {
    Self.primaryKeyDefinition(schema)
  }

  package func upsertSQL(_ schema: ModelSchema) -> String {
    Self.upsertSQL(
      table: schema.quotedTable, columns: schema.columns, primaryKeyIndex: schema.primaryKeyIndex,
      uniqueConstraints: schema.uniqueConstraints)
  }

  package var historyTableSQL: String { Self.historyTableSQL }

  package func literal(_ value: DatabaseValue) -> String? { Self.literal(value) }
}
