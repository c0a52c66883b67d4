import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

extension SyncModelDeclaration {
  /// The declarations of a container's models, as its replica sends them in a push.
  package static func declarations(of container: ModelContainer) -> [SyncModelDeclaration] {
    var declarations: [SyncModelDeclaration] = []
    let byTable = Dictionary(
      container.schemas.values.map { ($0.tableName, $0) }, uniquingKeysWith: { first, _ in first })
    for schema in container.schemas.values.sorted(by: { $0.storedName < $1.storedName }) {
      let attributes = container.graph.attributesByTable[schema.tableName]
      let references = Dictionary(
        (attributes?.references ?? []).map { ($0.column, $0) },
        uniquingKeysWith: { first, _ in first })
      var properties: [Property] = []
      for (index, column) in schema.columns.enumerated() where index != schema.primaryKeyIndex {
        var property = Property(
          name: column.name, kind: column.kind.rawValue, optional: column.isOptional)
        if attributes?.defaults[column.name] != nil { property.defaulted = true }
        if let reference = references[column.name],
          let target = byTable[reference.targetTable]
        {
          property.target = target.storedName
          property.rule = reference.deleteRule.rawValue
        }
        properties.append(property)
      }
      let unique = schema.uniqueConstraints.map { $0.map { schema.columns[$0].name } }
      declarations.append(
        SyncModelDeclaration(
          model: schema.storedName, id: schema.primaryKey.kind.rawValue, properties: properties,
          unique: unique.isEmpty ? nil : unique
        ).normalized)
    }
    return declarations
  }
}
