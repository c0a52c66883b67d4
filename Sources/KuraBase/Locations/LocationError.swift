import Foundation

/// An error raised while resolving or creating the folders where Kura keeps data.
///
/// Match on ``code``; ``identifier`` or ``path`` is the input it concerns and ``underlying`` the
/// operating system's error, when there is one.
///
/// For example:
///
/// ```swift
/// do {
///   _ = try Locations.app("bad/id")
/// } catch let error as LocationError where error.code == .invalidIdentifier {
///   print(error)  // Can't use app identifier `bad/id`: it contains `/`. …
/// }
/// ```
///
/// <doc:HandlingErrors> lists the codes that replaced this type's former enum cases.
public struct LocationError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What kind of failure this is.
  ///
  /// For example:
  ///
  /// ```swift
  /// if error.code == .cannotCreate { print(error.path ?? "") }
  /// ```
  public enum Code: String, Sendable, Hashable {
    /// An app or App Group identifier was rejected (``LocationError/identifierKind``,
    /// ``LocationError/identifier``, ``LocationError/reason``).
    case invalidIdentifier
    /// A folder or file could not be created (``LocationError/path``,
    /// ``LocationError/reason``).
    case cannotCreate
    /// An App Group container the app may not use (iOS, tvOS, watchOS, visionOS): the app has no
    /// App Group entitlement for the group, so the system gives it no container
    /// (``LocationError/identifier``).
    case groupNotEntitled
  }

  /// What kind of failure this is, such as ``Code/cannotCreate``.
  ///
  /// For example: `catch let error as LocationError where error.code == .cannotCreate { … }`.
  public let code: Code
  /// For ``Code/invalidIdentifier``: `"app"` or `"group"`.
  ///
  /// For example: `print(error.identifierKind ?? "")`.
  public let identifierKind: String?
  /// The app or App Group identifier, as given, when one is involved.
  ///
  /// For example: `print(error.identifier ?? "")`.
  public let identifier: String?
  /// The folder or file, when one is involved.
  ///
  /// For example: `print(error.path ?? "")`.
  public let path: String?
  /// Why it failed, in words (the operating system's explanation for ``Code/cannotCreate``).
  ///
  /// For example: `print(error.reason ?? "")`.
  public let reason: String?
  /// The error underneath, when there is one (a `POSIXError` for a folder that could not be
  /// created). Not compared by `==`.
  ///
  /// For example: `if let posix = error.underlying as? POSIXError { print(posix.code) }`.
  public let underlying: (any Error)?

  /// Creates an error; Kura creates these, your code matches on them.
  ///
  /// For example:
  ///
  /// ```swift
  /// let error = LocationError(.cannotCreate, path: "/x", reason: "Permission denied")
  /// ```
  ///
  /// - Parameters:
  ///   - code: The kind of failure.
  ///   - identifierKind: `"app"` or `"group"`, for an identifier.
  ///   - identifier: The identifier, as given.
  ///   - path: The folder or file.
  ///   - reason: Why it failed.
  ///   - underlying: The error underneath.
  public init(
    _ code: Code, identifierKind: String? = nil, identifier: String? = nil, path: String? = nil,
    reason: String? = nil, underlying: (any Error)? = nil
  ) {
    self.code = code
    self.identifierKind = identifierKind
    self.identifier = identifier
    self.path = path
    self.reason = reason
    self.underlying = underlying
  }

  /// Whether two errors have the same code and context (``underlying`` is not compared).
  ///
  /// For example: `#expect(error == .groupNotEntitled(identifier: "group.x"))`.
  ///
  /// - Parameters:
  ///   - lhs: An error.
  ///   - rhs: Another error.
  /// - Returns: Whether they are the same failure.
  public static func == (lhs: LocationError, rhs: LocationError) -> Bool {
    lhs.code == rhs.code && lhs.identifierKind == rhs.identifierKind
      && lhs.identifier == rhs.identifier && lhs.path == rhs.path && lhs.reason == rhs.reason
  }

  /// An app or App Group identifier was rejected.
  ///
  /// For example:
  ///
  /// ```swift
  /// let error = LocationError.invalidIdentifier(
  ///   kind: "app", identifier: "a/b", reason: "it contains `/`")
  /// ```
  ///
  /// - Parameters:
  ///   - kind: `"app"` or `"group"`.
  ///   - identifier: The identifier, as given.
  ///   - reason: Why it was rejected.
  /// - Returns: An error with code ``Code/invalidIdentifier``.
  public static func invalidIdentifier(kind: String, identifier: String, reason: String)
    -> LocationError
  {
    LocationError(
      .invalidIdentifier, identifierKind: kind, identifier: identifier, reason: reason)
  }

  /// A folder or file could not be created.
  ///
  /// For example: `throw LocationError.cannotCreate(path: "/x", reason: "Permission denied")`.
  ///
  /// - Parameters:
  ///   - path: The path that could not be created.
  ///   - reason: The operating system's explanation.
  ///   - underlying: The operating system's error.
  /// - Returns: An error with code ``Code/cannotCreate``.
  public static func cannotCreate(path: String, reason: String, underlying: (any Error)? = nil)
    -> LocationError
  {
    LocationError(.cannotCreate, path: path, reason: reason, underlying: underlying)
  }

  /// An App Group container the app may not use.
  ///
  /// For example: `throw LocationError.groupNotEntitled(identifier: "group.com.example")`.
  ///
  /// - Parameter identifier: The App Group identifier, as given.
  /// - Returns: An error with code ``Code/groupNotEntitled``.
  public static func groupNotEntitled(identifier: String) -> LocationError {
    LocationError(.groupNotEntitled, identifier: identifier)
  }

  /// A message that names the input and the fix.
  public var description: String {
    let identifier = self.identifier ?? ""
    let reason = self.reason ?? ""
    switch code {
    case .invalidIdentifier:
      let kind = identifierKind ?? "app"
      let shown = Self.shown(identifier)
      return
        "Can't use \(kind) identifier `\(shown)`: \(reason). "
        + "Use a reverse-DNS name such as `com.example.app`"
        + (kind == "group" ? " prefixed with `group.`." : ".")
    case .cannotCreate:
      let advice =
        reason == Self.fileInTheWay
        ? "Move that file away."
        : "Check that its parent folder is writable."
      return "Can't create `\(path ?? "")`: \(reason). \(advice)"
    case .groupNotEntitled:
      return
        "Can't use App Group `\(identifier)`: this app has no entitlement for it, so the system "
        + "gives it no shared container. Add the group to the app's App Groups capability."
    }
  }
}

extension LocationError {
  /// An identifier as a message quotes it: NUL as `\0`, other control characters as `\u{0A}`,
  /// so the message stays on one line.
  package static func shown(_ identifier: String) -> String {
    var result = ""
    for scalar in identifier.unicodeScalars {
      if scalar == "\0" {
        result += "\\0"
      } else if Locations.isControl(scalar) {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        result += "\\u{" + (hex.count < 2 ? "0" + hex : hex) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// The error for a folder or file that could not be created or restricted: `code` is the
  /// `errno` the call set, kept as a `POSIXError` underneath.
  package static func cannotCreate(path: String, errno code: Int32) -> LocationError {
    .cannotCreate(
      path: path, reason: String(cString: strerror(code)),
      underlying: POSIXErrorCode(rawValue: code).map { POSIXError($0) })
  }

  /// The reason given when a file stands where a folder must be created.
  package static let fileInTheWay = "a file of that name is in the way"

  /// The message as a clause to embed in another area's message ("Can't open the store:
  /// <clause>."): its first letter lowercased and its final period dropped.
  package var clause: String {
    var text = description
    while text.hasSuffix(".") { text.removeLast() }
    guard let first = text.first else { return text }
    return first.lowercased() + text.dropFirst()
  }
}
