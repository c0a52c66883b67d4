import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
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

  /// Mounts and fills one, or fails the test saying what it needs.
  static func filled() throws -> FullFileSystem {
    try #require(
      FullFileSystem(),
      "can't mount a tmpfs: run the tests as root (CI does), in a namespace that allows mounts")
  }
}

@Suite("A full disk")
struct FullDiskTests {
  /// Runs the helper on the full file system: it must end with an error, not a signal.
  private func runOnFullDisk(_ arguments: (URL) -> [String]) throws -> ProcessResult {
    let disk = try FullFileSystem.filled()
    let result = try run(
      try executable("kura-testhelper"), arguments(disk.mountPoint),
      environment: disk.folder.environment)
    return result
  }

  @Test func creatingADocumentOnAFullDiskIsAnErrorNotACrash() throws {
    var mountPoint: URL?
    let result = try runOnFullDisk {
      mountPoint = $0
      return ["document-append", $0.appendingPathComponent("cashData.json").path, "1", "A"]
    }
    let folder = try #require(mountPoint).path
    #expect(result.status == 1)
    // The temporary file's name ends with the process id and a random number.
    #expect(
      result.stderr.hasPrefix(
        "kura-testhelper: Can't save document `\(folder)/cashData.json`: write "
          + "`\(folder)/.cashData.json.tmp-"), "\(result.stderr)")
    #expect(
      result.stderr.hasSuffix(
        "` failed: No space left on device. Check that the folder is writable and the disk has "
          + "space; the document on disk is unchanged.\n"), "\(result.stderr)")
  }

  @Test func watchingADocumentOnAFullDiskIsNoCrash() throws {
    let disk = try FullFileSystem.filled()
    let url = disk.mountPoint.appendingPathComponent("entries.json")
    let store = try DocumentStore<[Int]>(.url(url))
    #expect(store.value == [])
    #expect {
      try store.replace(with: [1])
    } throws: { error in
      let error = try #require(error as? DocumentError)
      return error.code == .cannotWrite && error.reason.hasSuffix("No space left on device")
    }
    #expect(store.value == [])
  }

  @Test func openingASuiteOnAFullDiskIsAnErrorNotACrash() throws {
    var mountPoint: URL?
    let result = try runOnFullDisk {
      mountPoint = $0
      return ["prefs-increment", $0.appendingPathComponent("suite.sqlite").path, "count", "1"]
    }
    let suite = try #require(mountPoint).appendingPathComponent("suite.sqlite").path
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "kura-testhelper: Can't open preferences `\(suite)`: database or disk is full. Check "
        + "that its folder is writable.\n")
  }
}
