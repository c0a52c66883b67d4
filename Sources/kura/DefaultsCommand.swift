import Dispatch
import Foundation
import Kura
import KuraCLI

/// `kura defaults …`: reads and writes preference suites, like macOS `defaults`.
let defaultsCommand = Command(
  name: "defaults",
  abstract: "Reads, writes, deletes and watches preferences (like macOS `defaults`).",
  discussion: """
    A suite is an app identifier (the app's standard suite, such as `customers`) or an App Group \
    identifier starting with `group.` (such as `group.iOS17.M_Kaku`).
    """,
  subcommands: [
    defaultsDomainsCommand, defaultsReadCommand, defaultsWriteCommand, defaultsDeleteCommand,
    defaultsWatchCommand,
  ])

let defaultsDomainsCommand = Command(
  name: "domains",
  abstract: "Lists every suite that has a file: app identifiers, then App Groups.",
  supportsJSON: true,
  run: { invocation in
    let names = Preferences.suiteNames()
    if invocation.json {
      let rows = try names.map { name in
        DomainRow(
          suite: name, kind: name.hasPrefix("group.") ? "group" : "app",
          path: try Preferences.fileURL(forSuite: name).path)
      }
      try invocation.printJSON(rows)
    } else {
      for name in names { print(name) }
    }
  })

/// One line of `kura defaults domains --json`.
struct DomainRow: Encodable {
  var suite: String
  var kind: String
  var path: String
}

let defaultsReadCommand = Command(
  name: "read",
  abstract: "Prints a key's value, every value of a suite, or every suite.",
  arguments: [
    Argument("suite", help: "The suite; every suite when left out.", isOptional: true),
    Argument("key", help: "The key; every key of the suite when left out.", isOptional: true),
  ],
  supportsJSON: true,
  run: { invocation in
    let suite: String? = try invocation.optionalArgument("suite")
    let key: String? = try invocation.optionalArgument("key")
    guard let suite else {
      // A suite that can't be read is reported; the others are still shown.
      var all: [String: [String: PreferenceValue]] = [:]
      var failures: [String] = []
      for name in Preferences.suiteNames() {
        do {
          all[name] = try Preferences.existing(suite: name).dictionaryRepresentation()
        } catch {
          failures.append("\(error)")
        }
      }
      if invocation.json {
        try invocation.printJSON(all)
      } else {
        for name in all.keys.sorted() {
          print("\(name):")
          for line in DefaultsFormat.lines(all[name] ?? [:]) { print("  " + line) }
        }
      }
      guard failures.isEmpty else {
        for failure in failures {
          FileHandle.standardError.write(Data("kura: error: \(failure)\n".utf8))
        }
        throw ExitCode.failure
      }
      return
    }
    let preferences = try Preferences.existing(suite: suite)
    if let key {
      guard let value = preferences.value(forKey: key) else {
        throw PreferencesError.keyNotFound(key: key, suite: suite)
      }
      if invocation.json { return try invocation.printJSON(value) }
      print(value)
      return
    }
    let values = preferences.dictionaryRepresentation()
    if invocation.json { return try invocation.printJSON(values) }
    for line in DefaultsFormat.lines(values) { print(line) }
  })

let defaultsWriteCommand = Command(
  name: "write",
  abstract: "Stores a value (as text unless a type flag is given); creates the suite if needed.",
  arguments: [
    Argument("suite", help: "The suite."),
    Argument("key", help: "The key."),
    Argument("value", help: "The value, read as the type flag says."),
  ],
  flags: PreferenceValue.TextType.allCases.map { type in
    Flag(type == .integer ? "int" : type.rawValue, help: DefaultsFormat.help(for: type))
  },
  run: { invocation in
    let suite: String = try invocation.argument("suite")
    let key: String = try invocation.argument("key")
    if key.isEmpty {
      throw UsageError(
        "The key is empty: give the name of the key to write, such as `fruits`.",
        command: invocation.commandPath)
    }
    let text: String = try invocation.argument("value")
    let types = PreferenceValue.TextType.allCases.filter {
      invocation.flag($0 == .integer ? "int" : $0.rawValue)
    }
    if types.count > 1 {
      let given = types.map { "`--\($0 == .integer ? "int" : $0.rawValue)`" }
      throw UsageError(
        "Give one type flag, not \(given.joined(separator: " and ")).",
        command: invocation.commandPath)
    }
    let value = try PreferenceValue(parsing: text, as: types.first ?? .string)
    try Preferences(suite: suite).setValue(value, forKey: key)
  })

let defaultsDeleteCommand = Command(
  name: "delete",
  abstract: "Removes a key, or every key of a suite.",
  arguments: [
    Argument("suite", help: "The suite."),
    Argument("key", help: "The key; every key when left out.", isOptional: true),
  ],
  run: { invocation in
    let suite: String = try invocation.argument("suite")
    let key: String? = try invocation.optionalArgument("key")
    let preferences = try Preferences.existing(suite: suite)
    guard let key else { return try preferences.reset() }
    guard preferences.value(forKey: key) != nil else {
      throw PreferencesError.keyNotFound(key: key, suite: suite)
    }
    try preferences.removeValue(forKey: key)
  })

let defaultsWatchCommand = Command(
  name: "watch",
  abstract: "Prints each change made by any process until interrupted (Ctrl-C).",
  discussion: """
    Prints `<key> = <value>` or `<key> removed` per change; with --json, one JSON object per \
    line: {"key": …, "value": …} (no value when removed).
    """,
  arguments: [
    Argument("suite", help: "The suite."),
    Argument("key", help: "Only this key; every key when left out.", isOptional: true),
  ],
  supportsJSON: true,
  run: { invocation in
    let suite: String = try invocation.argument("suite")
    let key: String? = try invocation.optionalArgument("key")
    let preferences = try Preferences.existing(suite: suite)
    let json = invocation.json
    let changes = preferences.changedKeys
    let observation = Task {
      for await names in changes {
        for name in names.sorted() where key == nil || key == name {
          print(DefaultsFormat.change(name, preferences.value(forKey: name), json: json))
        }
        fflush(nil)
      }
    }
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    let sources = [SIGINT, SIGTERM].map { number in
      let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
      source.setEventHandler {
        observation.cancel()
        exit(0)
      }
      source.resume()
      return source
    }
    CommandLineTool.printError(
      "Watching `\(suite)`\(key.map { " key `\($0)`" } ?? "") for changes; press Ctrl-C to stop.")
    withExtendedLifetime((observation, sources)) { dispatchMain() }
  })
