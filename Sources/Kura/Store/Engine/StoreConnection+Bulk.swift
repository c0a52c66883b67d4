import Foundation

extension StoreConnection {
  // MARK: Bulk saves

  /// Writes the upserts of `models` (a save's log of one model, with no deletion) in one
  /// batch when the engine has a faster way than one upsert per row and the batch is large
  /// enough for it (PostgreSQL: `COPY` into a staging table, ``PostgresBulkUpsert``); returns
  /// what changed, or `nil` (nothing written) for the row-by-row path.
  func bulkUpsert<Model: PersistentModel>(
    _ models: ModelLog<Model>, schema: ModelSchema,
    encoder makeEncoder: (StoreStatement) -> RowEncoder
  ) throws -> ChangeSet.ModelChanges? {
    switch self {
    case .sqlite:
      // One prepared statement per row runs in the process: no round trip to save.
      return nil
    #if canImport(CLibPQ)
      case .postgres(let connection):
        return try PostgresBulkUpsert.write(
          models, schema: schema, on: connection, encoder: makeEncoder)
    #endif
    }
  }
}
