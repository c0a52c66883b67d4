import Foundation
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Locations")
struct LocationsTests {
  let folder = TemporaryDirectory()

  @Test func followsXDGDefaultsUnderAFakeHome() throws {
    let home = folder.file("home").path
    let locations = try Locations.app("warikan", environment: ["HOME": home])
    #expect(locations.dataDirectory.path == "\(home)/.local/share/warikan")
    #expect(locations.documentsDirectory.path == "\(home)/.local/share/warikan/Documents")
    #expect(locations.preferencesDirectory.path == "\(home)/.config/warikan")
    #expect(locations.sceneStateDirectory.path == "\(home)/.local/state/warikan/Scenes")
    #expect(locations.defaultStoreURL.path == "\(home)/.local/share/warikan/default.store")
    #expect(
      try Locations.groupContainer("group.iOS17.M_Kaku", environment: ["HOME": home]).path
        == "\(home)/.local/share/kura-groups/group.iOS17.M_Kaku")
  }

  @Test func followsXDGVariables() throws {
    let environment = [
      "HOME": "/nonexistent", "XDG_DATA_HOME": "/x/data", "XDG_CONFIG_HOME": "/x/config",
      "XDG_STATE_HOME": "/x/state",
    ]
    let locations = try Locations.app("students", environment: environment)
    #expect(locations.dataDirectory.path == "/x/data/students")
    #expect(locations.documentsDirectory.path == "/x/data/students/Documents")
    #expect(locations.preferencesDirectory.path == "/x/config/students")
    #expect(locations.sceneStateDirectory.path == "/x/state/students/Scenes")
    #expect(
      try Locations.groupContainer("group.a", environment: environment).path
        == "/x/data/kura-groups/group.a")
  }

  @Test func ignoresRelativeXDGVariablesAsTheSpecSays() throws {
    let locations = try Locations.app(
      "a", environment: ["HOME": "/h", "XDG_DATA_HOME": "relative/path"])
    #expect(locations.dataDirectory.path == "/h/.local/share/a")
  }

  @Test func kuraHomeRootsEverything() throws {
    let root = folder.file("root").path
    let environment = ["HOME": "/h", "XDG_DATA_HOME": "/x", "KURA_HOME": root]
    let locations = try Locations.app("customers", environment: environment)
    #expect(locations.dataDirectory.path == "\(root)/apps/customers/Data")
    #expect(locations.documentsDirectory.path == "\(root)/apps/customers/Documents")
    #expect(locations.preferencesDirectory.path == "\(root)/apps/customers/Preferences")
    #expect(locations.sceneStateDirectory.path == "\(root)/apps/customers/Scenes")
    #expect(
      try Locations.groupContainer("group.b", environment: environment).path
        == "\(root)/groups/group.b")
  }

  @Test func currentUsesKuraAppID() throws {
    let locations = try Locations.current(environment: ["HOME": "/h", "KURA_APP_ID": "wishlist"])
    #expect(locations.appIdentifier == "wishlist")
  }

  @Test(arguments: [
    (
      "",
      "Can't use app identifier ``: it is empty. Use a reverse-DNS name such as `com.example.app`."
    ),
    (
      "a/b",
      "Can't use app identifier `a/b`: it contains `/`. Use a reverse-DNS name such as `com.example.app`."
    ),
    (
      "..",
      "Can't use app identifier `..`: it contains `..`. Use a reverse-DNS name such as `com.example.app`."
    ),
    (
      "x..y",
      "Can't use app identifier `x..y`: it contains `..`. Use a reverse-DNS name such as `com.example.app`."
    ),
    (
      "a\u{0}b",
      "Can't use app identifier `a\\0b`: it contains a NUL character. Use a reverse-DNS name such as `com.example.app`."
    ),
  ])
  func rejectsBadAppIdentifiersQuotingThem(identifier: String, message: String) throws {
    #expect(throws: LocationError.self) { try Locations.app(identifier, environment: [:]) }
    do {
      _ = try Locations.app(identifier, environment: ["HOME": "/h"])
    } catch {
      #expect("\(error)" == message)
    }
  }

  @Test func rejectsBadGroupIdentifiers() throws {
    do {
      _ = try Locations.groupContainer("group.a/../b", environment: ["HOME": "/h"])
      Issue.record("expected an error")
    } catch let error as LocationError {
      #expect(
        error.description
          == "Can't use group identifier `group.a/../b`: it contains `/`. Use a reverse-DNS name such as `com.example.app` prefixed with `group.`."
      )
    }
    #expect(
      throws: LocationError.invalidIdentifier(
        kind: "group", identifier: "group.", reason: "it names no group")
    ) {
      try Locations.groupContainer("group.", environment: ["HOME": "/h"])
    }
  }

  @Test func ensureDirectoryCreatesOwnerOnlyFoldersAndParents() throws {
    let deep = folder.file("a/b/c")
    try Locations.ensureDirectory(deep)
    for path in ["a", "a/b", "a/b/c"] {
      let attributes = try FileManager.default.attributesOfItem(atPath: folder.file(path).path)
      #expect((attributes[.posixPermissions] as? Int) == 0o700, "\(path)")
    }
    try Locations.ensureDirectory(deep)  // idempotent
  }

  @Test func ensureDirectoryRefusesAFileInTheWay() throws {
    let file = folder.file("blocker")
    try Data("x".utf8).write(to: file)
    #expect(
      throws: LocationError.cannotCreate(
        path: file.path, reason: "a file of that name is in the way")
    ) {
      try Locations.ensureDirectory(file)
    }
    // The advice fits: permissions don't move a file out of the way.
    #expect(
      "\(LocationError.cannotCreate(path: file.path, reason: "a file of that name is in the way"))"
        == "Can't create `\(file.path)`: a file of that name is in the way. Move that file away.")
    #expect(
      "\(LocationError.cannotCreate(path: "/x", reason: "Permission denied"))"
        == "Can't create `/x`: Permission denied. Check that its parent folder is writable.")
  }

  // What an iOS app without the group's entitlement is told (the check itself needs an Apple SDK).
  @Test func missingGroupEntitlementSaysWhatToAdd() {
    #expect(
      "\(LocationError.groupNotEntitled(identifier: "group.iOS17.M_Kaku"))"
        == "Can't use App Group `group.iOS17.M_Kaku`: this app has no entitlement for it, so the "
        + "system gives it no shared container. Add the group to the app's App Groups capability.")
  }

  @Test func restrictToOwnerSetsMode0600() throws {
    let file = folder.file("f")
    try Data("x".utf8).write(to: file)
    try Locations.restrictToOwner(file)
    let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
  }
}
