import Foundation
import KuraBase
import KuraSQLite

/// Where a ``ModelContainer`` keeps its store: the app's default store file, a file you name, or
/// memory.
///
/// For example:
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, configurations: .inMemory)
/// ```
public struct ModelConfiguration: Sendable, Hashable {
  package enum Storage: Sendable, Hashable {
    case defaultFile
    case file(URL)
    case memory
    /// A store kept by another engine (PostgreSQL).
    case external(ExternalStoreReference)
    /// A location the engine could not read (reported when the container opens): the engine's
    /// name and why.
    case invalidExternal(engine: String, why: String)
  }

  package let storage: Storage

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
  package var saveParticipant: ConfiguredSaveParticipant?

  /// The settings of the engine that keeps an external store (`postgresSettings`, set through
  /// `KuraPostgreSQL`).
  package var engineSettings = EngineSettingsSlot()

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

  /// A configuration of `storage` with the default options.
  package init(storage: Storage) { self.storage = storage }

  /// Whether the store lives in memory.
  ///
  /// For example: `if configuration.isStoredInMemoryOnly { … }`.
  public var isStoredInMemoryOnly: Bool { storage == .memory }
}
