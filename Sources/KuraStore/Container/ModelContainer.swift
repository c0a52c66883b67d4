import Foundation
import KuraBase
import KuraSQLite
import Synchronization

/// The store of an app's models: one SQLite file (or memory) with a table per model type.
///
/// Create one container for the app and make ``ModelContext``s from it. Opening a container
/// creates the file, its folders and the models' tables when missing, and checks that existing
/// tables match the models. An existing file is first looked at read-only, leaving it, its `-wal`
/// and its `-shm` exactly as found: a damaged file, another program's database or a store written
/// by a newer version is refused without a byte changed, and a store that already matches the
/// models is opened without writing anything.
///
/// For example:
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, Activity.self, configurations: .default)
/// let context = ModelContext(container)
/// try context.insert(Trip(name: "Kyoto"))
/// try context.save()
/// ```
public final class ModelContainer: Sendable {
  /// Where the store lives.
  ///
  /// For example: `if container.configuration.isStoredInMemoryOnly { … }`.
  public let configuration: ModelConfiguration
  /// The store file, or `nil` in memory or on a PostgreSQL server.
  ///
  /// For example: `print(container.url?.path ?? "in memory")`.
  public let url: URL?
  /// How errors name the store: its file, or a PostgreSQL store's password-free URL.
  package let storeURL: URL?
  /// The model types' names, in the order given.
  ///
  /// For example: `print(container.modelNames)   // ["Trip", "Activity"]`.
  public let modelNames: [String]
  /// The store's connections (``StorePool``: the engine seam).
  package let pool: StorePool
  package let schemas: [ObjectIdentifier: ModelSchema]
  @MainActor private var main: ModelContext?
  /// The declared references, defaults, renames and searchable properties of the models.
  package let graph: RelationshipGraph
  /// Tells live queries and change-feed readers about saves (`Store/Observation/`).
  package let hub: ChangeHub
  /// What this container's saves learned about the history table (lets most saves skip the
  /// trim check).
  package let historyState = HistoryState()
  /// How many ``write(_:)`` bodies run on this container now (while none does, no task can be
  /// inside one, and reads skip looking up the task-local ``activeWrite``).
  package let writesUnderWay = Atomic<Int>(0)
  /// Whether ``configuration`` has a save participant (asked by every save, before it reads
  /// the participant).
  package let hasSaveParticipant: Bool

  /// Opens (creating when missing) the store for the given model types.
  ///
  /// For example:
  ///
  /// ```swift
  /// let container = try ModelContainer(
  ///   for: Student.self, configurations: .url(documents.appendingPathComponent("s.sqlite")))
  /// ```
  ///
  /// - Parameters:
  ///   - models: The model types stored; each gets a table.
  ///   - configurations: Where the store lives; `.default` when none is given. One container
  ///     holds one store, so give at most one.
  /// - Throws: ``StoreError``: ``StoreError/Code/unsupportedProperty`` or
  ///   ``StoreError/Code/invalidModel`` for a model Kura cannot store,
  ///   ``StoreError/Code/schemaMismatch`` when existing tables don't match the models,
  ///   ``StoreError/Code/notAStore`` or ``StoreError/Code/damaged`` for a file that is not a
  ///   healthy SQLite database or is another program's database (it is left untouched),
  ///   ``StoreError/Code/newerStore`` for a store written by a newer Kura or app version (left
  ///   untouched), ``StoreError/Code/cannotOpen`` (such as for a dangling symbolic link, or a
  ///   missing or empty store opened with ``ModelConfiguration/allowsSave`` off).
  public convenience init(
    for models: any PersistentModel.Type..., configurations: ModelConfiguration...
  ) throws {
    try self.init(models: models, configurations: configurations, migration: nil)
  }

  /// The designated initializer: ``init(for:configurations:)`` and the migrating initializers
  /// (`ModelContainer+Migration.swift`) call it.
  package init(
    models: [any PersistentModel.Type], configurations: [ModelConfiguration],
    migration: MigrationOptions?
  ) throws {
    guard configurations.count <= 1 else {
      throw StoreError(
        .cannotOpen,
        message:
          "Can't open a container with \(configurations.count) configurations: a container holds "
          + "one store. Make one container per store.")
    }
    let configuration = configurations.first ?? .default
    var schemas: [ObjectIdentifier: ModelSchema] = [:]
    var ordered: [ModelSchema] = []
    for model in models {
      let schema = try Self.schema(of: model)
      if schemas[ObjectIdentifier(model)] != nil { continue }
      if let clash = ordered.first(where: { $0.tableName == schema.tableName }) {
        throw StoreError(
          .invalidModel, model: schema.modelName,
          message:
            "Can't store `\(schema.modelName)`: its table name `\(schema.tableName)` is also "
            + "used by `\(clash.modelName)`. Give one of them another `schemaName`.")
      }
      schemas[ObjectIdentifier(model)] = schema
      ordered.append(schema)
    }
    let graph = try RelationshipGraph(models: models, schemas: schemas)
    // How a store found is judged before anything is written (on any engine).
    func examiner(_ url: URL) -> StoreExaminer {
      var examination = StoreExamination(
        url: url, schemas: ordered, graph: graph, migration: migration)
      examination.allowsUnrelatedModels = configuration.allowsUnrelatedModels
      return { try examination.outcome($0) }
    }
    let readOnly = !configuration.allowsSave
    // The one place that picks the engine.
    let opened: OpenedStore
    switch configuration.storage {
    case .memory:
      opened = try SQLiteStore.openInMemory()
    case .file(let file):
      let url = file.standardizedFileURL
      opened = try SQLiteStore.open(url, readOnly: readOnly, examine: examiner(url))
    case .defaultFile:
      let url = try Self.resolve { try Locations.current().defaultStoreURL }
      opened = try SQLiteStore.open(url, readOnly: readOnly, examine: examiner(url))
    case .external(let reference):
      opened = try reference.store.open(
        readOnly: readOnly, settings: configuration.engineSettings.value,
        examine: examiner(reference.store.passwordFreeURL))
    case .invalidExternal(let engine, let why):
      throw StoreError(
        .cannotOpen, message: "Can't open the \(engine) store: \(why). Check the URL.")
    }
    let (url, pool, outcome) = (opened.url, opened.pool, opened.finding)
    if outcome != .current {
      var setup = StoreSetup(url: url, engine: pool.engine)
      setup.graph = graph  // foreign keys, search indexes and migrations
      setup.migration = migration
      try setup.prepare(pool, schemas: ordered)
    }
    self.graph = graph
    self.hub = ChangeHub(pool: pool, url: url)
    self.configuration = configuration
    self.hasSaveParticipant = configuration.saveParticipant != nil
    self.storeURL = url
    self.url = url?.isFileURL == true ? url : nil
    self.modelNames = ordered.map(\.modelName)
    self.pool = pool
    self.schemas = schemas
    // A save participant (sync) makes its own tables once here, not in each save; a
    // read-only container writes nothing (SaveParticipant.swift).
    if !readOnly, let participant = configuration.saveParticipant {
      try participant.participant.prepare(self)
    }
  }

  private static func schema(of model: any PersistentModel.Type) throws -> ModelSchema {
    try ModelSchema.of(model)
  }

  private static func resolve<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as LocationError {
      throw StoreError(
        .cannotOpen, message: "Can't open the store: \(error.clause). Choose another location.")
    }
  }

  /// The context for the main actor (SwiftUI's views), with autosave on: each insert or delete
  /// is saved when it returns, unless inside ``ModelContext/transaction(_:)``.
  ///
  /// For example:
  ///
  /// ```swift
  /// @MainActor func add(_ name: String) throws {
  ///   try container.mainContext.insert(Student(student: name))
  /// }
  /// ```
  @MainActor public var mainContext: ModelContext {
    if let main { return main }
    let context = ModelContext(self)
    context.autosaveEnabled = true
    main = context
    return context
  }

  /// The schema of a model type stored here.
  package func schema<Model: PersistentModel>(for model: Model.Type) throws -> ModelSchema {
    guard let schema = schemas[ObjectIdentifier(model)] else {
      let name = String(describing: model)
      throw StoreError(
        .modelNotInContainer, model: name,
        message:
          "Can't use `\(name)` in this container: it is not one of its models "
          + "(\(modelNames.map { "`\($0)`" }.joined(separator: ", "))). Add `\(name).self` to "
          + "`ModelContainer(for:)`.")
    }
    return schema
  }
}
