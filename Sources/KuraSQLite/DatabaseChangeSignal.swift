import CKuraSupport
import Foundation
import KuraBase
import Synchronization

#if canImport(CSQLite)
  internal import CSQLite
#else
  internal import SQLite3
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The cross-process change signal of one database file, read from what a commit itself changes:
/// no extra step after the commit, so there is no instant at which a write is committed but not
/// signalled, even when the writer is killed.
///
/// In WAL mode (every file Kura opens) the stamp is the WAL-index header in SQLite's own mapping of
/// the `-shm` file: its transaction counter moves with every commit, and its salt with every WAL
/// reset. The header is what makes a commit visible to readers, so the stamp moves exactly when
/// readers can see the change. Reading it is a few memory loads and no system call. The mapping
/// is SQLite's (taken from the pool's writer connection, which keeps it while it lives): Kura
/// maps nothing itself, so a full disk can't leave it with pages it can't back, and it opens no
/// descriptor on `-shm` whose closing would drop SQLite's locks.
///
/// When the file is not in WAL mode, the stamp is the identity (inode, size, modification time) of
/// the file and its `-wal`/`-journal`: two `stat` calls. In memory, a local counter.
///
/// When ``KuraLibrary/suspend(waitingAtMost:)`` closes the writer connection, the pool calls
/// ``detach()`` first (the mapping goes with the connection) and the stamp falls back to the file
/// identities until ``attach(_:)`` is given the reopened writer; the switch reads as one change.
package final class DatabaseChangeSignal: Sendable {
  /// SQLite's mapping of the WAL-index header.
  // Safety: the pointer is only dereferenced inside `header.withLock`, and the pool detaches it
  // (under the same lock) before it closes the connection that owns the mapping; it is only read,
  // with atomic loads.
  private struct Mapping: @unchecked Sendable {
    let header: UnsafeRawPointer
  }

  /// The real (symlink-resolved) database file; `nil` in memory.
  package let resolvedPath: String?
  private let header: Mutex<Mapping?>
  private let local = Atomic<UInt64>(0)

  package init(writer: Connection, path: String) {
    guard path != ":memory:" else {
      resolvedPath = nil
      header = Mutex(nil)
      return
    }
    resolvedPath = ResolvedPath.resolve(path)
    header = Mutex(Self.mapWALIndex(writer).map(Mapping.init))
  }

  /// Reads the WAL index of `writer`, the pool's reopened writer connection.
  package func attach(_ writer: Connection) {
    guard resolvedPath != nil else { return }
    let mapping = Self.mapWALIndex(writer).map(Mapping.init)
    header.withLock { $0 = mapping }
  }

  /// Stops reading the WAL index: the writer connection that maps it is about to close.
  package func detach() {
    header.withLock { $0 = nil }
  }

  /// SQLite's mapping of the first WAL-index region, or `nil` when the file is not in WAL mode.
  private static func mapWALIndex(_ writer: Connection) -> UnsafeRawPointer? {
    // A read opens the WAL and its index (SQLite sizes and maps it with real writes).
    guard (try? writer.dataVersion()) != nil else { return nil }
    // Mapping the index opens the `-shm` file, creating it when missing: a read-only connection
    // maps only an index a writer made (reads never write; the stamp then comes from the files).
    if sqlite3_db_readonly(writer.handle, "main") == 1,
      access(writer.path + "-shm", F_OK) != 0
    {
      return nil
    }
    var file: UnsafeMutablePointer<sqlite3_file>?
    guard
      sqlite3_file_control(writer.handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
      let file, let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2,
      let shmMap = methods.pointee.xShmMap
    else { return nil }
    var region: UnsafeMutableRawPointer?
    // `bExtend` 0: only an index SQLite has already sized and mapped is returned.
    let result = withUnsafeMutablePointer(to: &region) { pointer in
      pointer.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 1) {
        shmMap(file, 0, 32_768, 0, UnsafeMutablePointer(mutating: $0))
      }
    }
    guard result == SQLITE_OK, let region else { return nil }
    return UnsafeRawPointer(region)
  }

  /// A value that changes with every commit to the file by any connection of any process.
  package var stamp: UInt64 {
    let fromIndex = header.withLock { mapping -> UInt64? in
      guard let mapping else { return nil }
      var stamp: UInt64 = 0
      // A header being written is read again; SQLite writes it in well under a microsecond.
      for _ in 0..<1000 where kura_wal_index_stamp(mapping.header, &stamp) != 0 { return stamp }
      return stamp
    }
    if let fromIndex { return fromIndex }
    guard let resolvedPath else { return local.load(ordering: .acquiring) }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for path in [resolvedPath, resolvedPath + "-wal", resolvedPath + "-journal"] {
      var status = stat()
      guard stat(path, &status) == 0 else { continue }
      #if canImport(Darwin)
        let modified = status.st_mtimespec
      #else
        let modified = status.st_mtim
      #endif
      for part in [
        UInt64(status.st_ino), UInt64(status.st_size), UInt64(modified.tv_sec),
        UInt64(modified.tv_nsec),
      ] {
        hash = (hash ^ part) &* 0x100_0000_01b3
      }
    }
    return hash
  }

  /// Records a commit of an in-memory database (file databases signal by themselves).
  package func inMemoryCommit() {
    if resolvedPath == nil { local.add(1, ordering: .releasing) }
  }

  /// The folder and file names whose changes a commit makes, for the watcher.
  package var watchedNames: (folder: String, names: Set<String>)? {
    guard let resolvedPath else { return nil }
    let name = (resolvedPath as NSString).lastPathComponent
    return (
      (resolvedPath as NSString).deletingLastPathComponent,
      [name, name + "-wal", name + "-journal"]
    )
  }
}
