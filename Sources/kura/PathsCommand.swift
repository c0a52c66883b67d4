import Foundation
import Kura
import KuraCLI
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraSyncServer

/// `kura paths [--app ID] [--group ID]`: prints where an app's files live.
let pathsCommand = Command(
  name: "paths",
  abstract: "Prints the folders where an app (and an App Group) keeps its data.",
  discussion: """
    Folders follow XDG_DATA_HOME, XDG_CONFIG_HOME and XDG_STATE_HOME on Linux; KURA_HOME=<dir> \
    roots everything in one folder. Nothing is created.
    """,
  options: [
    Option("app", help: "The app identifier (default: KURA_APP_ID or `kura`).", valueName: "id"),
    Option("group", help: "An App Group identifier, such as group.com.example.", valueName: "id"),
  ],
  supportsJSON: true,
  run: { invocation in
    let environment = ProcessInfo.processInfo.environment
    let app: String = try invocation.option("app") ?? environment["KURA_APP_ID"] ?? "kura"
    let locations: Locations
    do {
      locations = try Locations.app(app)
    } catch let error as LocationError {
      throw UsageError("\(error)", command: invocation.commandPath)
    }
    var rows: [(String, String)] = [
      ("app", app),
      ("data", locations.dataDirectory.path),
      ("documents", locations.documentsDirectory.path),
      ("preferences", locations.preferencesDirectory.path),
      ("scenes", locations.sceneStateDirectory.path),
      ("store", locations.defaultStoreURL.path),
    ]
    if let group: String = try invocation.option("group") {
      do {
        rows.append(("group", try Locations.groupContainer(group).path))
      } catch let error as LocationError {
        throw UsageError("\(error)", command: invocation.commandPath)
      }
    }
    if invocation.json {
      try invocation.printJSON(Dictionary(rows, uniquingKeysWith: { a, _ in a }))
    } else {
      for (name, value) in rows {
        print(name.padding(toLength: 12, withPad: " ", startingAt: 0) + visible(value))
      }
    }
  })

/// `kura version`: the Kura and SQLite versions.
let versionCommand = Command(
  name: "version",
  abstract: "Prints the Kura and SQLite versions.",
  supportsJSON: true,
  run: { invocation in
    if invocation.json {
      try invocation.printJSON(["kura": KuraLibrary.version, "sqlite": Connection.sqliteVersion])
    } else {
      print("Kura \(KuraLibrary.version)")
      print("SQLite \(Connection.sqliteVersion)")
    }
  })
