import Foundation
import KuraBase
import KuraSQLite

/// What is at a store's path before it is opened.
package enum StoreFile {
  /// What tells that a file changed: its identity, size and modification time, and whether a
  /// `-wal` file is beside it.
  package struct Stamp: Equatable {
    package var device: UInt64 = 0
    package var inode: UInt64 = 0
    package var size: Int64 = -1
    package var seconds = 0
    package var nanoseconds = 0
    package var hasLog = false

    package init(_ url: URL) {
      var info = stat()
      if stat(url.path, &info) == 0 {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
          let time = info.st_mtimespec
        #else
          let time = info.st_mtim
        #endif
        seconds = Int(time.tv_sec)
        nanoseconds = Int(time.tv_nsec)
      }
      hasLog = access(url.path + "-wal", F_OK) == 0
    }
  }

  package enum State {
    /// Nothing: a new store may be created.
    case missing
    /// A zero-length file and no `-wal` file: SQLite reads it as an empty database.
    case empty
    /// A file with content (or a `-wal` file beside it).
    case present
  }

  package static func state(of url: URL) throws -> State {
    let path = url.path
    var info = stat()
    guard lstat(path, &info) == 0 else { return .missing }
    let file = "`\(url.lastPathComponent)`"
    if info.st_mode & S_IFMT == S_IFLNK {
      let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
      guard stat(path, &info) == 0 else {
        throw StoreError(
          .cannotOpen, url: url,
          message:
            "Can't open store \(file): it is a symbolic link to `\(target)`, which does not "
            + "exist. Nothing was created; fix the link or remove it.")
      }
    }
    if info.st_mode & S_IFMT == S_IFDIR {
      throw StoreError(
        .cannotOpen, url: url,
        message:
          "Can't open store \(file): it is a folder, not a file. Choose another path or move "
          + "the folder away.")
    }
    var log = stat()
    let hasLog = stat(path + "-wal", &log) == 0 && log.st_size > 0
    return info.st_size == 0 && !hasLog ? .empty : .present
  }
}
