import Foundation
import KuraBase
import KuraSQLite

/// Creates what the store adds beside the models' tables, in the setup transaction: the change history table
/// and, per model with searchable properties, its full-text index (``SearchIndex``).
package struct StoreExtensions {
  package let graph: RelationshipGraph

  package func prepare(_ db: StoreConnection, schemas: [ModelSchema]) throws {
    try db.execute(db.engine.historyTableSQL)
    for schema in schemas {
      let searchable = graph.attributesByTable[schema.tableName]?.searchable ?? []
      try db.prepareSearchIndex(SearchIndex(schema: schema, columns: searchable))
    }
  }
}
