import Foundation

/// Reads a model store file without its model types: what models and tables it holds, their
/// columns, indexes and rows, and whether the file is intact. `kura store` is built on it.
///
/// The file is opened read-only; nothing is changed.
///
/// For example:
///
/// ```swift
/// let inspector = try StoreInspector(url: storeURL)
/// for model in try inspector.info().models { print(model.name, model.rows) }
/// ```
public struct StoreInspector {
  /// The store file.
  ///
  /// For example: `print(inspector.url.path)`.
  public let url: URL
  /// A connection that reads the store as found (the engine seam, ``StoreConnection``).
  let connection: StoreConnection

  /// Opens a store file read-only, or a PostgreSQL store given its `postgresql://` URL.
  ///
  /// For example: `let inspector = try StoreInspector(url: URL(fileURLWithPath: "a.sqlite"))`.
  ///
  /// - Parameter url: The store file, or a `postgresql://` URL.
  /// - Throws: ``StoreError/Code/cannotOpen`` when there is no such file (or the server can't be
  ///   reached), ``StoreError/Code/notAStore`` when it is not an SQLite database.
  public init(url: URL) throws {
    #if canImport(CLibPQ)
      if PostgresLocation.isPostgresURL(url) {
        let location: PostgresLocation
        do {
          location = try PostgresLocation(url: url)
        } catch let error as PostgresError {
          throw StoreError(
            .cannotOpen, postgresError: error,
            message: "Can't open the PostgreSQL store: \(error.message). Check the URL.")
        }
        (self.url, self.connection) = try Self.openPostgres(location)
        return
      }
    #endif
    self.url = url
    self.connection = try SQLiteStore.openForInspection(url)
  }

  #if canImport(CLibPQ)
    /// Opens a PostgreSQL store for reading (its tables and rows as found; nothing is changed).
    init(postgres location: PostgresLocation) throws {
      (self.url, self.connection) = try Self.openPostgres(location)
    }

    /// A connection reading the PostgreSQL store at `location`, and its password-free URL.
    private static func openPostgres(_ location: PostgresLocation) throws
      -> (URL, StoreConnection)
    {
      do {
        let connection = try PostgresConnection(location: location)
        return (
          location.passwordFreeURL,
          .postgres(PostgresStoreConnection(connection: connection, channel: ""))
        )
      } catch let error as PostgresError {
        throw StoreError.wrapping(postgres: error, url: location.passwordFreeURL, doing: "open")
      }
    }
  #endif

  func run<Result>(_ body: () throws -> Result) throws -> Result {
    do {
      return try body()
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.wrapping(error, url: url, doing: "read")
    }
  }

  /// The models of the store: from Kura's `kura_models` table, or one per table when the file
  /// was not made by Kura.
  func models() throws -> [(name: String, table: String, kinds: [String: String])] {
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

  func metadata(_ key: String) throws -> String? {
    guard try connection.tableExists("kura_metadata") else { return nil }
    return try connection.queryFirst(
      "SELECT value FROM kura_metadata WHERE key = ?", [.text(key)]
    ) { $0.string(at: 0) }
  }

  func tableExists(_ table: String) throws -> Bool {
    try connection.tableExists(table)
  }
}
