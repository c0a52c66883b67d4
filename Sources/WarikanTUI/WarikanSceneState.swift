import Kura

/// The terminal session's scene state (Kura's `SceneState`): the draft amount, the draft memo
/// and the selected tab, under the keys `amount`, `memo` and `tab` of the session's scene.
///
/// Reopening the app in the same session restores them; a normal quit discards the scene.
///
/// For example:
///
/// ```swift
/// let scene = try WarikanSceneState(sceneID: "tty-pts-3", locations: Locations.app("warikan"))
/// try scene.save(WarikanDraft(amount: "2800", memo: "高速代金", tab: .add))
/// scene.load()  // the same draft, also after a restart
/// ```
package final class WarikanSceneState {
  private static let amountKey = Preferences.Key<String>("amount", default: "")
  private static let memoKey = Preferences.Key<String>("memo", default: "")
  private static let tabKey = Preferences.Key<String>("tab", default: WarikanTab.add.rawValue)

  /// The scene storage underneath.
  package let scene: SceneState

  /// Opens the state of a scene.
  ///
  /// - Parameters:
  ///   - sceneID: The session's scene id (see ``WarikanSceneID``).
  ///   - locations: The app's locations (warikan's).
  /// - Throws: Kura's `PreferencesError` when the scene cannot be opened.
  package init(sceneID: String, locations: Locations) throws {
    scene = try SceneState(sceneID, locations: locations)
  }

  /// The draft kept for the scene, or `nil` when it holds none.
  ///
  /// - Returns: The draft.
  package func load() -> WarikanDraft? {
    let preferences = scene.preferences
    guard
      preferences.contains(Self.amountKey) || preferences.contains(Self.memoKey)
        || preferences.contains(Self.tabKey)
    else { return nil }
    return WarikanDraft(
      amount: scene[Self.amountKey], memo: scene[Self.memoKey],
      tab: WarikanTab(rawValue: scene[Self.tabKey]) ?? .add)
  }

  /// Keeps a draft (one transaction; durable when it returns).
  ///
  /// - Parameter draft: The draft.
  /// - Throws: Kura's `PreferencesError` when it cannot be written.
  package func save(_ draft: WarikanDraft) throws {
    try scene.preferences.batch { batch in
      try batch.set(draft.amount, for: Self.amountKey)
      try batch.set(draft.memo, for: Self.memoKey)
      try batch.set(draft.tab.rawValue, for: Self.tabKey)
    }
  }

  /// Deletes the scene's state (a normal quit).
  ///
  /// - Throws: Kura's `PreferencesError` when it cannot be removed.
  package func discard() throws {
    try scene.discard()
  }
}
