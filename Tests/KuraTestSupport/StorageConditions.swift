import Foundation
import Testing

/// Runs a system tool and returns whether it exited with 0.
@discardableResult
package func runTool(_ path: String, _ arguments: [String]) -> Bool {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = arguments
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  do {
    try launch(process)
  } catch {
    return false
  }
  process.waitUntilExit()
  return process.terminationStatus == 0
}

/// The immutable flag (`chattr +i`): a file that can't be written, replaced or removed, even by
/// root.
package enum ImmutableFlag {
  /// Whether `chattr +i` works on the test folder's file system.
  package static let isSupported: Bool = {
    let folder = TemporaryDirectory("immutableProbe")
    let probe = folder.file("probe")
    guard FileManager.default.createFile(atPath: probe.path, contents: Data()) else {
      return false
    }
    let set = runTool("/usr/bin/chattr", ["+i", probe.path])
    runTool("/usr/bin/chattr", ["-i", probe.path])
    return set
  }()

  /// Fails the test, saying what to do, when `chattr +i` does not work here.
  package static func requireSupport() throws {
    try #require(
      FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr"),
      "/usr/bin/chattr is missing: run scripts/setup (apt-get install e2fsprogs)")
    try #require(
      isSupported,
      Comment(
        rawValue: "chattr +i fails on \(NSTemporaryDirectory()): run the tests as root "
          + "(CAP_LINUX_IMMUTABLE) with TMPDIR on ext4, xfs or btrfs"))
  }

  package static func set(on url: URL) throws {
    try #require(runTool("/usr/bin/chattr", ["+i", url.path]), "chattr +i \(url.path) failed")
  }

  package static func clear(on url: URL) throws {
    try #require(runTool("/usr/bin/chattr", ["-i", url.path]), "chattr -i \(url.path) failed")
  }
}

/// A small tmpfs mounted for one test (needs root), unmounted when released: a disk that fills
/// up.
package final class SmallFileSystem: Sendable {
  package let url: URL

  /// Mounts one, or fails the test saying what it needs.
  package static func mount(size: Int) throws -> SmallFileSystem {
    try #require(
      SmallFileSystem(size: size),
      Comment(
        rawValue: "can't mount a tmpfs: run the tests as root (CI does), with mount(8) "
          + "installed (apt-get install mount)"))
  }

  package init?(size: Int) {
    let folder = URL(fileURLWithPath: NSTemporaryDirectory())
      .appendingPathComponent("kura-tests-tmpfs-\(UUID().uuidString.prefix(8))")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    guard runTool("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", folder.path]) else {
      try? FileManager.default.removeItem(at: folder)
      return nil
    }
    url = folder
  }

  deinit {
    runTool("/bin/umount", [url.path])
    try? FileManager.default.removeItem(at: url)
  }

  /// A path inside the file system.
  package func file(_ name: String) -> URL { url.appendingPathComponent(name) }

  /// Fills the file system with a filler file, leaving `free` bytes (a multiple of the page
  /// size) unused.
  package func fill(leaving free: Int) throws {
    let path = file("filler").path
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    try #require(fd >= 0)
    defer { close(fd) }
    let chunk = [UInt8](repeating: 0x55, count: 4096)
    var size = 0
    while true {
      let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if written <= 0 { break }
      size += written
    }
    try #require(errno == ENOSPC)
    try #require(ftruncate(fd, off_t(max(0, size - free))) == 0)
  }

  /// Removes the filler.
  package func empty() {
    unlink(file("filler").path)
  }
}
