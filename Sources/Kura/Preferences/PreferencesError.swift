import Foundation

/// An error raised by preferences and scene storage.
///
/// For example:
///
/// ```swift
/// do {
///   _ = try Preferences(suite: "group./bad")
/// } catch let error as PreferencesError {
///   print(error)  // Can't use suite name `group./bad`: it contains `/`. …
/// }
/// ```
public enum PreferencesError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A suite name was rejected.
  ///
  /// - Parameters:
  ///   - suite: The name, as given.
  ///   - reason: Why it was rejected.
  case invalidSuiteName(suite: String, reason: String)
  /// A scene identifier was rejected.
  ///
  /// - Parameters:
  ///   - sceneID: The identifier, as given.
  ///   - reason: Why it was rejected.
  case invalidSceneIdentifier(sceneID: String, reason: String)
  /// A suite that must exist has no file yet.
  ///
  /// - Parameters:
  ///   - suite: The suite name.
  ///   - path: Where its file would be.
  case suiteNotFound(suite: String, path: String)
  /// A key that must exist holds no value.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - suite: The suite name.
  case keyNotFound(key: String, suite: String)
  /// A suite's file could not be opened or created.
  ///
  /// - Parameters:
  ///   - path: The file.
  ///   - reason: What went wrong.
  case cannotOpen(path: String, reason: String)
  /// A value could not be converted for storage.
  ///
  /// - Parameters:
  ///   - key: The key being written.
  ///   - reason: The encoder's explanation.
  case cannotEncode(key: String, reason: String)
  /// A write could not be saved.
  ///
  /// - Parameters:
  ///   - path: The suite's file.
  ///   - reason: What went wrong.
  case cannotSave(path: String, reason: String)
  /// Text could not be read as a value of the requested type.
  ///
  /// - Parameters:
  ///   - text: The text, as given.
  ///   - type: The requested type, such as `integer`.
  case invalidValue(text: String, type: String)
  /// A stored value does not decode as the key's type, so it can't be updated from it (it is
  /// kept as it is; reads give the key's default).
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - suite: The suite name.
  ///   - storedType: The type of the stored value, such as `string`.
  ///   - expectedType: The key's type, such as `Array<Customer>`.
  case undecodableValue(key: String, suite: String, storedType: String, expectedType: String)
  /// A stored value can't be read by this version at all (a type it does not know, such as one
  /// added by a newer version, or a value cut short): it is kept as it is, and nothing that
  /// reads it first writes over it.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - suite: The suite name.
  ///   - storedType: The stored type name, such as `futuretype9` or `array`.
  ///   - reason: Why it can't be read.
  case unreadableValue(key: String, suite: String, storedType: String, reason: String)
  /// A write to a suite was made from inside that suite's own ``Preferences/update(_:_:)`` or
  /// ``Preferences/batch(_:)`` (which holds its write transaction): make it through the batch.
  ///
  /// - Parameter suite: The suite name.
  case nestedWrite(suite: String)
  /// The scene's state was discarded; open the scene again to store new state.
  ///
  /// - Parameter sceneID: The scene identifier.
  case sceneDiscarded(sceneID: String)

  /// What failed, the item in backticks, why, and what to do.
  public var description: String {
    switch self {
    case .invalidSuiteName(let suite, let reason):
      let shown = LocationError.shown(suite)
      return
        "Can't use suite name `\(shown)`: \(reason). Use an app identifier such as "
        + "`com.example.app` or an App Group identifier such as `group.com.example`."
    case .invalidSceneIdentifier(let sceneID, let reason):
      let shown = LocationError.shown(sceneID)
      return
        "Can't use scene identifier `\(shown)`: \(reason). Use a name such as `main` or a UUID."
    case .suiteNotFound(let suite, let path):
      return
        "Can't find suite `\(suite)`: no file at `\(path)`. "
        + "Check the name with `kura defaults domains`, or write a value to create it."
    case .keyNotFound(let key, let suite):
      return
        "Can't find key `\(key)` in suite `\(suite)`: it holds no value. "
        + "List the keys with `kura defaults read \(suite)`."
    case .cannotOpen(let path, let reason):
      return "Can't open preferences `\(path)`: \(reason). \(Self.openAdvice(reason))"
    case .cannotEncode(let key, let reason):
      return
        "Can't store a value for key `\(key)`: \(reason). "
        + "Make the value encodable (finite numbers, no unsupported types)."
    case .cannotSave(let path, let reason):
      return
        "Can't save preferences `\(path)`: \(reason). Nothing was changed; "
        + "check free space and permissions, then try again."
    case .invalidValue(let text, let type):
      if type == "json" {
        // Well-formed JSON fails only for what Kura can't store: a null.
        let wellFormed = JSONSyntax.firstError(in: Array(text.utf8)) == nil
        return
          "Can't read `\(text)` as JSON: "
          + (wellFormed
            ? "null is not a value; leave it out or give a value instead."
            : "expected JSON such as {\"a\": [1, 2]}.")
      }
      return "Can't read `\(text)` as \(Self.article(type)): \(Self.expectation(type))."
    case .undecodableValue(let key, let suite, let storedType, let expectedType):
      return
        "Can't update key `\(key)` in suite `\(suite)`: its stored value (\(storedType)) can't be"
        + " read as `\(expectedType)`. Nothing was changed; look at it with `kura defaults read \(suite)"
        + " \(key)`, then remove it (`kura defaults delete \(suite) \(key)`) or set a new value."
    case .unreadableValue(let key, let suite, _, let reason):
      return
        "Can't read key `\(key)` in suite `\(suite)`: \(reason). Nothing was changed; remove it"
        + " (`kura defaults delete \(suite) \(key)`) or set a new value, or use the version of the"
        + " app that wrote it."
    case .nestedWrite(let suite):
      return
        "Can't write to suite `\(suite)` from inside its own `update` or `batch`: that write is"
        + " still in progress. Nothing was changed; make the change through the batch given to"
        + " `batch`, or return it from `update`."
    case .sceneDiscarded(let sceneID):
      return
        "Can't store state for scene `\(sceneID)`: it was discarded. "
        + "Open the scene again with `SceneState(\"\(sceneID)\")` to start afresh."
    }
  }

  /// What to do when a suite's file can't be opened: a file that is not SQLite, or is damaged,
  /// is not fixed by permissions (SQLite's messages for those are fixed texts).
  private static func openAdvice(_ reason: String) -> String {
    if reason.hasPrefix("it is another program's SQLite database") {
      return "Nothing was changed; use another suite name, or move the file away."
    }
    if reason.hasPrefix("file is not a database")
      || reason.hasPrefix("database disk image is malformed")
    {
      return "Nothing was changed; move the file away to start the suite afresh, or restore it"
        + " from a backup."
    }
    return "Check that its folder is writable."
  }

  private static func article(_ type: String) -> String {
    (type.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + type
  }

  private static func expectation(_ type: String) -> String {
    switch type {
    case "integer": return "expected a whole number such as 42"
    case "double": return "expected a number such as 2.5"
    case "bool": return "expected true, false, yes, no, 1 or 0"
    case "date": return "expected an ISO 8601 date such as 2026-11-30T10:15:00Z"
    default: return "expected text"
    }
  }
}
