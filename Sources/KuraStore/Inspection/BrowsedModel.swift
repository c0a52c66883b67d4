import Foundation
import KuraBase
import KuraSQLite

/// A model of a store as found, without its Swift type: its table, properties and their kinds,
/// indexes, references both ways and search index (`kura studio`'s models page and row queries).
package struct BrowsedModel: Sendable, Codable, Equatable {
  /// One property (column).
  package struct Column: Sendable, Codable, Equatable {
    /// The property (column) name.
    package var name: String
    /// How Kura stores it (`integer`, `real`, `text`, `blob`, `bool`, `date`, `uuid`, `url`,
    /// `json`), as recorded in `kura_models` (or read from the declared type).
    package var kind: String
    /// The declared SQL type.
    package var type: String
    /// Whether the property is optional (the column allows NULL).
    package var isOptional: Bool
    /// Whether it is the primary key (the model's `id`).
    package var isPrimaryKey: Bool
    /// Whether a unique attribute covers it alone.
    package var isUnique: Bool

    /// ``kind`` as the store's type.
    package var storedKind: ColumnKind { ColumnKind(rawValue: kind) ?? .text }
  }

  /// A reference from this model to another (a declared relationship).
  package struct Reference: Sendable, Codable, Equatable {
    /// The property holding the other model's id.
    package var property: String
    /// The model referred to.
    package var model: String
    /// What deleting the model referred to does to this one: `cascade`, `nullify` or `deny`.
    package var deleteRule: String
  }

  /// A reference to this model from another.
  package struct Referrer: Sendable, Codable, Equatable {
    /// The referring model.
    package var model: String
    /// Its property holding this model's id.
    package var property: String
    /// What deleting this model does to the referring one.
    package var deleteRule: String
  }

  /// The model type's name.
  package var name: String
  /// Its table.
  package var table: String
  /// Its number of rows.
  package var rows: Int
  /// Its properties, in column order.
  package var columns: [Column]
  /// Its indexes (unique attributes and plain indexes).
  package var indexes: [StoreInspector.TableSchema.Index]
  /// Its references to other models.
  package var references: [Reference]
  /// The references of other models to it.
  package var referrers: [Referrer]
  /// The properties of its full-text search index; empty when it has none.
  package var searchable: [String]

  /// The primary key's column.
  package var primaryKey: Column {
    columns.first(where: \.isPrimaryKey) ?? columns.first(where: { $0.name == "id" })
      ?? Column(
        name: "rowid", kind: "integer", type: "INTEGER", isOptional: false, isPrimaryKey: true,
        isUnique: true)
  }

  /// The schema the store's predicate translation reads: each column's key path on
  /// ``BrowsedRow`` has the property's Swift type.
  package var schema: ModelSchema {
    ModelSchema(
      tableName: table,
      columns: columns.map { column in
        ColumnSchema(
          name: column.name, keyPath: Self.keyPath(column), kind: column.storedKind,
          isOptional: column.isOptional)
      }, modelName: name)
  }

  /// The key path on ``BrowsedRow`` that reads `column` with its Swift type.
  package static func keyPath(_ column: Column) -> AnyKeyPath {
    let name = column.name
    switch (column.storedKind, column.isOptional) {
    case (.integer, false): return \BrowsedRow[integer: name]
    case (.integer, true): return \BrowsedRow[optionalInteger: name]
    case (.real, false): return \BrowsedRow[real: name]
    case (.real, true): return \BrowsedRow[optionalReal: name]
    case (.text, false): return \BrowsedRow[text: name]
    case (.text, true): return \BrowsedRow[optionalText: name]
    case (.bool, false): return \BrowsedRow[bool: name]
    case (.bool, true): return \BrowsedRow[optionalBool: name]
    case (.date, false): return \BrowsedRow[date: name]
    case (.date, true): return \BrowsedRow[optionalDate: name]
    case (.uuid, false): return \BrowsedRow[uuid: name]
    case (.uuid, true): return \BrowsedRow[optionalUUID: name]
    case (.url, false): return \BrowsedRow[url: name]
    case (.url, true): return \BrowsedRow[optionalURL: name]
    case (.blob, false): return \BrowsedRow[data: name]
    case (.blob, true): return \BrowsedRow[optionalData: name]
    case (.json, false): return \BrowsedRow[json: name]
    case (.json, true): return \BrowsedRow[optionalJSON: name]
    }
  }

  /// The delete rule an `ON DELETE` action stands for.
  package static func deleteRule(onDelete action: String) -> String {
    switch action.uppercased() {
    case "CASCADE": return DeleteRule.cascade.rawValue
    case "SET NULL": return DeleteRule.nullify.rawValue
    default: return DeleteRule.deny.rawValue
    }
  }
}
