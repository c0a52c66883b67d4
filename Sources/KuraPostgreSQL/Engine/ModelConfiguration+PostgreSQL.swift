import Foundation
import KuraBase
import KuraStore

extension ModelConfiguration {
  /// How a PostgreSQL store's container uses the server: its most connections, how long callers
  /// wait for one, how long an interrupted commit's outcome may take to find out, and how
  /// quickly its change listener notices a dead connection (ignored by other stores).
  ///
  /// For example: `configuration.postgresSettings.maximumConnections = 8`.
  public var postgresSettings: PostgresStoreSettings {
    get { engineSettings.value as? PostgresStoreSettings ?? PostgresStoreSettings() }
    set { engineSettings = EngineSettingsSlot(newValue) }
  }

  /// A store in a PostgreSQL database, which several processes on several machines share: the
  /// same models, contexts, predicates and live queries as on SQLite. The tables live in the
  /// connection's current schema (`public` unless the URL's `options` or the role's
  /// `search_path` say otherwise). The password comes from the URL, the file `PGPASSFILE` names
  /// or `PGPASSWORD`, and never appears in an error, log or description.
  ///
  /// For example:
  ///
  /// ```swift
  /// let url = URL(string: "postgresql://app@db.example.com/trips")!
  /// let container = try ModelContainer(for: Trip.self, configurations: .postgres(url))
  /// ```
  ///
  /// - Parameter url: A `postgresql://` (or `postgres://`) URL naming the server and database.
  /// - Returns: The configuration; a URL libpq can't read is reported when the container opens.
  public static func postgres(_ url: URL) -> ModelConfiguration {
    do {
      return ModelConfiguration(
        storage: .external(ExternalStoreReference(try PostgresLocation(url: url))))
    } catch {
      return ModelConfiguration(
        storage: .invalidExternal(engine: "PostgreSQL", why: String(describing: error)))
    }
  }

  /// A store in the PostgreSQL database a libpq connection string (or URL) names, such as
  /// `host=/var/run/postgresql dbname=trips` (see ``postgres(_:)``).
  ///
  /// For example:
  ///
  /// ```swift
  /// let configuration = try ModelConfiguration.postgres(connectionString: "dbname=trips")
  /// let container = try ModelContainer(for: Trip.self, configurations: configuration)
  /// ```
  ///
  /// - Parameter connectionString: The libpq connection string or `postgresql://` URL.
  /// - Returns: The configuration.
  /// - Throws: ``StoreError/Code/cannotOpen`` when libpq can't read the string (its message
  ///   never holds the password).
  public static func postgres(connectionString: String) throws -> ModelConfiguration {
    do {
      return ModelConfiguration(
        storage: .external(ExternalStoreReference(try PostgresLocation(connectionString))))
    } catch let error as PostgresError {
      throw StoreError(
        .cannotOpen, underlying: error,
        message: "Can't use the PostgreSQL connection string: \(error.message). Check its syntax.")
    }
  }
}

extension PostgresLocation: ExternalStore {
  package var engineName: String { StoreInspector.Engine.postgresql.rawValue }

  package var locationDescription: String { description }

  package func open(readOnly: Bool, settings: (any Sendable)?, examine: StoreExaminer) throws
    -> OpenedStore
  {
    #if canImport(CLibPQ)
      return try PostgresStore.open(
        self, readOnly: readOnly,
        settings: settings as? PostgresStoreSettings ?? PostgresStoreSettings(), examine: examine)
    #else
      throw unavailable("open")
    #endif
  }

  package func openForMigration(check: (any StoreConnection) throws -> Void) throws
    -> any StorePool
  {
    #if canImport(CLibPQ)
      return try PostgresStore.openForMigration(self, check: check)
    #else
      throw unavailable("migrate")
    #endif
  }

  package func openForInspection() throws -> any StoreConnection {
    #if canImport(CLibPQ)
      return try PostgresStore.openForInspection(self)
    #else
      throw unavailable("inspect")
    #endif
  }

  private func unavailable(_ action: String) -> StoreError {
    StoreError(
      .cannotOpen,
      message:
        "Can't \(action) store `\(storeName)`: this platform has no PostgreSQL client library "
        + "(libpq). Use an SQLite store here.")
  }
}

/// How the store opens a `postgresql://` URL given where it takes any URL
/// (`StoreInspector(url:)`, `StoreMigration.migrate(storeAt:to:)`): the store finds this type at
/// run time by its name (`ExternalEngines`), so its name must not change.
package struct PostgresExternalStoreFactory: ExternalStoreFactory {
  package static func configuration(for url: URL) -> ModelConfiguration { .postgres(url) }
}
