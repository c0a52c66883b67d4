import Foundation
import KuraBase
import KuraSQLite

extension Preferences {
  /// The current app's own suite (`KURA_APP_ID` or the executable's name), like
  /// `UserDefaults.standard`.
  ///
  /// Should its file not open (an unwritable folder, a file another process keeps locked past the
  /// busy timeout), the app keeps running but nothing is pretended: each write tries to open the
  /// file again — it is stored once that works, and until then fails where it is made
  /// (``set(_:for:)`` throws ``PreferencesError/Code/cannotOpen``; a subscript write is
  /// reported in ``lastWriteError`` and on standard error, and is not kept). Reads give the keys'
  /// defaults until a write has opened the file, then the stored values. Open the suite with
  /// ``init(locations:)`` to handle the error at once instead.
  ///
  /// For example: `Preferences.standard[.launchCount] += 1`.
  public static let standard: Preferences = {
    let open: @Sendable () throws -> Preferences = {
      try Preferences(locations: Locations.current())
    }
    do {
      return try open()
    } catch {
      let name =
        ProcessInfo.processInfo.environment["KURA_APP_ID"]
        ?? ProcessInfo.processInfo.processName
      return .memoryBacked(deferredOpen: PreferencesDeferredOpen(suiteName: name, openFile: open))
    }
  }()

  /// Opens (creating when missing) a suite by name: an App Group suite when the name starts with
  /// `group.` (kept in the group's container, shared by every app and process of the group),
  /// otherwise the standard suite of the app with that identifier.
  ///
  /// For example:
  ///
  /// ```swift
  /// let shared = try Preferences(suite: "group.iOS17.M_Kaku")
  /// ```
  ///
  /// - Parameters:
  ///   - suite: An App Group identifier (`group.…`) or an app identifier.
  ///   - environment: Variables locating the files (`KURA_HOME`, XDG); the process's by default.
  /// - Throws: ``PreferencesError/Code/invalidSuiteName`` or
  ///   ``PreferencesError/Code/cannotOpen``.
  public convenience init(
    suite: String, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws {
    let url = try Self.fileURL(forSuite: suite, environment: environment)
    try self.init(fileURL: url, suiteName: suite, sceneID: nil)
  }

  /// Opens (creating when missing) the standard suite of an app.
  ///
  /// For example:
  ///
  /// ```swift
  /// let preferences = try Preferences(locations: Locations.app("customers"))
  /// ```
  ///
  /// - Parameter locations: The app's locations.
  /// - Throws: ``PreferencesError/Code/cannotOpen``.
  public convenience init(locations: Locations) throws {
    let url = locations.preferencesDirectory.appendingPathComponent(
      locations.appIdentifier + ".sqlite")
    try self.init(fileURL: url, suiteName: locations.appIdentifier, sceneID: nil)
  }

  /// Opens a suite that must already exist (tools use this so a typo creates nothing).
  ///
  /// For example:
  ///
  /// ```swift
  /// let shared = try Preferences.existing(suite: "group.iOS17.M_Kaku")
  /// ```
  ///
  /// - Parameters:
  ///   - suite: An App Group identifier (`group.…`) or an app identifier.
  ///   - environment: Variables locating the files; the process's by default.
  /// - Returns: The suite.
  /// - Throws: ``PreferencesError/Code/suiteNotFound``,
  ///   ``PreferencesError/Code/invalidSuiteName`` or
  ///   ``PreferencesError/Code/cannotOpen``.
  public static func existing(
    suite: String, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> Preferences {
    let url = try fileURL(forSuite: suite, environment: environment)
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw PreferencesError.suiteNotFound(suite: suite, path: url.path)
    }
    return try Preferences(fileURL: url, suiteName: suite, sceneID: nil)
  }

  /// Opens an existing suite only to read it: opening and reading never create, initialise or
  /// change a file or folder (a zero-length file reads as an empty suite and stays so; a
  /// dangling symbolic link is a suite that doesn't exist). It is for looking: a read sees what
  /// other processes committed before it, but to follow a suite over time (observers,
  /// ``changes(of:)``) open it with ``init(suite:environment:)``, whose connection to the file
  /// lets every commit be noticed. A write through it throws
  /// ``PreferencesError/Code/cannotSave`` and changes nothing.
  ///
  /// For example:
  ///
  /// ```swift
  /// let shared = try Preferences.readOnly(suite: "group.iOS17.M_Kaku")
  /// print(shared[.fruits])
  /// ```
  ///
  /// - Parameters:
  ///   - suite: An App Group identifier (`group.…`) or an app identifier.
  ///   - environment: Variables locating the files; the process's by default.
  /// - Returns: The suite.
  /// - Throws: ``PreferencesError/Code/suiteNotFound`` when it has no file,
  ///   ``PreferencesError/Code/invalidSuiteName`` or
  ///   ``PreferencesError/Code/cannotOpen``.
  public static func readOnly(
    suite: String, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> Preferences {
    let url = try fileURL(forSuite: suite, environment: environment)
    return try Preferences(fileURL: url, suiteName: suite, sceneID: nil, readOnly: true)
  }

  /// Opens an app's existing standard suite only to read it (see
  /// ``readOnly(suite:environment:)``).
  ///
  /// For example:
  ///
  /// ```swift
  /// let preferences = try Preferences.readOnly(locations: Locations.app("customers"))
  /// ```
  ///
  /// - Parameter locations: The app's locations.
  /// - Returns: The suite.
  /// - Throws: ``PreferencesError/Code/suiteNotFound`` when it has no file,
  ///   ``PreferencesError/Code/cannotOpen``.
  public static func readOnly(locations: Locations) throws -> Preferences {
    let url = locations.preferencesDirectory.appendingPathComponent(
      locations.appIdentifier + ".sqlite")
    return try Preferences(
      fileURL: url, suiteName: locations.appIdentifier, sceneID: nil, readOnly: true)
  }

  /// Opens an existing suite file only to read it (see ``readOnly(suite:environment:)``).
  ///
  /// For example:
  ///
  /// ```swift
  /// let preferences = try Preferences.readOnly(fileURL: folder.appendingPathComponent("a.sqlite"))
  /// ```
  ///
  /// - Parameters:
  ///   - fileURL: The SQLite file.
  ///   - suiteName: The name to show; the file name without its extension by default.
  /// - Returns: The suite.
  /// - Throws: ``PreferencesError/Code/suiteNotFound`` when there is no file,
  ///   ``PreferencesError/Code/cannotOpen``.
  public static func readOnly(fileURL: URL, suiteName: String? = nil) throws -> Preferences {
    try Preferences(
      fileURL: fileURL, suiteName: suiteName ?? fileURL.deletingPathExtension().lastPathComponent,
      sceneID: nil, readOnly: true)
  }

  /// The file that holds a suite (nothing is created).
  ///
  /// For example:
  ///
  /// ```swift
  /// let url = try Preferences.fileURL(forSuite: "group.iOS17.M_Kaku")
  /// ```
  ///
  /// - Parameters:
  ///   - suite: An App Group identifier (`group.…`) or an app identifier.
  ///   - environment: Variables locating the files; the process's by default.
  /// - Returns: `<group container>/Preferences/<suite>.sqlite` for a group,
  ///   `<app preferences folder>/<suite>.sqlite` for an app.
  /// - Throws: ``PreferencesError/Code/invalidSuiteName``.
  public static func fileURL(
    forSuite suite: String, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> URL {
    do {
      // The rule of every identifier first (a line break is reported as one), then no spaces.
      if let problem = Locations.identifierProblem(suite) { throw reject(suite, problem) }
      if suite.contains(where: \.isWhitespace) { throw reject(suite, "it contains white space") }
      if suite.hasPrefix("group.") {
        guard suite.count > "group.".count else { throw reject(suite, "it names no group") }
        return try Locations.groupContainer(suite, environment: environment)
          .appendingPathComponent("Preferences").appendingPathComponent(suite + ".sqlite")
      }
      let locations = try Locations.app(suite, environment: environment)
      return locations.preferencesDirectory.appendingPathComponent(suite + ".sqlite")
    } catch let error as LocationError {
      throw PreferencesError.invalidSuiteName(
        suite: suite, reason: reason(error), underlying: error)
    }
  }

  private static func reject(_ suite: String, _ reason: String) -> PreferencesError {
    .invalidSuiteName(suite: suite, reason: reason)
  }

  /// The names of every suite with a file: app identifiers, then App Group identifiers, sorted.
  ///
  /// For example: `for suite in Preferences.suiteNames() { print(suite) }`.
  ///
  /// - Parameter environment: Variables locating the files; the process's by default.
  /// - Returns: The suite names.
  public static func suiteNames(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> [String] {
    // Resolve a probe name, then look at its siblings: works for KURA_HOME, XDG and Apple layouts.
    let probe = "kura-probe-suite"
    var names: [String] = []
    for prefix in ["", "group."] {
      guard let url = try? fileURL(forSuite: prefix + probe, environment: environment) else {
        continue
      }
      let components = url.pathComponents
      guard let index = components.firstIndex(of: prefix + probe) else { continue }
      let parent = NSString.path(withComponents: Array(components[..<index]))
      let candidates = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
      for candidate in candidates.sorted() where candidate.hasPrefix(prefix) {
        if prefix.isEmpty && candidate.hasPrefix("group.") { continue }
        guard let file = try? fileURL(forSuite: candidate, environment: environment) else {
          continue
        }
        if FileManager.default.fileExists(atPath: file.path) { names.append(candidate) }
      }
    }
    return names
  }
}
