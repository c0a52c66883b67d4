import Foundation
import KuraBase

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The lock file beside a document (`.<name>.lock`, beside the *real* file when the document is
/// reached through a symbolic link): an advisory `flock` that serializes writers of every process.
/// The file stays empty; other processes learn of a change from the document and its journal
/// themselves (see ``DocumentStamp``).
// Safety: `fd` is only replaced inside `withLock`/`withSharedLockIfFree`, and callers hold the
// store's mutex around each of those calls (and `removeFile`); it is closed in deinit.
package final class DocumentLock: @unchecked Sendable {
  package let path: String
  private var fd: Int32

  /// Opens (creating) the lock file of the document at `documentPath` (a resolved path).
  package init(documentPath: String) throws {
    let folder = (documentPath as NSString).deletingLastPathComponent
    let name = (documentPath as NSString).lastPathComponent
    path = (folder as NSString).appendingPathComponent(".\(name).lock")
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    if fd < 0 { throw SystemCallError(operation: "open", path: path, code: errno) }
    self.fd = fd
  }

  /// Opens the lock file of the document at `documentPath` to read under it, without creating
  /// it: `nil` when there is none (no store ever opened the document for writing).
  package init?(existingFor documentPath: String) throws {
    let folder = (documentPath as NSString).deletingLastPathComponent
    let name = (documentPath as NSString).lastPathComponent
    path = (folder as NSString).appendingPathComponent(".\(name).lock")
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      if errno == ENOENT || errno == ENOTDIR { return nil }
      throw SystemCallError(operation: "open", path: path, code: errno)
    }
    self.fd = fd
  }

  deinit { close(fd) }

  /// Runs `body` holding the shared lock, without ever creating or reopening the lock file (for
  /// a read that writes nothing; see ``init(existingFor:)``).
  package func withSharedLockAsFound<T>(_ body: () throws -> T) throws -> T {
    let operation = FileLockActivity.shared.begin()  // KuraLibrary.suspend waits for it
    defer { FileLockActivity.shared.end(operation) }
    while flock(fd, LOCK_SH) != 0 {
      if errno != EINTR { throw SystemCallError(operation: "lock", path: path, code: errno) }
    }
    defer { flock(fd, LOCK_UN) }
    return try body()
  }

  /// Runs `body` holding the lock: exclusive for writers, shared for readers.
  package func withLock<T>(exclusive: Bool, _ body: () throws -> T) throws -> T {
    let operation = FileLockActivity.shared.begin()  // KuraLibrary.suspend waits for it
    defer { FileLockActivity.shared.end(operation) }
    while true {
      while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
        if errno != EINTR { throw SystemCallError(operation: "lock", path: path, code: errno) }
      }
      if try holdsCurrentFile() { break }
    }
    defer { flock(fd, LOCK_UN) }
    return try body()
  }

  /// Whether the locked descriptor is still the file at `path`. A store that deleted its
  /// document removed the lock file too (under the exclusive lock): a lock taken on the removed
  /// file excludes nobody, so it is released and the file at `path` (created anew) is opened.
  private func holdsCurrentFile() throws -> Bool {
    var held = stat()
    var current = stat()
    if fstat(fd, &held) == 0, stat(path, &current) == 0, held.st_dev == current.st_dev,
      held.st_ino == current.st_ino
    {
      return true
    }
    flock(fd, LOCK_UN)
    let reopened = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    if reopened < 0 { throw SystemCallError(operation: "open", path: path, code: errno) }
    close(fd)
    fd = reopened
    return false
  }

  /// Removes the lock file, for a store deleting its document; call while holding the exclusive
  /// lock. Other processes notice the removal when they next lock (see `holdsCurrentFile`).
  package func removeFile() {
    unlink(path)
  }

  /// Runs `body` holding the shared lock when it is free now; returns `nil` without waiting when
  /// a writer holds it (the file watcher must not block on one document).
  package func withSharedLockIfFree<T>(_ body: () throws -> T) throws -> T? {
    while true {
      while flock(fd, LOCK_SH | LOCK_NB) != 0 {
        if errno == EWOULDBLOCK { return nil }
        if errno != EINTR { throw SystemCallError(operation: "lock", path: path, code: errno) }
      }
      if try holdsCurrentFile() { break }
    }
    defer { flock(fd, LOCK_UN) }
    return try body()
  }
}
