import Foundation
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Preferences.standard when its file can't be opened")
struct StandardPreferencesTests {
  /// The environment of a child whose app is `probe`, rooted in the test folder.
  private func environment(_ folder: TemporaryDirectory) -> [String: String] {
    var environment = folder.environment
    environment["KURA_APP_ID"] = "probe"
    return environment
  }

  @Test func writesFailWhileTheFolderIsUnwritableAndAreStoredOnceItIsNot() throws {
    try ImmutableFlag.requireSupport()
    let folder = TemporaryDirectory()
    let home = folder.url.appendingPathComponent("kura-home")
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    try ImmutableFlag.set(on: home)
    defer { try? ImmutableFlag.clear(on: home) }
    let child = try ChildProcess(
      try executable("kura-testhelper"), ["standard-preferences", "immutable"],
      environment: environment(folder))
    child.waitForLine { $0 == "waiting" }
    try ImmutableFlag.clear(on: home)
    child.send(line: "go")
    #expect(child.waitForExit() == 0)
    let lines = child.outputLines
    try #require(lines.count == 7, "\(lines)")
    let path = try Locations.app("probe", environment: environment(folder))
    let file = path.preferencesDirectory.appendingPathComponent("probe.sqlite")
    #expect(lines[0].hasPrefix("subscript: Can't open preferences `\(file.path)`"))
    #expect(lines[1] == "read 0")
    #expect(lines[2].hasPrefix("set: Can't open preferences `\(file.path)`"))
    #expect(lines[3] == "waiting")
    #expect(lines[4] == "set saved, read 3")
    #expect(lines[5] == "read 4")
    #expect(lines[6] == "in the file: 4")
  }

  @Test func writesFailWhileTheFileIsLockedAndAreStoredOnceItIsNot() throws {
    let folder = TemporaryDirectory()
    let result = try run(
      try executable("kura-testhelper"), ["standard-preferences", "locked"],
      environment: environment(folder), timeout: .seconds(60))
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    try #require(lines.count == 6, "\(lines)")
    #expect(lines[0].hasPrefix("subscript: Can't open preferences"))
    #expect(lines[0].contains("locked"))
    // Nothing is served from memory: the read gives the default, not the failed write.
    #expect(lines[1] == "read 0")
    #expect(lines[2].hasPrefix("set: Can't open preferences"))
    #expect(lines[3] == "set saved, read 3")
    #expect(lines[4] == "read 4")
    #expect(lines[5] == "in the file: 4")
  }
}
