import Dispatch
import Foundation
import Kura
import KuraCLI
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraSyncServer

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
      for name in names { print(visible(name)) }
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
  discussion: """
    With --json, bytes that hold a JSON array or object (how apps keep a Codable value in \
    `Data`, such as the seed's customer list) print as that JSON; other bytes print as base64.
    """,
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
          let preferences = try Preferences.readOnly(suite: name)
          all[name] = preferences.dictionaryRepresentation()
          for key in preferences.unreadableKeys {
            do { _ = try preferences.storedValue(forKey: key) } catch {
              failures.append("\(error)")
            }
          }
        } catch {
          failures.append("\(error)")
        }
      }
      if invocation.json {
        try invocation.printJSON(all.mapValues { $0.mapValues(DefaultsFormat.jsonShape) })
      } else {
        for name in all.keys.sorted() {
          print("\(visible(name)):")
          for line in DefaultsFormat.lines(all[name] ?? [:]) { print("  " + line) }
        }
      }
      guard failures.isEmpty else {
        for failure in failures {
          CommandLineTool.printError("kura: error: \(visibleLines(failure))")
        }
        throw ExitCode.failure
      }
      return
    }
    let preferences = try Preferences.readOnly(suite: suite)
    if let key {
      guard let value = try preferences.storedValue(forKey: key) else {
        throw PreferencesError.keyNotFound(key: key, suite: suite)
      }
      if invocation.json { return try invocation.printJSON(DefaultsFormat.jsonShape(value)) }
      print(visible(value.description))
      return
    }
    let values = preferences.dictionaryRepresentation()
    if invocation.json {
      try invocation.printJSON(values.mapValues(DefaultsFormat.jsonShape))
    } else {
      for line in DefaultsFormat.lines(values) { print(line) }
    }
    // A value this version can't read is reported, not left out silently.
    if let unreadable = preferences.unreadableKeys.first {
      _ = try preferences.storedValue(forKey: unreadable)
    }
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
    let value: PreferenceValue
    do {
      let type = types.first ?? .string
      let numeric = type == .integer || type == .double
      if type == .integer, Int64(argument: text) == nil, let problem = Int64.problem(with: text) {
        // A whole number too large to store: say the range.
        throw UsageError(
          "`\(text)` is not a valid value for <value>: \(problem).", command: invocation.commandPath
        )
      }
      value = try PreferenceValue(parsing: numeric ? text.withASCIIDigits : text, as: type)
    } catch let error as PreferencesError {
      // A value that doesn't read as the type asked for is a bad argument: exit 64.
      throw UsageError("\(error)", command: invocation.commandPath)
    }
    try Preferences(suite: suite).setValue(value, forKey: key)
  })

let defaultsDeleteCommand = Command(
  name: "delete",
  abstract: "Removes a key, or (after asking) every key of a suite; prints what was removed.",
  discussion: """
    Without a key, every key of the suite is removed: on a terminal it asks first, and --yes \
    skips the question; when standard input is not a terminal, --yes is required.
    """,
  arguments: [
    Argument("suite", help: "The suite."),
    Argument("key", help: "The key; every key when left out.", isOptional: true),
  ],
  flags: [Flag("yes", short: "y", help: "Don't ask before removing every key of the suite.")],
  run: { invocation in
    let suite: String = try invocation.argument("suite")
    let key: String? = try invocation.optionalArgument("key")
    let preferences = try Preferences.existing(suite: suite)
    guard let key else {
      let names = Array(Set(preferences.keys + preferences.unreadableKeys)).sorted()
      guard !names.isEmpty else {
        return print("`\(visible(suite))` holds no keys; nothing was removed.")
      }
      let what = "\(names.count) \(names.count == 1 ? "key" : "keys") of `\(visible(suite))`"
      if !invocation.flag("yes") {
        guard isatty(STDIN_FILENO) == 1 else {
          throw UsageError(
            "`kura defaults delete \(suite)` would remove every key of the suite (\(what)) and "
              + "standard input is not a terminal to ask: run `kura defaults delete \(suite) "
              + "--yes`, or give the key to remove.", command: invocation.commandPath)
        }
        print(
          "Remove \(what) (\(names.map(visible).joined(separator: ", ")))? [y/N] ", terminator: "")
        fflush(nil)
        let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else {
          print("Nothing was removed.")
          throw ExitCode.failure
        }
      }
      // Exactly the keys listed, in one transaction: a key another process adds meanwhile stays.
      try preferences.batch { batch in
        for name in names { try batch.setValue(nil, forKey: name) }
      }
      print("Removed \(what): \(names.map(visible).joined(separator: ", ")).")
      return
    }
    guard preferences.value(forKey: key) != nil || preferences.unreadableKeys.contains(key) else {
      throw PreferencesError.keyNotFound(key: key, suite: suite)
    }
    try preferences.removeValue(forKey: key)
    print("Removed `\(visible(key))` from `\(visible(suite))`.")
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
          do {
            let value = try preferences.storedValue(forKey: name)
            print(DefaultsFormat.change(name, value, json: json))
          } catch {
            // A value this version can't read is not shown as removed.
            CommandLineTool.printError("kura: warning: \(visibleLines("\(error)"))")
          }
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
      "Watching `\(visible(suite))`\(key.map { " key `\(visible($0))`" } ?? "") for changes; "
        + "press Ctrl-C to stop.")
    withExtendedLifetime((observation, sources)) { dispatchMain() }
  })
