import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

@Suite("kura paths and version")
struct KuraToolTests {
  let folder = TemporaryDirectory()

  @Test func pathsUnderKuraHome() throws {
    let result = try run(
      try executable("kura"), ["paths", "--app", "warikan", "--group", "group.iOS17.M_Kaku"],
      environment: folder.environment)
    #expect(result.status == 0)
    let root = folder.environment["KURA_HOME"] ?? ""
    #expect(
      result.stdout == """
        app         warikan
        data        \(root)/apps/warikan/Data
        documents   \(root)/apps/warikan/Documents
        preferences \(root)/apps/warikan/Preferences
        scenes      \(root)/apps/warikan/Scenes
        store       \(root)/apps/warikan/Data/default.store
        group       \(root)/groups/group.iOS17.M_Kaku

        """)
    // Nothing was created.
    #expect(!FileManager.default.fileExists(atPath: root))
  }

  @Test func pathsWithoutKuraHomeFollowXDG() throws {
    var environment = folder.environment
    environment["KURA_HOME"] = nil
    environment["XDG_CONFIG_HOME"] = "/cfg"
    let result = try run(
      try executable("kura"), ["paths", "--json", "--app", "a"], environment: environment)
    #expect(result.status == 0)
    let home = environment["HOME"] ?? ""
    let decoded = try JSONDecoder().decode([String: String].self, from: Data(result.stdout.utf8))
    #expect(decoded["data"] == "\(home)/.local/share/a")
    #expect(decoded["preferences"] == "/cfg/a")
  }

  @Test func badIdentifierIsAUsageError() throws {
    let result = try run(
      try executable("kura"), ["paths", "--app", "../x"], environment: folder.environment)
    #expect(result.status == 64)
    #expect(
      result.stderr
        == "kura: error: Can't use app identifier `../x`: it contains `/`. Use a reverse-DNS name such as `com.example.app`.\nSee `kura paths --help`.\n"
    )
  }

  @Test func versionPrintsKuraAndSQLite() throws {
    let result = try run(
      try executable("kura"), ["version", "--json"], environment: folder.environment)
    #expect(result.status == 0)
    let decoded = try JSONDecoder().decode([String: String].self, from: Data(result.stdout.utf8))
    #expect(decoded["sqlite"]?.hasPrefix("3.") == true)
    #expect(decoded["kura"] != nil)
  }
}
