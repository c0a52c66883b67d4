#if canImport(CLibPQ)
  import Foundation

  extension PostgresStore {
    /// The store at `location` opened for ``StoreMigration``, after a read-only look refused a
    /// database that is not a Kura store or was written by a newer Kura (the PostgreSQL
    /// counterpart of `SQLiteStore.openForMigration`).
    static func openForMigration(_ location: PostgresLocation) throws -> StorePool {
      let url = location.passwordFreeURL
      do {
        let pool = StorePool.postgres(try PostgresStorePool(location: location, readOnly: false))
        let examination = StoreExamination(
          url: url, schemas: [], graph: RelationshipGraph(), migration: nil)
        _ = try pool.read { db in try examination.metadata(db, schemaVersionLimit: nil) }
        return pool
      } catch let error as PostgresError {
        throw StoreError.wrapping(postgres: error, url: url, doing: "open")
      }
    }
  }
#endif
