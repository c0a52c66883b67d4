import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The lock file beside a document (`.<name>.lock`, beside the *real* file when the document is
/// reached through a symbolic link): an advisory `flock` that serializes writers of every process.
/// The file stays empty; other processes learn of a change from the document and its journal
/// themselves (see ``DocumentStamp``).
// Safety: `fd` is immutable after init and closed in deinit; `flock` itself is thread-safe, and
// callers hold the store's mutex around each lock/unlock pair.
final class DocumentLock: @unchecked Sendable {
  let path: String
  private let fd: Int32

  /// Opens (creating) the lock file of the document at `documentPath` (a resolved path).
  init(documentPath: String) throws {
    let folder = (documentPath as NSString).deletingLastPathComponent
    let name = (documentPath as NSString).lastPathComponent
    path = (folder as NSString).appendingPathComponent(".\(name).lock")
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    if fd < 0 { throw SystemCallError(operation: "open", path: path, code: errno) }
    self.fd = fd
  }

  deinit { close(fd) }

  /// Runs `body` holding the lock: exclusive for writers, shared for readers.
  func withLock<T>(exclusive: Bool, _ body: () throws -> T) throws -> T {
    let operation = FileLockActivity.shared.begin()  // KuraLibrary.suspend waits for it
    defer { FileLockActivity.shared.end(operation) }
    while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
      if errno != EINTR { throw SystemCallError(operation: "lock", path: path, code: errno) }
    }
    defer { flock(fd, LOCK_UN) }
    return try body()
  }

  /// Runs `body` holding the shared lock when it is free now; returns `nil` without waiting when
  /// a writer holds it (the file watcher must not block on one document).
  func withSharedLockIfFree<T>(_ body: () throws -> T) throws -> T? {
    while flock(fd, LOCK_SH | LOCK_NB) != 0 {
      if errno == EWOULDBLOCK { return nil }
      if errno != EINTR { throw SystemCallError(operation: "lock", path: path, code: errno) }
    }
    defer { flock(fd, LOCK_UN) }
    return try body()
  }
}
