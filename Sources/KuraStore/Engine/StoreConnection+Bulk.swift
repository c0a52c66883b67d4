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
