import Foundation
import KuraBase
import KuraSQLite

/// What a bulk upsert (``StoreConnection/bulkUpsert(_:rowCount:bindRow:)``) did.
package enum StoreBulkOutcome: Sendable, Equatable {
  /// Every row was new and inserted.
  case allInserted
  /// The stored keys of the rows that were inserted (as the engine reads them back); the others
  /// updated a stored row.
  case inserted([DatabaseValue])
  /// What each row's upsert did, in the rows' order (the engine ran the row-by-row upsert for
  /// each, in one round trip): `nil` when it changed no row (a model with only an id, already
  /// stored).
  case eachRow([StoreBulkRow?])
}

/// What one row's upsert did (``StoreBulkOutcome/eachRow(_:)``).
package struct StoreBulkRow: Sendable, Equatable {
  /// Whether it inserted a row (else it updated one).
  package var inserted: Bool
  /// The stored key of the row it wrote: another row's, when a unique attribute matched a stored
  /// row with another id (which the upsert updates in place, keeping its id).
  package var key: DatabaseValue

  package init(inserted: Bool, key: DatabaseValue) {
    self.inserted = inserted
    self.key = key
  }
}

extension StoreConnection {
  /// No faster way: every save writes one upsert per row.
  package var bulkUpsertMinimumRows: Int? { nil }

  /// No faster way: the row-by-row path runs (nothing written).
  package func bulkUpsert(
    _ schema: ModelSchema, rowCount: Int, bindRow: (Int, any StoreStatement) throws -> Void
  ) throws -> StoreBulkOutcome? {
    nil
  }
}
