import Foundation
import Testing

@testable import Kura

/// A small tmpfs mounted in a test's own folder (needs root), filled to the last byte.
private final class FullFileSystem {
  let folder = TemporaryDirectory()
  let mountPoint: URL
  private var mounted = false

  init?() {
    mountPoint = folder.url.appendingPathComponent("full")
    try? FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
    guard mount("tmpfs", mountPoint.path, "tmpfs", 0, "size=256k,mode=0700") == 0 else {
      return nil
    }
    mounted = true
    // Fill it: write until the file system refuses.
    let fd = open(mountPoint.appendingPathComponent("filler").path, O_WRONLY | O_CREAT, 0o600)
    let block = [UInt8](repeating: 1, count: 4096)
    while fd >= 0 && write(fd, block, block.count) > 0 {}
    var single: UInt8 = 1
    while fd >= 0 && write(fd, &single, 1) > 0 {}
    if fd >= 0 { close(fd) }
  }

  deinit {
    if mounted { umount(mountPoint.path) }
  }

  /// Whether this process may mount a file system (root in a namespace that allows it).
  static let isAvailable: Bool = FullFileSystem() != nil
}

@Suite("A full disk")
struct FullDiskTests {
  /// Runs the helper on the full file system: it must end with an error, not a signal.
  private func runOnFullDisk(_ arguments: (URL) -> [String]) throws -> ProcessResult {
    let disk = try #require(FullFileSystem())
    let result = try run(
      try executable("kura-testhelper"), arguments(disk.mountPoint),
      environment: disk.folder.environment)
    return result
  }

  @Test(.enabled(if: FullFileSystem.isAvailable, "mounting a tmpfs needs root"))
  func creatingADocumentOnAFullDiskIsAnErrorNotACrash() throws {
    let result = try runOnFullDisk {
      ["document-append", $0.appendingPathComponent("cashData.json").path, "1", "A"]
    }
    #expect(result.status == 1)
    #expect(result.stderr.contains("No space left on device"))
  }

  @Test(.enabled(if: FullFileSystem.isAvailable, "mounting a tmpfs needs root"))
  func watchingADocumentOnAFullDiskIsNoCrash() throws {
    let disk = try #require(FullFileSystem())
    let url = disk.mountPoint.appendingPathComponent("entries.json")
    let store = try DocumentStore<[Int]>(.url(url))
    #expect(store.value == [])
    #expect(throws: DocumentError.self) { try store.replace(with: [1]) }
    #expect(store.value == [])
  }

  @Test(.enabled(if: FullFileSystem.isAvailable, "mounting a tmpfs needs root"))
  func openingASuiteOnAFullDiskIsAnErrorNotACrash() throws {
    let result = try runOnFullDisk {
      ["prefs-increment", $0.appendingPathComponent("suite.sqlite").path, "count", "1"]
    }
    #expect(result.status == 1)
    #expect(result.stderr.contains("kura-testhelper:"))
  }
}
