import Foundation
import KuraBase
import KuraPreferences

/// The state of one scene (one window of an app), like SwiftUI's `@SceneStorage`: every part of
/// the scene shares it, reopening the same scene identifier restores it, and ``discard()`` deletes
/// it while the app's preferences stay.
///
/// Each scene's state is a small preferences suite of its own in the app's scene-state folder,
/// read and written with the same ``Preferences/Key``s.
///
/// For example:
///
/// ```swift
/// extension Preferences.Key {
///   static var menu: Preferences.Key<String> { .init("menu", default: "") }
/// }
///
/// let scene = try SceneState("main")
/// scene[.menu] = "Ramen"
/// // … next launch …
/// print(try SceneState("main")[.menu])  // Ramen
/// try scene.discard()
/// ```
public final class SceneState: Sendable {
  /// The scene's identifier.
  public let sceneID: String
  /// The scene's values, as a preferences suite (for `@Preference(.menu, store: scene.preferences)`).
  public let preferences: Preferences

  /// Opens (creating when missing) the state of a scene of the current app.
  ///
  /// For example: `let scene = try SceneState("main")`.
  ///
  /// - Parameters:
  ///   - sceneID: The scene's identifier, such as `main` or a UUID string.
  ///   - locations: The app's locations; the current app's by default.
  /// - Throws: ``PreferencesError/Code/invalidSceneIdentifier`` or
  ///   ``PreferencesError/Code/cannotOpen``.
  public init(_ sceneID: String, locations: Locations? = nil) throws {
    let locations = try locations ?? Self.currentLocations()
    let url = try Self.fileURL(sceneID: sceneID, locations: locations)
    self.sceneID = sceneID
    self.preferences = try Preferences(fileURL: url, suiteName: sceneID, sceneID: sceneID)
  }

  /// Opens the state of a scene only to read it, or returns `nil` when the scene has none (no
  /// file): nothing is created or written, not even the scene-state folder (see
  /// ``Preferences/readOnly(suite:environment:)``). A write through it throws
  /// ``PreferencesError/Code/cannotSave`` and changes nothing.
  ///
  /// For example:
  ///
  /// ```swift
  /// let menu = try SceneState.readOnly("main")?[.menu] ?? ""
  /// ```
  ///
  /// - Parameters:
  ///   - sceneID: The scene's identifier.
  ///   - locations: The app's locations; the current app's by default.
  /// - Returns: The scene's state, or `nil`.
  /// - Throws: ``PreferencesError/Code/invalidSceneIdentifier`` or
  ///   ``PreferencesError/Code/cannotOpen``.
  public static func readOnly(_ sceneID: String, locations: Locations? = nil) throws
    -> SceneState?
  {
    let locations = try locations ?? Self.currentLocations()
    let url = try Self.fileURL(sceneID: sceneID, locations: locations)
    do {
      return SceneState(
        sceneID: sceneID,
        preferences: try Preferences(
          fileURL: url, suiteName: sceneID, sceneID: sceneID, readOnly: true))
    } catch let error as PreferencesError where error.code == .suiteNotFound {
      return nil
    }
  }

  private init(sceneID: String, preferences: Preferences) {
    self.sceneID = sceneID
    self.preferences = preferences
  }

  /// A scene's value for a key (its default when none is stored); setting it stores the value.
  ///
  /// For example: `scene[.menu] = "Ramen"`.
  ///
  /// - Parameter key: The key.
  public subscript<Value>(key: Preferences.Key<Value>) -> Value {
    get { preferences[key] }
    set { preferences[key] = newValue }
  }

  /// A key's values, the current one first, then the newest value after changes (coalesced, like
  /// every Kura sequence; see <doc:ObservingChanges>).
  ///
  /// For example: `for await menu in scene.changes(of: .menu) { print(menu) }`.
  ///
  /// - Parameter key: The key.
  /// - Returns: An endless sequence of values; it ends when the reading task is cancelled.
  public func changes<Value>(of key: Preferences.Key<Value>) -> AsyncStream<Value> {
    preferences.changes(of: key)
  }

  /// Deletes the scene's state: every value is removed, durably (observers see the defaults, and
  /// so does the scene when opened again). The app's preferences are not touched. Writing through
  /// this instance afterwards fails with ``PreferencesError/Code/sceneDiscarded``; open the
  /// scene again to start afresh. (The emptied file stays while this instance is open; the static
  /// ``discard(sceneID:locations:)`` deletes a scene's files.)
  ///
  /// For example: `try scene.discard()`.
  ///
  /// - Throws: ``PreferencesError/Code/cannotSave``.
  public func discard() throws {
    try preferences.reset()
    preferences.state.withLock { $0.isDiscarded = true }
  }

  /// The identifiers of the scenes of an app that hold state (at least one value), sorted. Each
  /// file is opened only to read: listing creates and changes nothing.
  ///
  /// For example: `let scenes = try SceneState.sceneIdentifiers()`.
  ///
  /// - Parameter locations: The app's locations; the current app's by default.
  /// - Returns: The scene identifiers.
  /// - Throws: ``PreferencesError/Code/cannotOpen`` when the current app has no usable
  ///   identifier.
  public static func sceneIdentifiers(locations: Locations? = nil) throws -> [String] {
    let folder = try (locations ?? currentLocations()).sceneStateDirectory
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".sqlite") }.sorted().compactMap { name in
      let url = folder.appendingPathComponent(name)
      guard let scene = try? Preferences.readOnly(fileURL: url), !scene.keys.isEmpty else {
        return nil
      }
      return String(name.dropLast(".sqlite".count))
    }
  }

  /// Deletes the state of one scene and its files, without opening it. Call it when no instance
  /// of that scene is open in this process (``discard()`` is the way to discard an open scene).
  ///
  /// For example: `try SceneState.discard(sceneID: "main")`.
  ///
  /// - Parameters:
  ///   - sceneID: The scene's identifier.
  ///   - locations: The app's locations; the current app's by default.
  /// - Throws: ``PreferencesError/Code/invalidSceneIdentifier``.
  public static func discard(sceneID: String, locations: Locations? = nil) throws {
    deleteFiles(try fileURL(sceneID: sceneID, locations: locations ?? currentLocations()))
  }

  /// Deletes the state and files of every scene of an app (none may be open in this process).
  ///
  /// For example: `try SceneState.discardAll()`.
  ///
  /// - Parameter locations: The app's locations; the current app's by default.
  /// - Throws: ``PreferencesError/Code/cannotOpen`` when the current app has no usable
  ///   identifier.
  public static func discardAll(locations: Locations? = nil) throws {
    let locations = try locations ?? currentLocations()
    let folder = locations.sceneStateDirectory
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    for name in names where name.hasSuffix(".sqlite") {
      deleteFiles(folder.appendingPathComponent(name))
    }
  }

  package static func fileURL(sceneID: String, locations: Locations) throws -> URL {
    do {
      try Locations.validate(sceneID, kind: "scene")
    } catch let error as LocationError {
      throw PreferencesError.invalidSceneIdentifier(
        sceneID: sceneID, reason: Preferences.reason(error), underlying: error)
    }
    return locations.sceneStateDirectory.appendingPathComponent(sceneID + ".sqlite")
  }

  package static func currentLocations() throws -> Locations {
    do {
      return try Locations.current()
    } catch let error as LocationError {
      throw PreferencesError.cannotOpen(
        path: "scene state", reason: Preferences.reason(error), underlying: error)
    }
  }

  package static func deleteFiles(_ url: URL) {
    for suffix in ["", "-wal", "-shm", "-changes"] {
      try? FileManager.default.removeItem(atPath: url.path + suffix)
    }
  }
}
