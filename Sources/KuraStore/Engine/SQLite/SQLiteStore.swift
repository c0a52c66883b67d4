import Foundation
import KuraBase
import KuraSQLite

/// Opens a model store in an SQLite file or in memory: the file-level part of opening a store
/// (what is at the path, the read-only look of ``StoreProbe``, a file or folder that can't be
/// written, the ``DatabasePool``). Examining what is there and setting the store up afterwards
/// are the store's, shared by every engine.
package enum SQLiteStore {
  /// A private store in memory.
  package static func openInMemory() throws -> OpenedStore {
    do {
      return OpenedStore(
        url: nil, pool: SQLiteStorePool(pool: try DatabasePool.inMemory()), finding: .new)
    } catch {
      throw StoreError.wrapping(error, url: nil, doing: "open")
    }
  }

  /// The store in the file at `url`, looked at read-only first by `examine`: a damaged, foreign
  /// or newer store, or a migration that would lose data, is refused with every byte left as
  /// found; a current store is not written. With `readOnly`, a store that would have to be
  /// written to open is refused, and no `-wal` or `-shm` file is created.
  package static func open(_ url: URL, readOnly: Bool, examine: @escaping StoreExaminer) throws
    -> OpenedStore
  {
    // A store's file name follows the rule of every name Kura turns into a file.
    if let problem = Locations.fileNameProblem(url.lastPathComponent) {
      throw StoreError(
        .cannotOpen, url: url,
        message:
          "Can't open store `\(LocationError.shown(url.lastPathComponent))`: \(problem). "
          + "Nothing was created; choose a file name such as `default.store`.")
    }
    let outcome = try StoreProbe(url: url, examination: examine).examine()
    if readOnly && outcome != .current {
      throw readOnlyRefusal(url, outcome)
    }
    if outcome == .new {
      do {
        try Locations.ensureDirectory(url.deletingLastPathComponent())
      } catch let error as LocationError {
        throw StoreError(
          .cannotOpen, message: "Can't open the store: \(error.clause). Choose another location.")
      }
    }
    if !readOnly && outcome != .new, let why = notWritable(url) {
      throw StoreError(
        .cannotOpen, url: url,
        message:
          "Can't open store `\(url.lastPathComponent)` for writing: \(why). Nothing was "
          + "changed; make it writable, or open the store with `allowsSave` off to read it.")
    }
    do {
      // A store that only reads is read as found: no `-wal` or `-shm` file is created beside it.
      let pool = SQLiteStorePool(pool: try DatabasePool(path: url.path, readOnly: readOnly))
      return OpenedStore(url: url, pool: pool, finding: outcome)
    } catch {
      throw StoreError.wrapping(error, url: url, doing: "open")
    }
  }

  /// Why an existing store can't be written (a read-only file, or a read-only folder where
  /// SQLite would have to create the `-wal` file), or `nil` when it can.
  private static func notWritable(_ url: URL) -> String? {
    if access(url.path, W_OK) != 0 && errno == EACCES { return "the file is read-only" }
    let folder = url.deletingLastPathComponent().path
    if access(url.path + "-wal", F_OK) != 0 && access(folder, W_OK) != 0 && errno == EACCES {
      return "its folder is read-only, so its `-wal` file can't be created beside it"
    }
    return nil
  }

  /// The error for a read-only configuration whose store would have to be written to open.
  private static func readOnlyRefusal(_ url: URL, _ outcome: StoreFinding)
    -> StoreError
  {
    let file = "`\(url.lastPathComponent)`"
    let why: String
    var code = StoreError.Code.cannotOpen
    switch (outcome, (try? StoreFile.state(of: url)) ?? .missing) {
    case (.new, .missing): why = "there is no store there yet"
    case (.new, .empty): why = "the file is empty (0 bytes), so it holds no store yet"
    case (.new, _): why = "the file is an empty SQLite database with no store in it yet"
    default:
      why = "its tables or metadata must first be brought up to date for these models"
      code = .outdatedStore
    }
    return StoreError(
      code, url: url,
      message:
        "Can't read store \(file): \(why). It was opened for reading only, so nothing was "
        + "created or changed; open it for writing (such as by saving something) first.")
  }
}

extension SQLiteStore {
  /// A connection that reads the store file at `url` as found, changing nothing beside it (for
  /// the store's inspector).
  package static func openForInspection(_ url: URL) throws -> any StoreConnection {
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
        return SQLiteStoreConnection.standalone(connection)
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
}

extension SQLiteStore {
  /// The store file at `url` opened for migrating it, after `check`, run on a read-only look,
  /// refused a file that is damaged, not a Kura store or written by a newer Kura.
  package static func openForMigration(_ url: URL, check: (any StoreConnection) throws -> Void)
    throws
    -> any StorePool
  {
    try StoreProbe.checkWritable(url, check: check)
    do {
      return SQLiteStorePool(pool: try DatabasePool(path: url.path))
    } catch {
      throw StoreError.wrapping(error, url: url, doing: "open")
    }
  }
}
