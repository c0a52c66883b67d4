import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

/// A whole-value counter document, as `kura-testhelper document-increment` writes it.
private struct LinkedCounter: Codable, Sendable, Equatable {
  var count = 0
}

/// A real file in `real/` and a symbolic link to it in `linked/`, so that files created beside the
/// path as given and beside the real file end up in different folders.
private struct LinkedFile {
  let folder = TemporaryDirectory()
  let real: URL
  let link: URL

  init(_ name: String) throws {
    let realFolder = folder.url.appendingPathComponent("real")
    let linkFolder = folder.url.appendingPathComponent("linked")
    try FileManager.default.createDirectory(at: realFolder, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: linkFolder, withIntermediateDirectories: true)
    real = realFolder.appendingPathComponent(name)
    link = linkFolder.appendingPathComponent(name)
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: real.path)
  }

  /// Runs the helper in four processes at once, two through the link and two directly.
  func inFourProcesses(_ arguments: (URL) -> [String]) throws {
    let helper = try executable("kura-testhelper")
    let children = try [link, real, link, real].map {
      try ChildProcess(helper, arguments($0), environment: folder.environment)
    }
    for child in children {
      child.waitForLine(timeout: 120) { $0 == "done" }
      #expect(child.waitForExit() == 0)
    }
  }
}

@Suite("Two paths to one file")
struct LinkedPathTests {
  @Test func documentUpdatesThroughALinkAndDirectlyLoseNothing() throws {
    let file = try LinkedFile("counter.json")
    try file.inFourProcesses { ["document-increment", $0.path, "100"] }
    let store = try DocumentStore(.url(file.real), defaultValue: LinkedCounter())
    #expect(store.value == LinkedCounter(count: 400))
    #expect(
      !FileManager.default.fileExists(atPath: file.folder.url.path + "/linked/.counter.json.lock"))
  }

  @Test func aDocumentChangeThroughOnePathIsSeenThroughTheOther() async throws {
    let file = try LinkedFile("counter.json")
    let direct = try DocumentStore(.url(file.real), defaultValue: LinkedCounter())
    let linked = try DocumentStore(.url(file.link), defaultValue: LinkedCounter())
    let stream = linked.changes
    for count in 1...50 {
      try direct.replace(with: LinkedCounter(count: count))
      #expect(linked.value == LinkedCounter(count: count))
    }
    try linked.update { $0.count += 1 }
    #expect(direct.value == LinkedCounter(count: 51))
    try direct.replace(with: LinkedCounter(count: 99))
    var observed = try await nextValue(of: stream, within: 20)
    while let value = observed, value != LinkedCounter(count: 99) {
      observed = try await nextValue(of: stream, within: 20)
    }
    #expect(observed == LinkedCounter(count: 99))
  }

  @Test func preferenceUpdatesThroughALinkAndDirectlyLoseNothing() throws {
    let file = try LinkedFile("suite.sqlite")
    try file.inFourProcesses { ["prefs-increment", $0.path, "count", "100"] }
    let preferences = try Preferences(fileURL: file.real)
    #expect(preferences[Preferences.Key<Int>("count", default: 0)] == 400)
  }

  @Test func aPreferenceChangeThroughOnePathIsSeenThroughTheOther() async throws {
    let file = try LinkedFile("suite.sqlite")
    let key = Preferences.Key<Int>("count", default: 0)
    let direct = try Preferences(fileURL: file.real)
    try direct.set(0, for: key)
    let linked = try Preferences(fileURL: file.link)
    let stream = linked.changes(of: key)
    for count in 1...50 {
      try direct.set(count, for: key)
      #expect(linked[key] == count)
    }
    let helper = try executable("kura-testhelper")
    let child = try ChildProcess(
      helper, ["prefs-increment", file.real.path, "count", "1"],
      environment: file.folder.environment)
    child.waitForLine { $0 == "done" }
    var observed = try await nextValue(of: stream, within: 20)
    while let value = observed, value != 51 {
      observed = try await nextValue(of: stream, within: 20)
    }
    #expect(observed == 51)
  }
}
