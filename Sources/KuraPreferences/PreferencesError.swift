import Foundation
import KuraBase
import KuraSQLite

/// An error raised by preferences and scene storage.
///
/// Match on ``code``; the other properties carry the input it concerns (suite, key, scene,
/// file) and ``underlying`` the error underneath, when there is one. The description follows
/// Kura's pattern: what failed, the item in backticks, why, what to do.
///
/// For example:
///
/// ```swift
/// do {
///   _ = try Preferences(suite: "group./bad")
/// } catch let error as PreferencesError where error.code == .invalidSuiteName {
///   print(error)  // Can't use suite name `group./bad`: it contains `/`. …
/// }
/// ```
///
/// <doc:HandlingErrors> lists the codes that replaced this type's former enum cases.
public struct PreferencesError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What kind of failure this is.
  ///
  /// For example:
  ///
  /// ```swift
  /// if error.code == .suiteNotFound { print("no file yet") }
  /// ```
  public enum Code: String, Sendable, Hashable {
    /// A suite name was rejected (``PreferencesError/suite``, ``PreferencesError/reason``).
    case invalidSuiteName
    /// A scene identifier was rejected (``PreferencesError/sceneID``,
    /// ``PreferencesError/reason``).
    case invalidSceneIdentifier
    /// A suite that must exist has no file yet (``PreferencesError/suite``,
    /// ``PreferencesError/path``).
    case suiteNotFound
    /// A key that must exist holds no value (``PreferencesError/key``,
    /// ``PreferencesError/suite``).
    case keyNotFound
    /// A suite's file could not be opened or created (``PreferencesError/path``,
    /// ``PreferencesError/reason``).
    case cannotOpen
    /// A value could not be converted for storage (``PreferencesError/key``,
    /// ``PreferencesError/reason``).
    case cannotEncode
    /// A write could not be saved (``PreferencesError/path``, ``PreferencesError/reason``).
    case cannotSave
    /// Text could not be read as a value of the requested type (``PreferencesError/text``,
    /// ``PreferencesError/expectedType``, such as `integer`).
    case invalidValue
    /// A stored value does not decode as the key's type, so it can't be updated from it (it is
    /// kept as it is; reads give the key's default): ``PreferencesError/key``,
    /// ``PreferencesError/suite``, ``PreferencesError/storedType``,
    /// ``PreferencesError/expectedType``.
    case undecodableValue
    /// A stored value can't be read by this version at all (a type it does not know, such as
    /// one added by a newer version, or a value cut short): it is kept as it is, and nothing
    /// that reads it first writes over it. ``PreferencesError/key``,
    /// ``PreferencesError/suite``, ``PreferencesError/storedType``,
    /// ``PreferencesError/reason``.
    case unreadableValue
    /// A write to a suite was made from inside that suite's own ``Preferences/update(_:_:)`` or
    /// ``Preferences/batch(_:)`` (which holds its write transaction): make it through the
    /// batch. ``PreferencesError/suite``.
    case nestedWrite
    /// The scene's state was discarded; open the scene again to store new state.
    /// ``PreferencesError/sceneID``.
    case sceneDiscarded
  }

  /// What kind of failure this is, such as ``Code/keyNotFound``.
  ///
  /// For example: `catch let error as PreferencesError where error.code == .keyNotFound { … }`.
  public let code: Code
  /// The suite's name, when one is involved, such as `com.example.app`.
  ///
  /// For example: `print(error.suite ?? "")`.
  public let suite: String?
  /// The key, when one is involved.
  ///
  /// For example: `if error.key == "launchCount" { … }`.
  public let key: String?
  /// The scene identifier, when one is involved.
  ///
  /// For example: `print(error.sceneID ?? "")`.
  public let sceneID: String?
  /// The suite's file, when one is involved.
  ///
  /// For example: `print(error.path ?? "")`.
  public let path: String?
  /// For ``Code/invalidValue``: the text, as given.
  ///
  /// For example: `print(error.text ?? "")`.
  public let text: String?
  /// For ``Code/undecodableValue`` and ``Code/unreadableValue``: the type of the stored value,
  /// such as `string`.
  ///
  /// For example: `print(error.storedType ?? "")`.
  public let storedType: String?
  /// For ``Code/invalidValue`` and ``Code/undecodableValue``: the type asked for, such as
  /// `integer` or `Array<Customer>`.
  ///
  /// For example: `print(error.expectedType ?? "")`.
  public let expectedType: String?
  /// Why it failed, in words, when the code alone does not say.
  ///
  /// For example: `print(error.reason ?? "")`.
  public let reason: String?
  /// The error underneath, when there is one: an ``SQLiteError``, a ``LocationError``, or an
  /// encoder's error. Not compared by `==`.
  ///
  /// For example: `if let sqlite = error.underlying as? SQLiteError { print(sqlite.code) }`.
  public let underlying: (any Error)?

  /// Creates an error; Kura creates these, your code matches on them.
  ///
  /// For example:
  ///
  /// ```swift
  /// let error = PreferencesError(.keyNotFound, suite: "app", key: "launchCount")
  /// ```
  ///
  /// - Parameters:
  ///   - code: The kind of failure.
  ///   - suite: The suite's name.
  ///   - key: The key.
  ///   - sceneID: The scene identifier.
  ///   - path: The suite's file.
  ///   - text: The text that could not be read as a value.
  ///   - storedType: The stored value's type.
  ///   - expectedType: The type asked for.
  ///   - reason: Why it failed.
  ///   - underlying: The error underneath.
  public init(
    _ code: Code, suite: String? = nil, key: String? = nil, sceneID: String? = nil,
    path: String? = nil, text: String? = nil, storedType: String? = nil,
    expectedType: String? = nil, reason: String? = nil, underlying: (any Error)? = nil
  ) {
    self.code = code
    self.suite = suite
    self.key = key
    self.sceneID = sceneID
    self.path = path
    self.text = text
    self.storedType = storedType
    self.expectedType = expectedType
    self.reason = reason
    self.underlying = underlying
  }

  /// Whether two errors have the same code and context (``underlying`` is not compared).
  ///
  /// For example: `#expect(error == .keyNotFound(key: "k", suite: "app"))`.
  ///
  /// - Parameters:
  ///   - lhs: An error.
  ///   - rhs: Another error.
  /// - Returns: Whether they are the same failure.
  public static func == (lhs: PreferencesError, rhs: PreferencesError) -> Bool {
    lhs.code == rhs.code && lhs.suite == rhs.suite && lhs.key == rhs.key
      && lhs.sceneID == rhs.sceneID && lhs.path == rhs.path && lhs.text == rhs.text
      && lhs.storedType == rhs.storedType && lhs.expectedType == rhs.expectedType
      && lhs.reason == rhs.reason
  }
}

extension PreferencesError {
  /// A suite name was rejected.
  ///
  /// For example: `throw PreferencesError.invalidSuiteName(suite: "a/b", reason: "it is empty")`.
  ///
  /// - Parameters:
  ///   - suite: The name, as given.
  ///   - reason: Why it was rejected.
  ///   - underlying: The error underneath, such as a ``LocationError``.
  /// - Returns: An error with code ``Code/invalidSuiteName``.
  public static func invalidSuiteName(
    suite: String, reason: String, underlying: (any Error)? = nil
  ) -> PreferencesError {
    PreferencesError(.invalidSuiteName, suite: suite, reason: reason, underlying: underlying)
  }

  /// A scene identifier was rejected.
  ///
  /// For example: `throw PreferencesError.invalidSceneIdentifier(sceneID: "../x", reason: "…")`.
  ///
  /// - Parameters:
  ///   - sceneID: The identifier, as given.
  ///   - reason: Why it was rejected.
  ///   - underlying: The error underneath, such as a ``LocationError``.
  /// - Returns: An error with code ``Code/invalidSceneIdentifier``.
  public static func invalidSceneIdentifier(
    sceneID: String, reason: String, underlying: (any Error)? = nil
  ) -> PreferencesError {
    PreferencesError(
      .invalidSceneIdentifier, sceneID: sceneID, reason: reason, underlying: underlying)
  }

  /// A suite that must exist has no file yet.
  ///
  /// For example: `throw PreferencesError.suiteNotFound(suite: "app", path: url.path)`.
  ///
  /// - Parameters:
  ///   - suite: The suite name.
  ///   - path: Where its file would be.
  /// - Returns: An error with code ``Code/suiteNotFound``.
  public static func suiteNotFound(suite: String, path: String) -> PreferencesError {
    PreferencesError(.suiteNotFound, suite: suite, path: path)
  }

  /// A key that must exist holds no value.
  ///
  /// For example: `throw PreferencesError.keyNotFound(key: "launchCount", suite: "app")`.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - suite: The suite name.
  /// - Returns: An error with code ``Code/keyNotFound``.
  public static func keyNotFound(key: String, suite: String) -> PreferencesError {
    PreferencesError(.keyNotFound, suite: suite, key: key)
  }

  /// A suite's file could not be opened or created.
  ///
  /// For example: `throw PreferencesError.cannotOpen(path: url.path, reason: "disk full")`.
  ///
  /// - Parameters:
  ///   - path: The file.
  ///   - reason: What went wrong.
  ///   - underlying: The error underneath, such as an ``SQLiteError``.
  /// - Returns: An error with code ``Code/cannotOpen``.
  public static func cannotOpen(
    path: String, reason: String, underlying: (any Error)? = nil
  ) -> PreferencesError {
    PreferencesError(.cannotOpen, path: path, reason: reason, underlying: underlying)
  }

  /// A value could not be converted for storage.
  ///
  /// For example: `throw PreferencesError.cannotEncode(key: "ratio", reason: "not finite")`.
  ///
  /// - Parameters:
  ///   - key: The key being written.
  ///   - reason: The encoder's explanation.
  ///   - underlying: The encoder's error.
  /// - Returns: An error with code ``Code/cannotEncode``.
  public static func cannotEncode(
    key: String, reason: String, underlying: (any Error)? = nil
  ) -> PreferencesError {
    PreferencesError(.cannotEncode, key: key, reason: reason, underlying: underlying)
  }

  /// A write could not be saved.
  ///
  /// For example: `throw PreferencesError.cannotSave(path: url.path, reason: "disk full")`.
  ///
  /// - Parameters:
  ///   - path: The suite's file.
  ///   - reason: What went wrong.
  ///   - underlying: The error underneath, such as an ``SQLiteError``.
  /// - Returns: An error with code ``Code/cannotSave``.
  public static func cannotSave(
    path: String, reason: String, underlying: (any Error)? = nil
  ) -> PreferencesError {
    PreferencesError(.cannotSave, path: path, reason: reason, underlying: underlying)
  }

  /// Text could not be read as a value of the requested type.
  ///
  /// For example: `throw PreferencesError.invalidValue(text: "4x", type: "integer")`.
  ///
  /// - Parameters:
  ///   - text: The text, as given.
  ///   - type: The requested type, such as `integer`.
  /// - Returns: An error with code ``Code/invalidValue``.
  public static func invalidValue(text: String, type: String) -> PreferencesError {
    PreferencesError(.invalidValue, text: text, expectedType: type)
  }

  /// A stored value does not decode as the key's type, so it can't be updated from it.
  ///
  /// For example:
  ///
  /// ```swift
  /// let error = PreferencesError.undecodableValue(
  ///   key: "k", suite: "app", storedType: "string", expectedType: "Int")
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - suite: The suite name.
  ///   - storedType: The type of the stored value, such as `string`.
  ///   - expectedType: The key's type, such as `Array<Customer>`.
  /// - Returns: An error with code ``Code/undecodableValue``.
  public static func undecodableValue(
    key: String, suite: String, storedType: String, expectedType: String
  ) -> PreferencesError {
    PreferencesError(
      .undecodableValue, suite: suite, key: key, storedType: storedType,
      expectedType: expectedType)
  }

  /// A stored value can't be read by this version at all.
  ///
  /// For example:
  ///
  /// ```swift
  /// let error = PreferencesError.unreadableValue(
  ///   key: "k", suite: "app", storedType: "futuretype9", reason: "its type is unknown")
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - suite: The suite name.
  ///   - storedType: The stored type name, such as `futuretype9` or `array`.
  ///   - reason: Why it can't be read.
  /// - Returns: An error with code ``Code/unreadableValue``.
  public static func unreadableValue(
    key: String, suite: String, storedType: String, reason: String
  ) -> PreferencesError {
    PreferencesError(
      .unreadableValue, suite: suite, key: key, storedType: storedType, reason: reason)
  }

  /// A write to a suite was made from inside that suite's own update or batch.
  ///
  /// For example: `throw PreferencesError.nestedWrite(suite: "app")`.
  ///
  /// - Parameter suite: The suite name.
  /// - Returns: An error with code ``Code/nestedWrite``.
  public static func nestedWrite(suite: String) -> PreferencesError {
    PreferencesError(.nestedWrite, suite: suite)
  }

  /// The scene's state was discarded.
  ///
  /// For example: `throw PreferencesError.sceneDiscarded(sceneID: "main")`.
  ///
  /// - Parameter sceneID: The scene identifier.
  /// - Returns: An error with code ``Code/sceneDiscarded``.
  public static func sceneDiscarded(sceneID: String) -> PreferencesError {
    PreferencesError(.sceneDiscarded, sceneID: sceneID)
  }
}

extension PreferencesError {
  /// What failed, the item in backticks, why, and what to do.
  public var description: String {
    let suite = self.suite ?? ""
    let key = self.key ?? ""
    let sceneID = self.sceneID ?? ""
    let path = self.path ?? ""
    let reason = self.reason ?? ""
    switch code {
    case .invalidSuiteName:
      let shown = LocationError.shown(suite)
      return
        "Can't use suite name `\(shown)`: \(reason). Use an app identifier such as "
        + "`com.example.app` or an App Group identifier such as `group.com.example`."
    case .invalidSceneIdentifier:
      let shown = LocationError.shown(sceneID)
      return
        "Can't use scene identifier `\(shown)`: \(reason). Use a name such as `main` or a UUID."
    case .suiteNotFound:
      return
        "Can't find suite `\(suite)`: no file at `\(path)`. "
        + "Check the name with `kura defaults domains`, or write a value to create it."
    case .keyNotFound:
      return
        "Can't find key `\(key)` in suite `\(suite)`: it holds no value. "
        + "List the keys with `kura defaults read \(suite)`."
    case .cannotOpen:
      return "Can't open preferences `\(path)`: \(reason). \(Self.openAdvice(reason))"
    case .cannotEncode:
      return
        "Can't store a value for key `\(key)`: \(reason). "
        + "Make the value encodable (finite numbers, no unsupported types)."
    case .cannotSave:
      return
        "Can't save preferences `\(path)`: \(reason). Nothing was changed; "
        + "check free space and permissions, then try again."
    case .invalidValue:
      let text = self.text ?? ""
      let type = self.expectedType ?? ""
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
    case .undecodableValue:
      let storedType = self.storedType ?? ""
      let expectedType = self.expectedType ?? ""
      return
        "Can't update key `\(key)` in suite `\(suite)`: its stored value (\(storedType)) can't be"
        + " read as `\(expectedType)`. Nothing was changed; look at it with `kura defaults read \(suite)"
        + " \(key)`, then remove it (`kura defaults delete \(suite) \(key)`) or set a new value."
    case .unreadableValue:
      return
        "Can't read key `\(key)` in suite `\(suite)`: \(reason). Nothing was changed; remove it"
        + " (`kura defaults delete \(suite) \(key)`) or set a new value, or use the version of the"
        + " app that wrote it."
    case .nestedWrite:
      return
        "Can't write to suite `\(suite)` from inside its own `update` or `batch`: that write is"
        + " still in progress. Nothing was changed; make the change through the batch given to"
        + " `batch`, or return it from `update`."
    case .sceneDiscarded:
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
