import Foundation
import Kura
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

@testable import WarikanTUI

@Suite("Warikan scene state")
struct WarikanSceneStateTests {
  @Test func aSavedDraftIsRestoredByTheSameSceneAndDiscardedOnQuit() throws {
    let directory = TemporaryDirectory()
    let locations = try Locations.app("warikan", environment: directory.environment)
    let draft = WarikanDraft(amount: "12a", memo: "高速代金", tab: .calc)

    let first = try WarikanSceneState(sceneID: "tmux-1-pane-0", locations: locations)
    #expect(first.load() == nil)
    try first.save(draft)
    #expect(try WarikanSceneState(sceneID: "tmux-1-pane-0", locations: locations).load() == draft)
    #expect(try WarikanSceneState(sceneID: "tmux-1-pane-1", locations: locations).load() == nil)
    #expect(try SceneState.sceneIdentifiers(locations: locations) == ["tmux-1-pane-0"])

    try first.discard()
    #expect(try WarikanSceneState(sceneID: "tmux-1-pane-0", locations: locations).load() == nil)
  }

  @Test func anUnknownTabReadsAsAdd() throws {
    let directory = TemporaryDirectory()
    let locations = try Locations.app("warikan", environment: directory.environment)
    let scene = try SceneState("main", locations: locations)
    scene[Preferences.Key<String>("tab", default: "")] = "settings"
    let state = try WarikanSceneState(sceneID: "main", locations: locations)
    #expect(state.load() == WarikanDraft(amount: "", memo: "", tab: .add))
  }
}
