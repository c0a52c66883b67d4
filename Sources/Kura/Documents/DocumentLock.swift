import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The lock file beside a document (`.<name>.lock`): an advisory `flock` that serializes writers
/// of every process, and a shared change counter (mapped from the same file) bumped after each
/// saved change so other processes notice it at once.
// Safety: `fd` is immutable after init and closed in deinit; `flock` itself is thread-safe, and
// callers hold the store's mutex around each lock/unlock pair.
final class DocumentLock: @unchecked Sendable {
  let path: String
  let counter: SharedCounter
  private let fd: Int32

  init(documentPath: String) throws {
    let folder = (documentPath as NSString).deletingLastPathComponent
    let name = (documentPath as NSString).lastPathComponent
    path = (folder as NSString).appendingPathComponent(".\(name).lock")
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    if fd < 0 { throw SystemCallError(operation: "open", path: path, code: errno) }
    self.fd = fd
    do {
      counter = try SharedCounter(path: path)
    } catch {
      close(fd)
      throw SystemCallError(operation: "map", path: path, code: errno)
    }
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
}
