import Foundation
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Scene storage")
struct SceneStorageTests {
  let menu = Preferences.Key<String>("menu", default: "")
  let basket = Preferences.Key<String>("basket", default: "")

  @Test func everyPartOfASceneSharesItsStateAndReopeningRestoresIt() throws {
    let folder = TemporaryDirectory()
    let locations = try Locations.app("essentials", environment: folder.environment)
    let scene = try SceneState("main", locations: locations)
    let sameScene = try SceneState("main", locations: locations)
    let otherScene = try SceneState("second", locations: locations)
    scene[menu] = "Ramen"
    #expect(sameScene[menu] == "Ramen")
    #expect(otherScene[menu] == "")
    #expect(try SceneState("main", locations: locations)[menu] == "Ramen")
    #expect(try SceneState.sceneIdentifiers(locations: locations) == ["main"])
  }

  @Test func discardDeletesSceneStateButNotAppPreferences() throws {
    let folder = TemporaryDirectory()
    let locations = try Locations.app("essentials", environment: folder.environment)
    let preferences = try Preferences(locations: locations)
    preferences[basket] = "eggs"
    let scene = try SceneState("main", locations: locations)
    scene[menu] = "Ramen"
    try scene.discard()
    #expect(scene[menu] == "")
    #expect(try SceneState("main", locations: locations)[menu] == "")
    #expect(try SceneState.sceneIdentifiers(locations: locations) == [])
    #expect(throws: PreferencesError.sceneDiscarded(sceneID: "main")) {
      try scene.preferences.set("Udon", for: menu)
    }
    #expect(try Preferences(locations: locations)[basket] == "eggs")
  }

  @Test func discardAllRemovesEverySceneFile() throws {
    let folder = TemporaryDirectory()
    let locations = try Locations.app("essentials", environment: folder.environment)
    do {
      try SceneState("a", locations: locations)[menu] = "1"
      try SceneState("b", locations: locations)[menu] = "2"
    }
    #expect(try SceneState.sceneIdentifiers(locations: locations) == ["a", "b"])
    try SceneState.discard(sceneID: "a", locations: locations)
    #expect(try SceneState.sceneIdentifiers(locations: locations) == ["b"])
    try SceneState.discardAll(locations: locations)
    #expect(try SceneState.sceneIdentifiers(locations: locations) == [])
    let files = try FileManager.default.contentsOfDirectory(
      atPath: locations.sceneStateDirectory.path)
    #expect(files == [])
  }

  @Test func aBadSceneIdentifierIsRejected() throws {
    let locations = try Locations.app("essentials", environment: TemporaryDirectory().environment)
    #expect(
      throws: PreferencesError.invalidSceneIdentifier(sceneID: "../x", reason: "it contains `/`")
    ) {
      try SceneState("../x", locations: locations)
    }
    #expect(
      PreferencesError.invalidSceneIdentifier(sceneID: "../x", reason: "it contains `/`")
        .description
        == "Can't use scene identifier `../x`: it contains `/`. Use a name such as `main` or a UUID."
    )
  }
}
