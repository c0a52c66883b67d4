import Foundation
import Kura
import KuraCLI

// The seed's three text fields, each in a different store: `menu` in the state of a scene,
// `fruits` in the App Group suite `group.iOS17.M_Kaku`, `basket` in the standard suite.

let sceneOption = Option(
  "scene", help: "The scene whose `menu` to use (default: main).", valueName: "id")

/// The value of one field, read from its own store (each opened only to read: a store that
/// doesn't exist yet gives the field's default and is not created).
func fieldValues(scene sceneID: String) throws -> [(name: String, store: String, value: String)] {
  let scene = try SceneState.readOnly(sceneID)
  let group = try readingSuite { try Preferences.readOnly(suite: fruitsGroup) }
  let standard = try readingStandardPreferences()
  return [
    ("menu", "scene \(visible(sceneID))", scene?[.menu] ?? ""),
    ("fruits", fruitsGroup, group?[.fruits] ?? ""),
    ("basket", try Locations.current().appIdentifier, standard?[.basket] ?? ""),
  ]
}

let fieldsCommand = Command(
  name: "fields",
  abstract: "Shows the three fields: menu (scene state), fruits (App Group), basket (standard).",
  options: [sceneOption],
  supportsJSON: true,
  subcommands: [fieldsSetCommand, fieldsScenesCommand, fieldsDiscardSceneCommand],
  run: { invocation in
    let sceneID: String = try invocation.option("scene") ?? "main"
    let fields = try fieldValues(scene: sceneID)
    if invocation.json {
      return try invocation.printJSON(
        Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }))
    }
    for field in fields {
      print("\(field.name) = \(visible(field.value))    (\(visible(field.store)))")
    }
  })

let fieldsSetCommand = Command(
  name: "set",
  abstract: "Sets one field in its store.",
  arguments: [
    Argument("field", help: "menu, fruits or basket."),
    Argument("value", help: "The text.", isRepeating: true),
  ],
  options: [sceneOption],
  run: { invocation in
    let field: String = try invocation.argument("field")
    let value = invocation.words("value").joined(separator: " ")
    let sceneID: String = try invocation.option("scene") ?? "main"
    switch field {
    case "menu": try SceneState(sceneID).preferences.set(value, for: .menu)
    case "fruits": try Preferences(suite: fruitsGroup).set(value, for: .fruits)
    case "basket": try standardPreferences().set(value, for: .basket)
    default:
      throw UsageError(
        "Unknown field `\(field)`: use menu, fruits or basket.", command: invocation.commandPath)
    }
    print("\(field) = \(visible(value))")
  })

let fieldsScenesCommand = Command(
  name: "scenes",
  abstract: "Lists the scenes that hold state.",
  supportsJSON: true,
  run: { invocation in
    let scenes = try SceneState.sceneIdentifiers()
    if invocation.json { return try invocation.printJSON(scenes) }
    for sceneID in scenes { print(visible(sceneID)) }
  })

let fieldsDiscardSceneCommand = Command(
  name: "discard-scene",
  abstract: "Discards a scene's state (its menu); fruits and basket stay.",
  options: [sceneOption],
  run: { invocation in
    let sceneID: String = try invocation.option("scene") ?? "main"
    let scenes = try SceneState.sceneIdentifiers()
    guard scenes.contains(sceneID) else {
      // A bad identifier gets its own message (SceneState checks it before touching a file).
      if (try? Locations.validate(sceneID, kind: "scene")) == nil { _ = try SceneState(sceneID) }
      throw SceneNotFound(sceneID: sceneID, scenes: scenes)
    }
    try SceneState(sceneID).discard()
    print("Discarded scene `\(visible(sceneID))`.")
  })

/// A `customers fields discard-scene` for a scene that holds no state.
struct SceneNotFound: Error, CustomStringConvertible {
  var sceneID: String
  var scenes: [String]
  var description: String {
    let known = scenes.isEmpty ? "no scene holds state" : "see them with `customers fields scenes`"
    return "Can't discard scene `\(sceneID)`: it holds no state (\(known)). Nothing was changed."
  }
}
