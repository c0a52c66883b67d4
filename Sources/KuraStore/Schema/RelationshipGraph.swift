import Foundation
import KuraBase
import KuraSQLite

/// The declared attributes of every model in a container, with the references indexed by the
/// table they point at (what a delete must look at).
package struct RelationshipGraph: Sendable {
  /// Attributes by model type.
  package let attributes: [ObjectIdentifier: ModelAttributes]
  /// Attributes by table name.
  package let attributesByTable: [String: ModelAttributes]
  /// References by the table they point at.
  package let referencesByTarget: [String: [ModelAttributes.Reference]]
  /// Whether any model declares a reference.
  package var isEmpty: Bool { referencesByTarget.isEmpty }

  package init(models: [any PersistentModel.Type], schemas: [ObjectIdentifier: ModelSchema]) throws
  {
    var attributes: [ObjectIdentifier: ModelAttributes] = [:]
    var byTable: [String: ModelAttributes] = [:]
    var byTarget: [String: [ModelAttributes.Reference]] = [:]
    for model in models {
      let key = ObjectIdentifier(model)
      guard attributes[key] == nil, let schema = schemas[key] else { continue }
      let declared = try model.declaredAttributes(schema: schema, in: schemas)
      attributes[key] = declared
      byTable[schema.tableName] = declared
      for reference in declared.references {
        byTarget[reference.targetTable, default: []].append(reference)
      }
    }
    self.attributes = attributes
    self.attributesByTable = byTable
    self.referencesByTarget = byTarget
  }

  /// A graph from attributes by table (descriptions without model types).
  package init(attributesByTable: [String: ModelAttributes]) {
    attributes = [:]
    self.attributesByTable = attributesByTable
    var byTarget: [String: [ModelAttributes.Reference]] = [:]
    for reference in attributesByTable.values.flatMap(\.references) {
      byTarget[reference.targetTable, default: []].append(reference)
    }
    referencesByTarget = byTarget
  }

  /// An empty graph (no declared attributes).
  package init() {
    attributes = [:]
    attributesByTable = [:]
    referencesByTarget = [:]
  }
}
