import Foundation
import KuraBase

/// Where a ``DocumentStore`` keeps its file: the app's Documents folder, an App Group container,
/// or any file URL.
///
/// For example:
///
/// ```swift
/// let mine = DocumentLocation.documents("cashData.json")
/// let shared = DocumentLocation.group("group.com.example", "cashData.json")
/// let anywhere = DocumentLocation.url(URL(fileURLWithPath: "/tmp/cashData.json"))
/// ```
public struct DocumentLocation: Sendable {
  private enum Kind: Sendable {
    case documents(name: String, app: String?, environment: [String: String])
    case group(identifier: String, name: String, environment: [String: String])
    case url(URL)
  }
  private let kind: Kind

  /// A file in an app's Documents folder (``Locations/documentsDirectory``).
  ///
  /// For example:
  ///
  /// ```swift
  /// let location = DocumentLocation.documents("cashData.json", app: "warikan")
  /// ```
  ///
  /// - Parameters:
  ///   - name: The file name, such as `cashData.json` (no `/`, line break or other control
  ///     character; not hidden, not starting with `-`).
  ///   - app: The app identifier; the current program's (``Locations/current(environment:)``)
  ///     when `nil`.
  ///   - environment: Variables to resolve folders from; the process environment by default.
  /// - Returns: The location.
  public static func documents(
    _ name: String, app: String? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> DocumentLocation {
    DocumentLocation(kind: .documents(name: name, app: app, environment: environment))
  }

  /// A file in an App Group container, shared by every app of the group.
  ///
  /// For example:
  ///
  /// ```swift
  /// let location = DocumentLocation.group("group.iOS17.M_Kaku", "cashData.json")
  /// ```
  ///
  /// - Parameters:
  ///   - identifier: The App Group identifier.
  ///   - name: The file name (no `/` or control character; not hidden, not starting with `-`).
  ///   - environment: Variables to resolve folders from; the process environment by default.
  /// - Returns: The location.
  public static func group(
    _ identifier: String, _ name: String,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> DocumentLocation {
    DocumentLocation(kind: .group(identifier: identifier, name: name, environment: environment))
  }

  /// A file at a given URL; its folder must exist.
  ///
  /// For example:
  ///
  /// ```swift
  /// let location = DocumentLocation.url(URL(fileURLWithPath: "/tmp/cashData.json"))
  /// ```
  ///
  /// - Parameter url: The file URL.
  /// - Returns: The location.
  public static func url(_ url: URL) -> DocumentLocation {
    DocumentLocation(kind: .url(url))
  }

  /// The file URL, creating the Documents or group folder (mode 0700) when it is missing.
  ///
  /// For example:
  ///
  /// ```swift
  /// let url = try DocumentLocation.documents("cashData.json").resolve()
  /// ```
  ///
  /// - Returns: The standardized file URL.
  /// - Throws: ``DocumentError`` (``DocumentError/Code/invalidLocation``) for a bad name or
  ///   identifier, or when the folder cannot be created.
  public func resolve() throws -> URL {
    try resolve(creatingFolder: true)
  }

  /// The file URL; the folder is created only with `creatingFolder` (a read creates nothing).
  package func resolve(creatingFolder: Bool) throws -> URL {
    let folder: URL
    let name: String
    switch kind {
    case .url(let url):
      return url.standardizedFileURL
    case .documents(let fileName, let app, let environment):
      name = fileName
      folder = try Self.wrap(URL(fileURLWithPath: fileName)) {
        try
          (app.map { try Locations.app($0, environment: environment) }
          ?? Locations.current(environment: environment)).documentsDirectory
      }
    case .group(let identifier, let fileName, let environment):
      name = fileName
      folder = try Self.wrap(URL(fileURLWithPath: fileName)) {
        try Locations.groupContainer(identifier, environment: environment)
      }
    }
    let url = folder.appendingPathComponent(name).standardizedFileURL
    // The rule every identifier follows (no `/`, NUL, control character or leading `-`), and
    // not hidden.
    if Locations.identifierProblem(name) != nil || name.hasPrefix(".") {
      throw DocumentError(
        .invalidLocation, file: url,
        reason: "the file name `\(LocationError.shown(name))` must be a plain, visible name such "
          + "as `cashData.json`")
    }
    if creatingFolder { try Self.wrap(url) { try Locations.ensureDirectory(folder) } }
    return url
  }

  private static func wrap<T>(_ url: URL, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as LocationError {
      throw DocumentError(.invalidLocation, file: url, reason: error.clause)
    }
  }
}
