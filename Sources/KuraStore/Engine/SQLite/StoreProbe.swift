import Foundation
import KuraBase
import KuraSQLite

/// Looks at a store file before anything may write to it, on a connection that leaves the file,
/// its `-wal` and its `-shm` exactly as found (``Connection/OpenMode/inspect``), and runs the
/// store's examination over it (a ``StoreExaminer``: it refuses a file that is damaged, another
/// program's database or made by a newer Kura or app version, or a migration that would lose
/// data, and tells whether opening needs to write at all).
package struct StoreProbe {
  package typealias Outcome = StoreFinding

  package let url: URL
  /// The store's examination.
  package let examination: StoreExaminer

  package func examine() throws -> Outcome {
    switch try StoreFile.state(of: url) {
    case .missing, .empty: return .new
    case .present: break
    }
    // Without a `-wal` file the file is read as immutable (no lock, nothing created beside it),
    // so a writer changing it meanwhile (another process creating the store) means reading
    // again; with one, another process may be setting up or removing the `-wal` and `-shm`
    // files, which a reader that leaves them as found can't wait for: that is read again too.
    for attempt in 0..<8 {
      let before = StoreFile.Stamp(url)
      do {
        let outcome = try examineOnce(mode: .inspect)
        if before.hasLog || StoreFile.Stamp(url) == before { return outcome }
      } catch let error as StoreError where Self.isTransient(error) {
        // Read again below.
      } catch {
        if StoreFile.Stamp(url) == before { throw error }
      }
      usleep(UInt32(500 * (attempt + 1)))
    }
    // Still changing: an ordinary read-only connection waits for the other processes' locks (it
    // may update the shared-memory index, never the database or its `-wal`).
    return try examineOnce(mode: .readOnly)
  }

  /// Whether a failed look may succeed a moment later: the `-wal`/`-shm` files were being set up
  /// or removed by another process.
  private static func isTransient(_ error: StoreError) -> Bool {
    (error.underlying as? SQLiteError)?.code.isTransientForInspection ?? false
  }

  private func examineOnce(mode: Connection.OpenMode) throws -> Outcome {
    if try StoreFile.state(of: url) != .present { return .new }
    let db: Connection
    do {
      db = try Connection(path: url.path, mode: mode)
    } catch {
      throw StoreError.wrapping(error, url: url, doing: "open")
    }
    do {
      return try examination(SQLiteStoreConnection.standalone(db))
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.wrapping(error, url: url, doing: "open")
    }
  }

  /// Runs `check` (which refuses a file that is damaged, not a Kura store or written by a newer
  /// Kura) on a connection that leaves the file as found (for `kura store migrate`).
  package static func checkWritable(_ url: URL, check: (any StoreConnection) throws -> Void) throws
  {
    guard try StoreFile.state(of: url) == .present else { return }
    do {
      let db = SQLiteStoreConnection.standalone(try Connection(path: url.path, mode: .inspect))
      try check(db)
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.wrapping(error, url: url, doing: "open")
    }
  }
}
