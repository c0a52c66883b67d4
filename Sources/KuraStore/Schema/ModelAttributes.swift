import Foundation
import KuraBase
import KuraSQLite

/// What a model's ``Schema`` declares beyond unique attributes and indexes: references, default
/// values, renamed properties and searchable text, resolved to column names.
package struct ModelAttributes: Sendable {
  /// A to-one reference from one of this model's columns to another model.
  package struct Reference: Sendable, Hashable {
    /// The referring model's name and table, such as `Activity`.
    package var model: String
    package var table: String
    /// The referring column (the property name) and whether it may be NULL.
    package var column: String
    package var isOptional: Bool
    /// The referring table's primary-key column.
    package var primaryKey: String
    /// The target model's type, name, table and primary-key column.
    package var target: ObjectIdentifier
    package var targetModel: String
    package var targetTable: String
    package var targetKey: String
    package var deleteRule: DeleteRule
    /// Whether the target's key is text: the referring values are then compared like Swift's
    /// `==`, as the target's key column compares them.
    package var comparesLikeSwift = false
  }

  package var references: [Reference] = []
  /// Default values by column name, as stored.
  package var defaults: [String: DatabaseValue] = [:]
  /// Earlier names by current column name.
  package var renamedFrom: [String: String] = [:]
  /// Searchable text columns, in declaration order.
  package var searchable: [String] = []

  /// The attributes a model declares, checked against the schemas of the container's models.
  package static func of<Model: PersistentModel>(
    _ model: Model.Type, schema: ModelSchema, in schemas: [ObjectIdentifier: ModelSchema]
  ) throws -> ModelAttributes {
    var attributes = ModelAttributes()
    for declaration in Model.schema.declarations {
      guard let attribute = declaration.attribute else { continue }
      for keyPath in declaration.keyPaths {
        guard let column = schema.column(for: keyPath) else {
          throw invalid(
            schema, nil,
            "Can't use the declaration `\(keyPath)` of `\(schema.modelName)`: it is not a "
              + "stored property. Declare attributes on stored properties only.")
        }
        switch attribute {
        case .reference(let target, let rule):
          attributes.references.append(
            try reference(schema, column: column, target: target, rule: rule, in: schemas))
        case .defaultValue(let value):
          guard let stored = databaseValue(for: value, kind: column.kind) else {
            throw invalid(
              schema, column.name,
              "Can't use the default value of `\(schema.modelName).\(column.name)`: `\(value)` "
                + "cannot be stored as \(column.kind.rawValue). Give a value of the property's type."
            )
          }
          attributes.defaults[column.name] = stored
        case .renamed(let old):
          attributes.renamedFrom[column.name] = old
        case .searchable:
          guard column.kind == .text else {
            throw invalid(
              schema, column.name,
              "Can't search `\(schema.modelName).\(column.name)`: it is not text. Declare "
                + "`.searchable` on String properties only.")
          }
          if !attributes.searchable.contains(column.name) {
            attributes.searchable.append(column.name)
          }
        }
      }
    }
    return attributes
  }

  private static func reference(
    _ schema: ModelSchema, column: ColumnSchema, target: any PersistentModel.Type,
    rule: DeleteRule, in schemas: [ObjectIdentifier: ModelSchema]
  ) throws -> Reference {
    let targetName = String(describing: target)
    // Another version of the target type (a `VersionedSchema`'s) stored in the same table will do.
    let sameTable = schemas.values.first { $0.tableName == target.schemaName }
    guard let targetSchema = schemas[ObjectIdentifier(target)] ?? sameTable else {
      throw invalid(
        schema, column.name,
        "Can't relate `\(schema.modelName).\(column.name)` to `\(targetName)`: `\(targetName)` "
          + "is not one of the container's models. Add `\(targetName).self` to "
          + "`ModelContainer(for:)`.")
    }
    if rule == .nullify && !column.isOptional {
      throw invalid(
        schema, column.name,
        "Can't nullify `\(schema.modelName).\(column.name)` when a `\(targetName)` is deleted: "
          + "the property is not optional. Make it `\(targetName).ID?`, or choose the delete rule "
          + "`.cascade`, `.deny` or `.noAction`.")
    }
    return Reference(
      model: schema.modelName, table: schema.tableName, column: column.name,
      isOptional: column.isOptional, primaryKey: schema.primaryKey.name,
      target: ObjectIdentifier(target), targetModel: targetSchema.modelName,
      targetTable: targetSchema.tableName, targetKey: targetSchema.primaryKey.name,
      deleteRule: rule, comparesLikeSwift: targetSchema.keyComparesLikeSwift)
  }

  /// The error for a declaration of `schema` (on `property`, when there is one) that can't be
  /// used; `message` says why and what to do.
  private static func invalid(_ schema: ModelSchema, _ property: String?, _ message: String)
    -> StoreError
  {
    StoreError(.invalidModel, model: schema.modelName, property: property, message: message)
  }

  /// The `FOREIGN KEY` clauses of the model's table.
  package var foreignKeyClauses: [String] {
    references.compactMap { reference in
      guard let action = reference.deleteRule.foreignKeyAction else { return nil }
      return "FOREIGN KEY (\(quoteIdentifier(reference.column))) REFERENCES "
        + "\(quoteIdentifier(reference.targetTable)) (\(quoteIdentifier(reference.targetKey))) "
        + "ON DELETE \(action) DEFERRABLE INITIALLY DEFERRED"
    }
  }
}

extension PersistentModel {
  /// The model's declared attributes (opens an existential model type).
  package static func declaredAttributes(
    schema: ModelSchema, in schemas: [ObjectIdentifier: ModelSchema]
  ) throws -> ModelAttributes {
    try ModelAttributes.of(Self.self, schema: schema, in: schemas)
  }
}
