import Foundation
import KuraBase

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Identifies one version of a file on disk: a file replaced by rename has a new inode; a file
/// written in place has a new size or modification time.
package struct FileIdentity: Equatable, Sendable {
  package var device: UInt64
  package var inode: UInt64
  package var size: Int
  package var modifiedSeconds: Int
  package var modifiedNanoseconds: Int

  package init(_ status: stat) {
    device = UInt64(status.st_dev)
    inode = UInt64(status.st_ino)
    size = Int(status.st_size)
    #if canImport(Darwin)
      modifiedSeconds = Int(status.st_mtimespec.tv_sec)
      modifiedNanoseconds = Int(status.st_mtimespec.tv_nsec)
    #else
      modifiedSeconds = Int(status.st_mtim.tv_sec)
      modifiedNanoseconds = Int(status.st_mtim.tv_nsec)
    #endif
  }

  /// The same file (not necessarily the same content).
  package func isSameFile(as other: FileIdentity) -> Bool {
    device == other.device && inode == other.inode
  }
}

/// A failed system call, with its errno.
package struct SystemCallError: Error {
  package var operation: String
  package var path: String
  package var code: Int32

  package var reason: String { "\(operation) `\(path)` failed: \(String(cString: strerror(code)))" }

  /// The errno as a `POSIXError`, for ``DocumentError/underlying``.
  package var posixError: POSIXError? { POSIXErrorCode(rawValue: code).map { POSIXError($0) } }
}

/// The system calls behind documents: whole-file reads, atomic replacement, folder syncs.
package enum DocumentFile {
  /// The identity of the file at a path; `nil` when there is none.
  package static func identity(of path: String) throws -> FileIdentity? {
    var status = stat()
    if stat(path, &status) != 0 {
      if errno == ENOENT { return nil }
      throw SystemCallError(operation: "stat", path: path, code: errno)
    }
    return FileIdentity(status)
  }

  /// The whole content of a file and its identity; `nil` when there is no file.
  package static func read(_ path: String, from offset: Int = 0) throws -> (Data, FileIdentity)? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      if errno == ENOENT { return nil }
      throw SystemCallError(operation: "open", path: path, code: errno)
    }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0 else {
      throw SystemCallError(operation: "stat", path: path, code: errno)
    }
    let identity = FileIdentity(status)
    let data = try readAll(fd, path: path, from: offset, sizeHint: identity.size)
    return (data, identity)
  }

  /// Reads from an offset to the end of an open file.
  package static func readAll(_ fd: Int32, path: String, from offset: Int, sizeHint: Int) throws
    -> Data
  {
    // One byte more than expected, so reading a file of the expected size needs no regrowth.
    var data = Data(count: max(sizeHint - offset, 0) + 1)
    var filled = 0
    while true {
      if filled == data.count { data.count += max(4096, data.count / 2) }
      let count = try retryingInterrupted("read", path: path) {
        data.withUnsafeMutableBytes { buffer -> Int in
          guard let base = buffer.baseAddress else { return 0 }
          return pread(fd, base + filled, buffer.count - filled, off_t(offset + filled))
        }
      }
      if count == 0 { break }
      filled += count
    }
    data.count = filled
    return data
  }

  /// What `call` (a `read` or `write`) returns, called again while it is interrupted (`EINTR`).
  ///
  /// - Throws: `SystemCallError` naming `operation` and `path` when it fails otherwise.
  package static func retryingInterrupted(
    _ operation: String, path: String, _ call: () -> Int
  ) throws -> Int {
    while true {
      let count = call()
      if count >= 0 { return count }
      if errno != EINTR { throw SystemCallError(operation: operation, path: path, code: errno) }
    }
  }

  /// Writes all bytes at an offset (retrying short writes).
  package static func write(_ fd: Int32, _ data: Data, at offset: Int, path: String) throws {
    var written = 0
    while written < data.count {
      let count = try retryingInterrupted("write", path: path) {
        data.withUnsafeBytes { buffer -> Int in
          guard let base = buffer.baseAddress else { return 0 }
          return pwrite(fd, base + written, buffer.count - written, off_t(offset + written))
        }
      }
      written += count
    }
  }

  /// Flushes a file's data to the disk.
  package static func syncData(_ fd: Int32, path: String) throws {
    #if canImport(Darwin)
      let result = fcntl(fd, F_FULLFSYNC)
    #else
      let result = fdatasync(fd)
    #endif
    if result != 0 { throw SystemCallError(operation: "fsync", path: path, code: errno) }
  }

  /// Flushes a folder's entries (a rename or unlink in it) to the disk.
  package static func syncFolder(of path: String) throws {
    let folder = (path as NSString).deletingLastPathComponent
    let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_CLOEXEC)
    if fd < 0 { throw SystemCallError(operation: "open", path: folder, code: errno) }
    defer { close(fd) }
    if fsync(fd) != 0 && errno != EINVAL {
      throw SystemCallError(operation: "fsync", path: folder, code: errno)
    }
  }

  /// Replaces a file atomically: writes a temporary file in the same folder, flushes it, renames
  /// it over the original and flushes the folder. Readers see the old file or the new one,
  /// never a mix, even when the process is killed at any point.
  ///
  /// A symbolic link at `path` is kept: the file it points to is replaced (so a document linked
  /// into another folder, such as a synced one, keeps receiving the changes).
  ///
  /// - Returns: The identity of the new file.
  @discardableResult
  package static func replace(_ path: String, with data: Data) throws -> FileIdentity {
    let path = try resolvingSymbolicLinks(path)
    let folder = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    let temporary = (folder as NSString).appendingPathComponent(
      temporaryPrefix(of: name) + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    if fd < 0 { throw SystemCallError(operation: "create", path: temporary, code: errno) }
    var renamed = false
    defer {
      close(fd)
      if !renamed { unlink(temporary) }
    }
    try write(fd, data, at: 0, path: temporary)
    if fsync(fd) != 0 { throw SystemCallError(operation: "fsync", path: temporary, code: errno) }
    var status = stat()
    guard fstat(fd, &status) == 0 else {
      throw SystemCallError(operation: "stat", path: temporary, code: errno)
    }
    if rename(temporary, path) != 0 {
      throw SystemCallError(operation: "rename", path: path, code: errno)
    }
    renamed = true
    try syncFolder(of: path)
    return FileIdentity(status)
  }

  /// The path a chain of symbolic links at `path` ends at (the path itself when it is not a
  /// link); the end may not exist yet.
  package static func resolvingSymbolicLinks(_ path: String) throws -> String {
    var current = path
    for _ in 0..<40 {
      var status = stat()
      guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else {
        return current
      }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let length = readlink(current, &buffer, buffer.count - 1)
      if length < 0 { throw SystemCallError(operation: "readlink", path: current, code: errno) }
      let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      current =
        target.hasPrefix("/")
        ? target
        : ((current as NSString).deletingLastPathComponent as NSString)
          .appendingPathComponent(target)
    }
    throw SystemCallError(operation: "resolve links of", path: path, code: ELOOP)
  }

  /// Removes a file if it exists.
  ///
  /// - Returns: Whether a file was removed.
  @discardableResult
  package static func remove(_ path: String) throws -> Bool {
    if unlink(path) != 0 {
      if errno == ENOENT { return false }
      throw SystemCallError(operation: "remove", path: path, code: errno)
    }
    return true
  }

  /// Moves a file to a new name that does not exist yet (`<name>.damaged-<timestamp>`, with
  /// `-2`, `-3` … added when taken). The caller holds the document's exclusive lock.
  ///
  /// - Returns: The new path.
  package static func moveAside(_ path: String, suffix: String) throws -> String {
    var candidate = path + suffix
    var attempt = 1
    while true {
      // link + unlink never replaces an existing file, unlike rename.
      if link(path, candidate) == 0 {
        unlink(path)
        try syncFolder(of: path)
        return candidate
      }
      let code = errno
      switch code {
      case EEXIST:
        break
      case EPERM, EXDEV, ENOTSUP, EOPNOTSUPP, EMLINK, ENOSYS:
        // A file system without hard links (FAT, exFAT, SMB): rename to a name checked to be
        // free. No Kura writer can take it in between: they all wait for the document's lock.
        var status = stat()
        guard lstat(candidate, &status) != 0 else { break }
        guard errno == ENOENT else {
          throw SystemCallError(operation: "move", path: path, code: errno)
        }
        if rename(path, candidate) != 0 {
          throw SystemCallError(operation: "move", path: path, code: errno)
        }
        try syncFolder(of: path)
        return candidate
      default:
        throw SystemCallError(operation: "move", path: path, code: code)
      }
      attempt += 1
      candidate = path + suffix + "-\(attempt)"
    }
  }

  /// The prefix of the temporary files ``replace(_:with:)`` writes beside `path`.
  package static func temporaryPrefix(of path: String) -> String {
    ".\((path as NSString).lastPathComponent).tmp-"
  }

  /// Removes the temporary files that replacements of `path` left behind when their process was
  /// killed before the rename. The caller holds the document's exclusive lock: every writer
  /// makes and renames its temporary file while holding it, so any such file seen now belongs to
  /// a writer that is gone (whatever its process identifier, which may have been reused).
  ///
  /// - Returns: How many were removed.
  @discardableResult
  package static func removeTemporaryFiles(of path: String) -> Int {
    guard let path = try? resolvingSymbolicLinks(path) else { return 0 }
    let folder = (path as NSString).deletingLastPathComponent
    let prefix = temporaryPrefix(of: path)
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
      return 0
    }
    var removed = 0
    for name in names where name.hasPrefix(prefix) {
      let rest = name.dropFirst(prefix.count)
      // `.tmp-<pid>-<number>`: nothing else is taken for one.
      let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
      guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) })
      else { continue }
      if unlink((folder as NSString).appendingPathComponent(name)) == 0 { removed += 1 }
    }
    return removed
  }
}
