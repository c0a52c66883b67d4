import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  extension PostgresStore {
    /// The store at `location` opened for migrating it, after `check` refused a database that
    /// is not a Kura store or was written by a newer Kura (the PostgreSQL counterpart of
    /// `SQLiteStore.openForMigration`).
    package static func openForMigration(
      _ location: PostgresLocation, check: (any StoreConnection) throws -> Void
    ) throws -> any StorePool {
      let url = location.passwordFreeURL
      do {
        let pool = try PostgresStorePool(location: location, readOnly: false)
        try pool.read { db in try check(db) }
        return pool
      } catch let error as PostgresError {
        throw StoreError.wrapping(postgres: error, url: url, doing: "open")
      }
    }

    /// A connection that reads the store at `location` as found: every transaction on it is
    /// read-only (`default_transaction_read_only`), so nothing on the server can be created or
    /// changed (for the store's inspector).
    package static func openForInspection(_ location: PostgresLocation) throws
      -> any StoreConnection
    {
      do {
        let connection = try PostgresConnection(location: location.readingOnly)
        return PostgresStoreConnection(connection: connection, channel: "")
      } catch let error as PostgresError {
        throw StoreError.wrapping(postgres: error, url: location.passwordFreeURL, doing: "open")
      }
    }
  }
#endif
