import Foundation
import KuraBase
import KuraSQLite
@_spi(Reflection) import Swift
import Synchronization

/// The table a model type is stored in: derived once per type from its stored properties
/// (through the standard library's reflection of key paths) and its ``Schema`` declaration.
///
/// A final class so that handing it around costs one retain; it never changes after `init`.
package final class ModelSchema: Sendable {
  /// The model type's name, such as `Trip`, used in messages.
  package let modelName: String
  /// The table name (``PersistentModel/schemaName``).
  package let tableName: String
  /// The model's stable stored name: its ``PersistentModel/schemaName`` (derived from the type's
  /// name unless the model declares one), also its table. It keys the model's record in
  /// `kura_models`, its change history, ``ChangeSet`` and live queries, so two types with the same
  /// name in different namespaces are told apart by declaring distinct names.
  package var storedName: String { tableName }
  /// One column per stored property, in declaration order.
  package let columns: [ColumnSchema]
  /// The index in ``columns`` of the `id` column (the primary key).
  package let primaryKeyIndex: Int
  /// Unique constraints besides the primary key, as column indexes.
  package let uniqueConstraints: [[Int]]
  /// Indexes, as column indexes.
  package let indexes: [[Int]]
  /// Column index by name.
  package let columnIndexByName: [String: Int]
  /// The column names, in order.
  package let columnNames: [String]
  /// The column kinds, in order.
  package let columnKinds: [ColumnKind]
  /// Whether each column allows NULL, in order.
  package let columnNullable: [Bool]
  /// `SELECT <columns> FROM <table>`.
  package let selectSQL: String
  /// `SELECT <columns> FROM <table> WHERE id = ?`.
  package let selectByIDSQL: String
  /// The upsert of one row per engine (``StoreEngine/upsertSQL(_:)``), built on first use so
  /// the statement cache finds it by pointer.
  private let upserts = Mutex<[ObjectIdentifier: String]>([:])
  /// `DELETE FROM <table> WHERE id = ?`.
  package let deleteByIDSQL: String
  /// `SELECT 1 FROM <table> WHERE id = ?`: whether a row with the id is stored.
  package let existsByIDSQL: String
  /// The model type whose stored properties the columns are (`nil` for a schema built from
  /// explicit columns); only it gets a ``RowPlan``.
  package let derivedType: ObjectIdentifier?
  /// The compiled row plans of the model type, made and read by the store's context (which
  /// sits above the schema, so the cache holds them untyped).
  package let rowPlans = MadeOnceCache()
  // Safety: key paths are immutable values used only as dictionary keys.
  private nonisolated(unsafe) let columnIndexByKeyPath: [AnyKeyPath: Int]

  /// The column holding a stored property, or `nil` when the key path is not one.
  package func column(for keyPath: AnyKeyPath) -> ColumnSchema? {
    columnIndexByKeyPath[keyPath].map { columns[$0] }
  }

  /// The index of the column holding a stored property.
  package func columnIndex(for keyPath: AnyKeyPath) -> Int? { columnIndexByKeyPath[keyPath] }

  /// The value stored in the primary-key column for an id (fast for Int, UUID and String ids).
  package func keyValue<ID>(_ id: ID) -> DatabaseValue? {
    if ID.self == Int.self { return .integer(Int64(unsafeBitCast(id, to: Int.self))) }
    if ID.self == UUID.self { return .text(unsafeBitCast(id, to: UUID.self).uuidString) }
    if ID.self == String.self { return .text(unsafeBitCast(id, to: String.self)) }
    return databaseValue(for: id, kind: columns[primaryKeyIndex].kind)
  }

  /// The primary-key column.
  package var primaryKey: ColumnSchema { columns[primaryKeyIndex] }

  /// Whether the primary key is text, which the table compares like Swift's `==` (see
  /// ``StoreEngine/primaryKeyDefinition(_:)``): ids that Swift calls equal (`"\u{E9}"` and
  /// `"e\u{301}"`) are one row, found by either form.
  package var keyComparesLikeSwift: Bool { primaryKey.kind == .text }

  /// The quoted table name.
  package var quotedTable: String { quoteIdentifier(tableName) }

  /// The quoted column names, comma separated, in column order.
  package var quotedColumnList: String {
    columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
  }

  /// A schema from explicit columns (tests of the translation layer build them this way); the
  /// primary key is the `id` column, else the first.
  package convenience init(tableName: String, columns: [ColumnSchema], modelName: String? = nil) {
    var byName: [String: Int] = [:]
    var byKeyPath: [AnyKeyPath: Int] = [:]
    for (index, column) in columns.enumerated() {
      byName[column.name] = index
      byKeyPath[column.keyPath] = index
    }
    self.init(
      modelName: modelName ?? tableName, tableName: tableName, columns: columns,
      primaryKeyIndex: columns.firstIndex { $0.name == "id" } ?? 0, uniqueConstraints: [],
      indexes: [], byName: byName, byKeyPath: byKeyPath, derivedType: nil)
  }

  /// Refuses a stored name that can't name a table of its own: empty, holding a NUL character,
  /// or in the names SQLite and Kura keep for themselves.
  package static func validate(storedName name: String, model: String) throws {
    let lowered = name.lowercased()
    var why: String?
    if name.isEmpty {
      why = "is empty"
    } else if name.unicodeScalars.contains("\0") {
      why = "holds a NUL character"
    } else if lowered.hasPrefix("sqlite_") || lowered.hasPrefix("kura_") {
      why =
        "starts with `\(lowered.hasPrefix("sqlite_") ? "sqlite_" : "kura_")`, kept for "
        + "SQLite's and Kura's own tables"
    }
    guard let why else { return }
    throw StoreError(
      .invalidModel, model: model,
      message:
        "Can't store `\(model)`: its stored name `\(name)` (`schemaName`) \(why). Declare "
        + "another one: `static var schemaName: String { \"\(model)Items\" }`.")
  }

  package convenience init<Model: PersistentModel>(deriving model: Model.Type) throws {
    let modelName = String(describing: model)
    var columns: [ColumnSchema] = []
    var failure: StoreError?
    let reflected = _forEachFieldWithKeyPath(of: model, options: []) { namePointer, keyPath in
      let name = String(cString: namePointer)
      let valueType = type(of: keyPath).valueType
      var wrapped = valueType
      var isOptional = false
      if let optional = valueType as? any OptionalValue.Type {
        wrapped = optional.wrappedType
        isOptional = true
        if wrapped is any OptionalValue.Type {
          failure = StoreError(
            .unsupportedProperty, model: modelName, property: name,
            message:
              "Can't store `\(modelName).\(name)`: its type `\(valueType)` is a nested optional, "
              + "which one nullable column cannot tell apart. Use a single optional.")
          return false
        }
      }
      guard let kind = ColumnKind.of(wrapped) else {
        failure = StoreError(
          .unsupportedProperty, model: modelName, property: name,
          message:
            "Can't store `\(modelName).\(name)`: its type `\(valueType)` is not Codable. Make it "
            + "Codable, or keep it out of the model.")
        return false
      }
      columns.append(
        ColumnSchema(
          name: name, keyPath: keyPath, kind: kind, isOptional: isOptional, valueType: wrapped))
      return true
    }
    if let failure { throw failure }
    guard reflected, !columns.isEmpty else {
      throw StoreError(
        .invalidModel, model: modelName,
        message:
          "Can't use `\(modelName)` as a model: its stored properties cannot be read. Models must "
          + "be structs with stored properties.")
    }
    var byKeyPath: [AnyKeyPath: Int] = [:]
    var byName: [String: Int] = [:]
    for (index, column) in columns.enumerated() {
      byKeyPath[column.keyPath] = index
      byName[column.name] = index
    }
    // `\Model.id` here goes through the `Identifiable` requirement, which differs from the stored
    // property's key path: find the column by name and answer for both key paths.
    guard let idIndex = byName["id"] else {
      throw StoreError(
        .invalidModel, model: modelName, property: "id",
        message:
          "Can't use `\(modelName)` as a model: `id` is not a stored property. Declare "
          + "`var id = UUID()` (or an integer or String id).")
    }
    let idColumn = columns[idIndex]
    byKeyPath[\Model.id as AnyKeyPath] = idIndex
    guard !idColumn.isOptional, [.integer, .text, .uuid].contains(idColumn.kind) else {
      throw StoreError(
        .unsupportedProperty, model: modelName, property: "id",
        message:
          "Can't use `\(modelName).id` as a primary key: its type `\(type(of: idColumn.keyPath))` "
          + "is not a UUID, an integer or a String. Use one of those.")
    }
    func indexes(_ keyPaths: [PartialKeyPath<Model>], kind: String) throws -> [Int] {
      try keyPaths.map { keyPath in
        guard let index = byKeyPath[keyPath] else {
          throw StoreError(
            .invalidModel, model: modelName,
            message:
              "Can't use the \(kind) `\(keyPath)` of `\(modelName)`: it is not a stored property. "
              + "Declare \(kind)es on stored properties only.")
        }
        return index
      }
    }
    var unique: [[Int]] = []
    var plain: [[Int]] = []
    for declaration in Model.schema.declarations {
      switch declaration.kind {
      case .unique: unique.append(try indexes(declaration.keyPaths, kind: "unique attribute"))
      case .index: plain.append(try indexes(declaration.keyPaths, kind: "index"))
      case .attribute: break  // read by ModelAttributes
      }
    }
    try Self.validate(storedName: Model.schemaName, model: modelName)
    self.init(
      modelName: modelName, tableName: Model.schemaName, columns: columns, primaryKeyIndex: idIndex,
      uniqueConstraints: unique.filter { $0 != [idIndex] && !$0.isEmpty },
      indexes: plain.filter { !$0.isEmpty }, byName: byName, byKeyPath: byKeyPath,
      derivedType: ObjectIdentifier(Model.self))
  }

  private init(
    modelName: String, tableName: String, columns: [ColumnSchema], primaryKeyIndex: Int,
    uniqueConstraints: [[Int]], indexes: [[Int]], byName: [String: Int],
    byKeyPath: [AnyKeyPath: Int], derivedType: ObjectIdentifier?
  ) {
    self.derivedType = derivedType
    self.modelName = modelName
    self.tableName = tableName
    self.columns = columns
    self.primaryKeyIndex = primaryKeyIndex
    self.uniqueConstraints = uniqueConstraints
    self.indexes = indexes
    self.columnIndexByName = byName
    self.columnIndexByKeyPath = byKeyPath
    self.columnNames = columns.map(\.name)
    self.columnKinds = columns.map(\.kind)
    self.columnNullable = columns.map(\.isOptional)
    let quotedTable = quoteIdentifier(tableName)
    let select =
      "SELECT \(columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")) FROM \(quotedTable)"
    let key = quoteIdentifier(columns[primaryKeyIndex].name)
    self.selectSQL = select
    self.selectByIDSQL = select + " WHERE \(key) = ?"
    self.deleteByIDSQL = "DELETE FROM \(quotedTable) WHERE \(key) = ?"
    self.existsByIDSQL = "SELECT 1 FROM \(quotedTable) WHERE \(key) = ?"
  }

  /// The upsert of one row of this model on `engine`, built once per engine.
  package func upsertSQL(for engine: any StoreEngine) -> String {
    let key = ObjectIdentifier(type(of: engine))
    if let sql = upserts.withLock({ $0[key] }) { return sql }
    let sql = engine.upsertSQL(self)
    return upserts.withLock { upserts in
      if let existing = upserts[key] { return existing }
      upserts[key] = sql
      return sql
    }
  }

  private static let cache = Mutex<[ObjectIdentifier: ModelSchema]>([:])

  /// The schema of a model type, derived on first use and cached.
  package static func of<Model: PersistentModel>(_ model: Model.Type) throws -> ModelSchema {
    let key = ObjectIdentifier(model)
    if let schema = cache.withLock({ $0[key] }) { return schema }
    let schema = try ModelSchema(deriving: model)
    cache.withLock { $0[key] = schema }
    return schema
  }
}
