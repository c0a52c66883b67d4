import Foundation

/// Where a ``ModelContainer`` keeps its store: the app's default store file, a file you name, or
/// memory.
///
/// For example:
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, configurations: .inMemory)
/// ```
public struct ModelConfiguration: Sendable, Hashable {
  enum Storage: Sendable, Hashable {
    case defaultFile
    case file(URL)
    case memory
    case postgres(PostgresLocation)
    /// A `postgresql://` URL libpq could not read (reported when the container opens).
    case invalidPostgres(String)
  }

  let storage: Storage

  /// Whether the container may write the store: create it, initialise it, migrate it and save.
  /// With `false` (for commands that only read), opening a missing, empty or outdated store is
  /// an error and nothing is ever written; ``ModelContext/save()`` with changes throws.
  ///
  /// For example:
  ///
  /// ```swift
  /// var configuration = ModelConfiguration.url(storeURL)
  /// configuration.allowsSave = false
  /// let container = try ModelContainer(for: Student.self, configurations: configuration)
  /// ```
  public var allowsSave = true

  /// Whether the container may open a store that holds only other models (most likely another
  /// app's store, or a mistyped path) and add its own models' tables to it. `false` by default:
  /// such a store is refused with ``StoreError/Code/schemaMismatch`` and nothing is changed. A
  /// store that holds at least one of the container's models, or one a migration plan migrates,
  /// is opened as usual (a model new to it gets its table).
  ///
  /// For example:
  ///
  /// ```swift
  /// var configuration = ModelConfiguration.url(sharedStoreURL)
  /// configuration.allowsUnrelatedModels = true  // add Trip's tables to a store of other models
  /// let container = try ModelContainer(for: Trip.self, configurations: configuration)
  /// ```
  public var allowsUnrelatedModels = false

  /// How much change history the store keeps (trimmed as part of saves); ``HistoryRetention/default``
  /// keeps the last 7 days, at most 10,000 saves.
  ///
  /// For example: `configuration.historyRetention = .unlimited`.
  public var historyRetention = HistoryRetention.default

  /// What records each save in its transaction besides the store (sync's outbox, set through
  /// `sync`), or `nil`.
  var saveParticipant: ConfiguredSaveParticipant?

  /// How a PostgreSQL store's container uses the server: its most connections, how long callers
  /// wait for one, how long an interrupted commit's outcome may take to find out, and how
  /// quickly its change listener notices a dead connection (ignored by other stores).
  ///
  /// For example: `configuration.postgresSettings.maximumConnections = 8`.
  public var postgresSettings = PostgresStoreSettings()

  /// The app's default store: `default.store` in the app's data folder (see
  /// ``Locations/defaultStoreURL``), like SwiftData's default store.
  ///
  /// For example: `try ModelContainer(for: Trip.self, configurations: .default)`.
  public static let `default` = ModelConfiguration(storage: .defaultFile)

  /// A private store in memory, gone when the container is released (previews and tests).
  ///
  /// For example: `try ModelContainer(for: Trip.self, configurations: .inMemory)`.
  public static let inMemory = ModelConfiguration(storage: .memory)

  /// A store in the file at `url`; missing folders on its path are created (mode 0700).
  ///
  /// For example:
  ///
  /// ```swift
  /// let documents = try Locations.current().documentsDirectory
  /// let url = documents.appendingPathComponent("SQlite3/SwiftUICDSave2.sqlite")
  /// let container = try ModelContainer(for: Student.self, configurations: .url(url))
  /// ```
  ///
  /// - Parameter url: The store file.
  /// - Returns: The configuration.
  public static func url(_ url: URL) -> ModelConfiguration {
    ModelConfiguration(storage: .file(url))
  }

  /// A store in the file at `url` that is only read: opening never creates, initialises or
  /// migrates it (see ``allowsSave``).
  ///
  /// For example:
  ///
  /// ```swift
  /// let container = try ModelContainer(for: Student.self, configurations: .readOnly(url))
  /// ```
  ///
  /// - Parameter url: The store file.
  /// - Returns: The configuration.
  public static func readOnly(_ url: URL) -> ModelConfiguration {
    var configuration = ModelConfiguration(storage: .file(url))
    configuration.allowsSave = false
    return configuration
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
      return ModelConfiguration(storage: .postgres(try PostgresLocation(url: url)))
    } catch {
      return ModelConfiguration(storage: .invalidPostgres(String(describing: error)))
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
      return ModelConfiguration(storage: .postgres(try PostgresLocation(connectionString)))
    } catch let error as PostgresError {
      throw StoreError(
        .cannotOpen, underlying: error,
        message: "Can't use the PostgreSQL connection string: \(error.message). Check its syntax.")
    }
  }

  /// Whether the store lives in memory.
  ///
  /// For example: `if configuration.isStoredInMemoryOnly { … }`.
  public var isStoredInMemoryOnly: Bool { storage == .memory }
}
