import Foundation
import KuraBase
import KuraSQLite

/// Reads a model store without its model types: what models and tables it holds, their
/// columns, indexes and rows, and whether it is intact. `kura store` is built on it.
///
/// It reads an SQLite store file (opened read-only; nothing beside it is created or changed) or
/// a PostgreSQL database (on a connection whose transactions are all read-only, so nothing on
/// the server is created or changed).
///
/// For example:
///
/// ```swift
/// let inspector = try StoreInspector(url: storeURL)
/// for model in try inspector.info().models { print(model.name, model.rows) }
/// ```
public struct StoreInspector {
  /// The engine holding a store.
  ///
  /// For example: `if inspector.engine == .postgresql { print("on a server") }`.
  public enum Engine: String, Codable, Sendable, Hashable {
    /// An SQLite file.
    case sqlite
    /// A PostgreSQL database.
    case postgresql
  }

  /// The store file, or `nil` for a PostgreSQL database.
  ///
  /// For example: `print(inspector.url?.path ?? inspector.location)`.
  public let url: URL?
  /// The engine holding the store.
  ///
  /// For example: `print(inspector.engine)   // sqlite`.
  public let engine: Engine
  /// Where the store is: the file's path, or the database, server and user (never the
  /// password), such as: database `app` on `db.example.com:5432` as user `alice`.
  ///
  /// For example: `print(inspector.location)`.
  public let location: String
  /// How messages name the store: the file's name, or the database and server.
  package let name: String
  /// How errors name the store: its file, or a PostgreSQL store's password-free URL.
  package let storeURL: URL?
  /// A connection that reads the store as found (the engine seam, ``StoreConnection``).
  package let connection: StoreConnection

  /// Opens a store file read-only, or a PostgreSQL store given its `postgresql://` URL (as
  /// ``init(configuration:)`` does with ``ModelConfiguration/postgres(_:)``).
  ///
  /// For example: `let inspector = try StoreInspector(url: URL(fileURLWithPath: "a.sqlite"))`.
  ///
  /// - Parameter url: The store file, or a `postgresql://` (or `postgres://`) URL.
  /// - Throws: ``StoreError/Code/cannotOpen`` when there is no such file (or the server can't be
  ///   reached), ``StoreError/Code/notAStore`` when it is not an SQLite database.
  public init(url: URL) throws {
    if let configuration = try ExternalEngines.configuration(for: url, doing: "inspect") {
      try self.init(configuration: configuration)
    } else {
      try self.init(file: url)
    }
  }

  /// Opens a store file read-only.
  private init(file url: URL) throws {
    self.url = url
    self.storeURL = url
    self.engine = .sqlite
    self.location = url.path
    self.name = url.lastPathComponent
    self.connection = try SQLiteStore.openForInspection(url)
  }

  /// Opens the store a configuration names, to read it only: a file (``ModelConfiguration/url(_:)``,
  /// ``ModelConfiguration/default``) or a PostgreSQL database
  /// (``ModelConfiguration/postgres(_:)``). Nothing is created or changed: a missing file or
  /// database is an error, an empty one is reported as empty (see ``isEmpty``).
  ///
  /// For example:
  ///
  /// ```swift
  /// let inspector = try StoreInspector(configuration: .postgres(connectionString: "dbname=app"))
  /// print(try inspector.info().models.count)
  /// ```
  ///
  /// - Parameter configuration: Where the store is.
  /// - Throws: ``StoreError/Code/cannotOpen`` for a missing file, an in-memory store (which
  ///   lives only in its container), a URL libpq can't read, or a server that can't be reached
  ///   or a database that does not exist (naming the database and server, never the password),
  ///   ``StoreError/Code/notAStore`` for a file that is not an SQLite database.
  public init(configuration: ModelConfiguration) throws {
    switch configuration.storage {
    case .file(let url):
      try self.init(file: url)
    case .defaultFile:
      try self.init(file: try Locations.current().defaultStoreURL)
    case .memory:
      throw StoreError(
        .cannotOpen,
        message:
          "Can't inspect an in-memory store: it lives only inside its container. Inspect a store "
          + "in a file or a PostgreSQL database.")
    case .external(let reference):
      try self.init(external: reference.store)
    case .invalidExternal(let engine, let why):
      throw StoreError(
        .cannotOpen, message: "Can't inspect the \(engine) store: \(why). Check the URL.")
    }
  }

  /// Opens a store kept by another engine for reading, on a connection that can't write.
  private init(external store: any ExternalStore) throws {
    url = nil
    storeURL = store.passwordFreeURL
    engine = Engine(rawValue: store.engineName) ?? .postgresql
    location = store.locationDescription
    name = store.storeName
    connection = try store.openForInspection()
  }

  package func run<Result>(_ body: () throws -> Result) throws -> Result {
    do {
      return try body()
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.wrapping(error, url: storeURL, doing: "read")
    }
  }

  /// Whether the database holds nothing at all: an empty file or database, where no store was
  /// created yet.
  ///
  /// For example: `if try inspector.isEmpty { print("no store yet") }`.
  public var isEmpty: Bool {
    get throws { try run { try connection.schemaObjects().isEmpty } }
  }

  /// The models of the store: from Kura's `kura_models` table, or one per table when the file
  /// was not made by Kura.
  package func models() throws -> [(name: String, table: String, kinds: [String: String])] {
    if try connection.tableExists("kura_models") {
      return try connection.query(
        "SELECT model, table_name, columns FROM kura_models ORDER BY model"
      ) { row in
        let columns =
          (try? JSONDecoder().decode(
            [StoreSetup.StoredColumn].self, from: Data(row.string(at: 2).utf8))) ?? []
        return (
          row.string(at: 0), row.string(at: 1),
          Dictionary(columns.map { ($0.name, $0.kind) }, uniquingKeysWith: { a, _ in a })
        )
      }
    }
    return try connection.tableNames().map { ($0, $0, [:]) }
  }

  package func metadata(_ key: String) throws -> String? {
    guard try connection.tableExists("kura_metadata") else { return nil }
    return try connection.queryFirst(
      "SELECT value FROM kura_metadata WHERE key = ?", [.text(key)]
    ) { $0.string(at: 0) }
  }

  package func tableExists(_ table: String) throws -> Bool {
    try connection.tableExists(table)
  }
}
