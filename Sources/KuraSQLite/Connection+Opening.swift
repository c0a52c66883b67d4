import Foundation
import KuraBase

#if canImport(CSQLite)
  internal import CSQLite
#else
  internal import SQLite3
#endif

extension Connection {
  /// Opens `openPath` (a path or a `file:` URI) with `flags`.
  ///
  /// - Throws: ``SQLiteError`` naming `path`.
  package static func open(_ openPath: String, naming path: String, flags: Int32) throws
    -> OpaquePointer
  {
    var handle: OpaquePointer?
    let result = sqlite3_open_v2(openPath, &handle, flags, nil)
    guard result == SQLITE_OK, let handle else {
      let error = SQLiteError(handle: handle, result: result, sql: nil)
      sqlite3_close_v2(handle)
      throw SQLiteError(
        code: error.code, extendedCode: error.extendedCode,
        message: "\(error.message) (file `\(path)`)", sql: nil)
    }
    return handle
  }

  /// Opens `path` for ``OpenMode/inspect`` and reads its header once.
  ///
  /// A reader that leaves the `-shm` file as found can't repair its index, so it fails while
  /// another process sets the index up or removes the files, and for as long as the index stays
  /// torn (a writer killed while updating it, with other connections still open). Such a look
  /// is tried again a few times, then made with a plain read-only connection: that one waits for
  /// the other connections' locks and repairs the index in shared memory like any reader, but
  /// never writes the database or its `-wal` file.
  package static func openForInspection(path: String, flags: Int32) throws -> (
    OpaquePointer, URL?
  ) {
    var lastFailure: Int32 = SQLITE_OK
    for attempt in 0..<6 {
      let (uri, copy) = try inspectionURI(path)
      let handle: OpaquePointer
      do {
        handle = try open(uri, naming: path, flags: flags)
      } catch let error as SQLiteError {
        if let copy { try? FileManager.default.removeItem(at: copy) }
        guard isTransientForInspection(error.extendedCode), attempt < 5 else { throw error }
        lastFailure = error.extendedCode
        usleep(UInt32(1000 * (attempt + 1)))
        continue
      }
      sqlite3_extended_result_codes(handle, 1)
      let result = sqlite3_exec(handle, "PRAGMA schema_version", nil, nil, nil)
      lastFailure = sqlite3_extended_errcode(handle)
      // Any other failure (not a database, damaged) is reported by the caller's own read, and
      // so is one that lasts and is not about the index (a `-shm` file of another format).
      if result == SQLITE_OK || !isTransientForInspection(lastFailure)
        || (attempt == 5 && lastFailure & 0xff == SQLITE_CANTOPEN)
      {
        return (handle, copy)
      }
      sqlite3_close_v2(handle)
      if let copy { try? FileManager.default.removeItem(at: copy) }
      usleep(UInt32(1000 * (attempt + 1)))
    }
    return (try open(path, naming: path, flags: flags), nil)
  }

  /// Whether an inspecting look that failed with `extendedCode` may succeed again.
  package static func isTransientForInspection(_ extendedCode: Int32) -> Bool {
    SQLiteError.Code(rawValue: extendedCode & 0xff).isTransientForInspection
  }

  /// The URI that opens `path` for ``OpenMode/inspect``: with no `-wal` file the database is
  /// read as immutable (nothing beside it is created); with `-wal` and `-shm` files the
  /// shared memory is only read; a `-wal` file alone is read from a private copy (returned).
  package static func inspectionURI(_ path: String) throws -> (String, URL?) {
    func uri(_ path: String, _ parameter: String) -> String {
      var escaped = ""
      for character in path.unicodeScalars {
        switch character {
        case "%": escaped += "%25"
        case "?": escaped += "%3f"
        case "#": escaped += "%23"
        default: escaped.unicodeScalars.append(character)
        }
      }
      return "file:\(escaped)?mode=ro&\(parameter)"
    }
    let files = FileManager.default
    let hasLog = files.fileExists(atPath: path + "-wal")
    if !hasLog { return (uri(path, "immutable=1"), nil) }
    if files.fileExists(atPath: path + "-shm") { return (uri(path, "readonly_shm=1"), nil) }
    let folder = files.temporaryDirectory.appendingPathComponent(
      "kura-inspect-\(UUID().uuidString)")
    do {
      try files.createDirectory(at: folder, withIntermediateDirectories: false)
      let name = (path as NSString).lastPathComponent
      let copy = folder.appendingPathComponent(name)
      try files.copyItem(atPath: path, toPath: copy.path)
      try files.copyItem(atPath: path + "-wal", toPath: copy.path + "-wal")
      return (copy.path, folder)
    } catch {
      try? files.removeItem(at: folder)
      throw SQLiteError(
        code: .cannotOpen, extendedCode: SQLITE_CANTOPEN,
        message: "can't copy the file and its `-wal` file to read them (\(error))", sql: nil)
    }
  }
}
