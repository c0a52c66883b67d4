import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where one app keeps its data: its data folder, Documents, preferences, scene state and the
/// default model-store file.
///
/// On Linux the folders follow the XDG Base Directory specification:
///
/// | folder | path |
/// |---|---|
/// | data | `$XDG_DATA_HOME/<app>` (default `~/.local/share/<app>`) |
/// | Documents | `$XDG_DATA_HOME/<app>/Documents` |
/// | preferences | `$XDG_CONFIG_HOME/<app>` (default `~/.config/<app>`) |
/// | scene state | `$XDG_STATE_HOME/<app>/Scenes` (default `~/.local/state/<app>/Scenes`) |
/// | App Group container | `$XDG_DATA_HOME/kura-groups/<group>` |
///
/// On Apple platforms the usual `FileManager` directories are used (Application Support,
/// Documents, Library/Preferences, the App Group container when the app is entitled to one).
/// Setting `KURA_HOME=<dir>` roots everything in one folder: `<dir>/apps/<app>/{Data,Documents,
/// Preferences,Scenes}` and `<dir>/groups/<group>`; tests and portable installs use it.
///
/// Resolving a location creates nothing; call ``ensureDirectory(_:)`` (the layers above do)
/// to create a folder with mode 0700.
///
/// For example:
///
/// ```swift
/// let locations = try Locations.app("com.example.warikan")
/// let file = locations.documentsDirectory.appendingPathComponent("cashData.json")
/// ```
public struct Locations: Sendable, Equatable {
  /// The app identifier these locations belong to.
  public let appIdentifier: String
  /// The app's private data folder (SwiftData's default store lives here).
  public let dataDirectory: URL
  /// The app's Documents folder, the one a user is shown.
  public let documentsDirectory: URL
  /// The folder holding the app's preference suites.
  public let preferencesDirectory: URL
  /// The folder holding per-scene state.
  public let sceneStateDirectory: URL
  /// The environment the paths were resolved from; App Group containers resolve from it too.
  package let environment: LocationEnvironment

  /// The default model-store file, like SwiftData's `default.store`.
  ///
  /// For example:
  ///
  /// ```swift
  /// let storeURL = try Locations.app("wishlist").defaultStoreURL
  /// ```
  public var defaultStoreURL: URL { dataDirectory.appendingPathComponent("default.store") }

  /// Resolves the locations of an app from the process environment.
  ///
  /// For example:
  ///
  /// ```swift
  /// let locations = try Locations.app("warikan")
  /// print(locations.documentsDirectory.path)
  /// ```
  ///
  /// - Parameters:
  ///   - identifier: The app identifier (no `/`, `..` or NUL; not empty).
  ///   - environment: Variables to resolve from; the process environment by default.
  /// - Returns: The app's locations. Nothing is created.
  /// - Throws: ``LocationError/Code/invalidIdentifier`` for a bad identifier.
  public static func app(
    _ identifier: String,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> Locations {
    try validate(identifier, kind: "app")
    let environment = LocationEnvironment(variables: environment)
    if let root = environment.kuraHome {
      let base = root.appendingPathComponent("apps").appendingPathComponent(identifier)
      return Locations(
        appIdentifier: identifier,
        dataDirectory: base.appendingPathComponent("Data"),
        documentsDirectory: base.appendingPathComponent("Documents"),
        preferencesDirectory: base.appendingPathComponent("Preferences"),
        sceneStateDirectory: base.appendingPathComponent("Scenes"),
        environment: environment)
    }
    #if os(Linux) || os(Android) || os(FreeBSD) || os(OpenBSD)
      let data = environment.xdg("XDG_DATA_HOME", default: ".local/share")
        .appendingPathComponent(identifier)
      return Locations(
        appIdentifier: identifier,
        dataDirectory: data,
        documentsDirectory: data.appendingPathComponent("Documents"),
        preferencesDirectory: environment.xdg("XDG_CONFIG_HOME", default: ".config")
          .appendingPathComponent(identifier),
        sceneStateDirectory: environment.xdg("XDG_STATE_HOME", default: ".local/state")
          .appendingPathComponent(identifier).appendingPathComponent("Scenes"),
        environment: environment)
    #else
      // The app's own sandbox folders (iOS, tvOS, watchOS, visionOS) or the user's Library
      // (macOS), as FileManager reports them on every Apple platform.
      let library = environment.appleFolder(.libraryDirectory, orHome: "Library")
      return Locations(
        appIdentifier: identifier,
        dataDirectory: environment.appleFolder(
          .applicationSupportDirectory, orHome: "Library/Application Support"
        ).appendingPathComponent(identifier),
        documentsDirectory: environment.appleFolder(.documentDirectory, orHome: "Documents"),
        preferencesDirectory: library.appendingPathComponent("Preferences")
          .appendingPathComponent(identifier),
        sceneStateDirectory: library.appendingPathComponent("Saved Application State")
          .appendingPathComponent(identifier),
        environment: environment)
    #endif
  }

  /// The locations of the current program: `KURA_APP_ID` when set, else the executable's name.
  ///
  /// For example:
  ///
  /// ```swift
  /// let here = try Locations.current()
  /// ```
  ///
  /// - Parameter environment: Variables to resolve from; the process environment by default.
  /// - Returns: The current app's locations.
  /// - Throws: ``LocationError`` when the identifier is not usable.
  public static func current(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> Locations {
    let identifier = environment["KURA_APP_ID"] ?? ProcessInfo.processInfo.processName
    return try app(identifier, environment: environment)
  }

  /// The container folder shared by every app of an App Group.
  ///
  /// For example:
  ///
  /// ```swift
  /// let shared = try Locations.groupContainer("group.iOS17.M_Kaku")
  /// ```
  ///
  /// - Parameters:
  ///   - identifier: The App Group identifier, such as `group.com.example`.
  ///   - environment: Variables to resolve from; the process environment by default.
  /// - Returns: The container folder. Nothing is created.
  /// - Throws: ``LocationError/Code/invalidIdentifier`` for a bad identifier
  ///   (also `group.` alone, which names no group); on iOS, tvOS, watchOS and visionOS,
  ///   ``LocationError/Code/groupNotEntitled`` when the app has no entitlement for the
  ///   group (a folder of Kura's own would not be shared with the group's other apps).
  public static func groupContainer(
    _ identifier: String,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> URL {
    try validate(identifier, kind: "group")
    if identifier == "group." {
      throw LocationError.invalidIdentifier(
        kind: "group", identifier: identifier, reason: "it names no group")
    }
    let environment = LocationEnvironment(variables: environment)
    if let root = environment.kuraHome {
      return root.appendingPathComponent("groups").appendingPathComponent(identifier)
    }
    #if os(Linux) || os(Android) || os(FreeBSD) || os(OpenBSD)
      return environment.xdg("XDG_DATA_HOME", default: ".local/share")
        .appendingPathComponent("kura-groups").appendingPathComponent(identifier)
    #else
      if let url = FileManager.default.containerURL(
        forSecurityApplicationGroupIdentifier: identifier)
      {
        return url
      }
      #if os(macOS)
        return environment.home.appendingPathComponent("Library/Group Containers")
          .appendingPathComponent(identifier)
      #else
        // In a sandbox a folder of our own would not be shared with the group's other apps.
        throw LocationError.groupNotEntitled(identifier: identifier)
      #endif
    #endif
  }

  /// Checks an app or group identifier.
  ///
  /// For example:
  ///
  /// ```swift
  /// try Locations.validate("com.example.app", kind: "app")
  /// ```
  ///
  /// - Parameters:
  ///   - identifier: The identifier to check.
  ///   - kind: `"app"` or `"group"`, used in the message.
  /// - Throws: ``LocationError/Code/invalidIdentifier`` when it is empty,
  ///   `.`, starts with `-`, or contains `/`, `..`, NUL or another control character (such as
  ///   a line break).
  public static func validate(_ identifier: String, kind: String) throws {
    func reject(_ reason: String) -> LocationError {
      .invalidIdentifier(kind: kind, identifier: identifier, reason: reason)
    }
    if let reason = identifierProblem(identifier) { throw reject(reason) }
  }

  /// Why a name can't name a file of Kura's (an app, group, suite, scene, document or store
  /// name), or `nil` when it can: empty, `.`, holding `/`, `..`, a NUL or another control
  /// character (a line break among them), or starting with `-` (a tool would read it as an
  /// option).
  package static func identifierProblem(_ identifier: String) -> String? {
    if identifier.isEmpty { return "it is empty" }
    if identifier.contains("\0") { return "it contains a NUL character" }
    if identifier.contains("/") { return "it contains `/`" }
    if identifier.contains("..") { return "it contains `..`" }
    if identifier == "." { return "it is `.`" }
    return fileNameProblem(identifier)
  }

  /// Why a file name Kura is given (a store's) can't be used, or `nil`: starting with `-`, or
  /// holding a line break or another control character (the part of ``identifierProblem(_:)``
  /// that holds for any file name).
  package static func fileNameProblem(_ identifier: String) -> String? {
    if identifier.hasPrefix("-") { return "it starts with `-`" }
    if identifier.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) {
      return "it contains a line break"
    }
    if identifier.unicodeScalars.contains(where: isControl) {
      return "it contains a control character"
    }
    return nil
  }

  /// C0 and C1 control characters and DEL.
  package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  /// Creates a folder and any missing parents with mode 0700 if it does not exist yet.
  ///
  /// For example:
  ///
  /// ```swift
  /// let documents = try Locations.app("warikan").documentsDirectory
  /// try Locations.ensureDirectory(documents)
  /// ```
  ///
  /// - Parameter url: The folder to create.
  /// - Throws: ``LocationError/Code/cannotCreate`` when it cannot be created.
  public static func ensureDirectory(_ url: URL) throws {
    let path = url.standardizedFileURL.path
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
      if isDirectory.boolValue { return }
      throw LocationError.cannotCreate(path: path, reason: LocationError.fileInTheWay)
    }
    let parent = url.standardizedFileURL.deletingLastPathComponent()
    if parent.path != path { try ensureDirectory(parent) }
    if mkdir(path, 0o700) != 0 && errno != EEXIST {
      throw LocationError.cannotCreate(path: path, errno: errno)
    }
  }

  /// Restricts a file Kura created to its owner (mode 0600).
  ///
  /// For example:
  ///
  /// ```swift
  /// try Locations.restrictToOwner(fileURL)
  /// ```
  ///
  /// - Parameter url: The file.
  /// - Throws: ``LocationError/Code/cannotCreate`` when the mode cannot be set.
  public static func restrictToOwner(_ url: URL) throws {
    if chmod(url.path, 0o600) != 0 && errno != ENOENT {
      throw LocationError.cannotCreate(path: url.path, errno: errno)
    }
  }
}

/// The environment variables that decide where files live.
package struct LocationEnvironment: Sendable, Equatable {
  package var variables: [String: String]

  /// `KURA_HOME` when set and not empty.
  package var kuraHome: URL? {
    guard let value = variables["KURA_HOME"], !value.isEmpty else { return nil }
    return URL(fileURLWithPath: value, isDirectory: true).standardizedFileURL
  }

  /// `HOME`, falling back to the password database's home folder.
  package var home: URL {
    if let value = variables["HOME"], !value.isEmpty {
      return URL(fileURLWithPath: value, isDirectory: true)
    }
    // NSHomeDirectory exists on every platform (on iOS it is the app's sandbox);
    // FileManager.homeDirectoryForCurrentUser exists only on macOS and Linux.
    return URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
  }

  #if canImport(Darwin)
    /// A folder FileManager knows for the user domain, else `$HOME/<fallback>`.
    package func appleFolder(_ directory: FileManager.SearchPathDirectory, orHome fallback: String)
      -> URL
    {
      FileManager.default.urls(for: directory, in: .userDomainMask).first
        ?? home.appendingPathComponent(fallback, isDirectory: true)
    }
  #endif

  /// An XDG base directory: the variable when it holds an absolute path (the spec says relative
  /// ones are ignored), else `$HOME/<fallback>`.
  package func xdg(_ name: String, default fallback: String) -> URL {
    if let value = variables[name], value.hasPrefix("/") {
      return URL(fileURLWithPath: value, isDirectory: true)
    }
    return home.appendingPathComponent(fallback, isDirectory: true)
  }
}
