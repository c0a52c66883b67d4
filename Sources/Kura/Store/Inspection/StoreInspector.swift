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
  let connection: Connection

  /// Opens a store file read-only.
  ///
  /// For example: `let inspector = try StoreInspector(url: URL(fileURLWithPath: "a.sqlite"))`.
  ///
  /// - Parameter url: The store file.
  /// - Throws: ``StoreError/Code/cannotOpen`` when there is no such file,
  ///   ``StoreError/Code/notAStore`` when it is not an SQLite database.
  public init(url: URL) throws {
    self.url = url
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory),
      !isDirectory.boolValue
    else {
      throw StoreError(
        .cannotOpen, url: url,
        message: "Can't open store `\(url.path)`: there is no such file. Check the path.")
    }
    // Another process may be setting up or removing the `-wal` and `-shm` files meanwhile, which
    // a reader that leaves them as found can't wait for: such a failure is tried again.
    var attempt = 0
    while true {
      do {
        let connection = try Connection(path: url.path, mode: .inspect)
        _ = try connection.queryFirst("SELECT count(*) FROM sqlite_master") { $0.int64(at: 0) }
        self.connection = connection
        break
      } catch let error as SQLiteError
        where attempt < 8 && [.readOnly, .cannotOpen, .busy, .locked].contains(error.code)
      {
        attempt += 1
        usleep(UInt32(500 * attempt))
      } catch {
        throw StoreError.wrapping(error, url: url, doing: "open")
      }
    }
  }

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
    let hasMetadata =
      try connection.queryFirst(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kura_models'"
      ) { _ in true } ?? false
    if hasMetadata {
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
    return try connection.query(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        + "ORDER BY name"
    ) { row in (row.string(at: 0), row.string(at: 0), [:]) }
  }

  func metadata(_ key: String) throws -> String? {
    let exists =
      try connection.queryFirst(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kura_metadata'"
      ) { _ in true } ?? false
    guard exists else { return nil }
    return try connection.queryFirst(
      "SELECT value FROM kura_metadata WHERE key = ?", [.text(key)]
    ) { $0.string(at: 0) }
  }

  func tableExists(_ table: String) throws -> Bool {
    try connection.queryFirst(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)]
    ) { _ in true } ?? false
  }
}
