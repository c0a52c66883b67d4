import CKuraSupport
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A 64-bit counter in a small memory-mapped file, shared by every process that maps it.
///
/// Writers call ``increment()`` after they commit; readers compare ``value`` with the value they
/// last saw — one atomic memory load, no system call. Each increment also touches the file's
/// modification time, which wakes ``FileChangeMonitor`` watchers through inotify.
// Safety: the mapped memory is only accessed through atomic C operations; `fd` and `pointer` are
// immutable after init and released in deinit.
final class SharedCounter: @unchecked Sendable {
  let path: String
  private let fd: Int32
  private let pointer: UnsafeMutablePointer<UInt64>
  private static let size = 64

  init(path: String) throws {
    self.path = path
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw SharedCounter.error(path, "can't open") }
    var status = stat()
    if fstat(fd, &status) != 0 || Int(status.st_size) < Self.size {
      if ftruncate(fd, off_t(Self.size)) != 0 {
        close(fd)
        throw SharedCounter.error(path, "can't size")
      }
    }
    guard
      let raw = mmap(nil, Self.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0),
      raw != MAP_FAILED
    else {
      close(fd)
      throw SharedCounter.error(path, "can't map")
    }
    self.fd = fd
    self.pointer = raw.bindMemory(to: UInt64.self, capacity: Self.size / 8)
  }

  deinit {
    munmap(pointer, Self.size)
    close(fd)
  }

  private static func error(_ path: String, _ action: String) -> SQLiteError {
    SQLiteError(
      code: .cannotOpen, extendedCode: 14,
      message: "\(action) the change counter `\(path)`: \(String(cString: strerror(errno)))",
      sql: nil)
  }

  /// The current count.
  var value: UInt64 { kura_atomic_load_u64(pointer) }

  /// Adds one, then wakes watchers. Returns the new count.
  @discardableResult
  func increment() -> UInt64 {
    let value = kura_atomic_add_u64(pointer, 1)
    futimens(fd, nil)
    return value
  }
}
