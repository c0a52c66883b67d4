import Dispatch
import Foundation
import Kura
import KuraCLI

// Seed 004: a dictionary kept in defaults (`my_dict`), edited by two screens through one
// property wrapper. Here the two screens are two processes: `customers dictionary add first` and
// `customers dictionary add second` add entries under fresh UUID keys, `clear` removes them all,
// and `customers dictionary watch` in another terminal shows each change as it happens.

extension Preferences.Key {
  /// The seed's `my_dict`: entries by UUID, valued "FirstView" or "SecondView".
  static var myDictionary: Preferences.Key<[String: PreferenceValue]> {
    .init("my_dict", default: [:])
  }
}

/// One editor of the dictionary (the seed's view or its sheet): the property wrapper reads the
/// shared value, the edits are atomic across processes.
struct DictionaryEditor {
  @Preference<[String: PreferenceValue]> var entries: [String: PreferenceValue]

  init(store: Preferences) { _entries = Preference(.myDictionary, store: store) }

  /// The seed's buttons: a fresh UUID key with the value "FirstView" or "SecondView".
  func add(_ value: String) throws -> String {
    let key = UUID().uuidString
    try $entries.store.update(.myDictionary) { $0.merging([key: .string(value)]) { _, new in new } }
    return key
  }

  /// The seed's Clear: removes every entry.
  func clear() throws -> Int {
    var count = 0
    try $entries.store.update(.myDictionary) { entries in
      count = entries.count
      return [:]
    }
    return count
  }
}

private let groupOption = Option(
  "group", help: "Use this App Group suite instead of the app's standard suite.", valueName: "id")

/// The `--group` a command names: an App Group identifier (`group.…`), else a usage error (an
/// app identifier there would silently pick another app's suite).
private func group(_ invocation: Invocation) throws -> String? {
  guard let group: String = try invocation.option("group") else { return nil }
  guard group.hasPrefix("group.") else {
    throw UsageError(
      "`\(group)` is not a valid value for --group: an App Group identifier starts with "
        + "`group.`, such as `\(fruitsGroup)`.", command: invocation.commandPath)
  }
  return group
}

/// The editor of a command that changes the dictionary (the suite is created when missing).
private func editor(_ invocation: Invocation) throws -> DictionaryEditor {
  if let group = try group(invocation) {
    return DictionaryEditor(store: try Preferences(suite: group))
  }
  return DictionaryEditor(store: try standardPreferences())
}

/// The entries, read without creating or changing anything: the standard suite without a file
/// holds none; a group suite without a file is an error (most likely a typo).
private func readEntries(_ invocation: Invocation) throws -> [String: PreferenceValue] {
  let store: Preferences?
  if let group = try group(invocation) {
    store = try Preferences.readOnly(suite: group)
  } else {
    store = try readingStandardPreferences()
  }
  guard let store else { return [:] }
  // A value of another type is reported (as `customers list` does), not shown as empty.
  let name = Preferences.Key<[String: PreferenceValue]>.myDictionary.name
  if let stored = try store.storedValue(forKey: name) {
    guard case .dictionary = stored else {
      throw UnreadableDictionary(suite: store.suiteName, storedType: stored.typeName)
    }
  }
  return DictionaryEditor(store: store).entries
}

/// `key = value` lines, sorted by key.
private func lines(_ entries: [String: PreferenceValue]) -> [String] {
  entries.keys.sorted().map { "\(visible($0)) = \(visible(entries[$0]?.description ?? ""))" }
}

let dictionaryCommand = Command(
  name: "dictionary",
  abstract: "Shows the seed's dictionary in defaults (`my_dict`); add, clear and watch edit it.",
  discussion: """
    The dictionary of seed 004, shared by every process of the app: run `customers dictionary \
    watch` in one terminal and `customers dictionary add first` or `clear` in another.
    """,
  options: [groupOption],
  supportsJSON: true,
  subcommands: [dictionaryAddCommand, dictionaryClearCommand, dictionaryWatchCommand],
  run: { invocation in
    let entries = try readEntries(invocation)
    if invocation.json { return try invocation.printJSON(entries) }
    if entries.isEmpty {
      print("The dictionary is empty. Add to it with `customers dictionary add`.")
    }
    for line in lines(entries) { print(line) }
  })

private let dictionaryAddCommand = Command(
  name: "add",
  abstract:
    "Adds an entry under a fresh UUID key: \"FirstView\" (first) or \"SecondView\" (second).",
  arguments: [Argument("view", help: "first or second: which of the seed's two buttons.")],
  options: [groupOption],
  supportsJSON: true,
  run: { invocation in
    let view: String = try invocation.argument("view")
    let value: String
    switch view.lowercased() {
    case "first": value = "FirstView"
    case "second": value = "SecondView"
    default:
      throw UsageError(
        "`\(view)` is not a valid value for <view>: use first or second.",
        command: invocation.commandPath)
    }
    let key = try editor(invocation).add(value)
    if invocation.json { return try invocation.printJSON([key: value]) }
    print("Added \(key) = \(value)")
  })

private let dictionaryClearCommand = Command(
  name: "clear",
  abstract: "Removes every entry (the seed's Clear button).",
  options: [groupOption],
  run: { invocation in
    let count = try editor(invocation).clear()
    print("Cleared \(count) \(count == 1 ? "entry" : "entries").")
  })

private let dictionaryWatchCommand = Command(
  name: "watch",
  abstract: "Prints the dictionary, then again after each change by any process (Ctrl-C stops).",
  options: [groupOption],
  supportsJSON: true,
  run: { invocation in
    let editor = try editor(invocation)
    let json = invocation.json
    let changes = editor.$entries.changes
    Task {
      var first = true
      for await entries in changes {
        if json {
          print(try Invocation.jsonString(entries).split(separator: "\n").joined())
        } else {
          let count = "\(entries.count) \(entries.count == 1 ? "entry" : "entries"):"
          print(first ? count : "Changed, " + count)
          for line in lines(entries) { print("  " + line) }
        }
        first = false
        fflush(nil)
      }
    }
    signal(SIGINT, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
    source.setEventHandler { exit(0) }
    source.resume()
    CommandLineTool.printError("Watching `my_dict`; press Ctrl-C to stop.")
    withExtendedLifetime(source) { dispatchMain() }
  })

/// A stored `my_dict` that is not a dictionary (written by hand or by another app).
struct UnreadableDictionary: Error, CustomStringConvertible {
  var suite: String
  var storedType: String
  var description: String {
    let key = Preferences.Key<[String: PreferenceValue]>.myDictionary.name
    return "Can't show the dictionary: the value under key `\(key)` (\(storedType)) is not a"
      + " dictionary. Nothing was changed; look at it with `kura defaults read \(suite) \(key)`."
  }
}
