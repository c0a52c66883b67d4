/// An error raised while resolving or creating the folders where Kura keeps data.
///
/// For example:
///
/// ```swift
/// do {
///   _ = try Locations.app("bad/id")
/// } catch let error as LocationError {
///   print(error)  // Can't use app identifier `bad/id`: it contains `/`. …
/// }
/// ```
public enum LocationError: Error, Equatable, Sendable, CustomStringConvertible {
  /// An app or App Group identifier was rejected.
  ///
  /// - Parameters:
  ///   - kind: `"app"` or `"group"`.
  ///   - identifier: The identifier, as given.
  ///   - reason: Why it was rejected.
  case invalidIdentifier(kind: String, identifier: String, reason: String)
  /// A folder or file could not be created.
  ///
  /// - Parameters:
  ///   - path: The path that could not be created.
  ///   - reason: The operating system's explanation.
  case cannotCreate(path: String, reason: String)
  /// An App Group container the app may not use (iOS, tvOS, watchOS, visionOS): the app has no
  /// App Group entitlement for the group, so the system gives it no container.
  ///
  /// - Parameter identifier: The App Group identifier, as given.
  case groupNotEntitled(identifier: String)

  /// A message that names the input and the fix.
  public var description: String {
    switch self {
    case .invalidIdentifier(let kind, let identifier, let reason):
      let shown = Self.shown(identifier)
      return
        "Can't use \(kind) identifier `\(shown)`: \(reason). "
        + "Use a reverse-DNS name such as `com.example.app`"
        + (kind == "group" ? " prefixed with `group.`." : ".")
    case .cannotCreate(let path, let reason):
      let advice =
        reason == Self.fileInTheWay
        ? "Move that file away."
        : "Check that its parent folder is writable."
      return "Can't create `\(path)`: \(reason). \(advice)"
    case .groupNotEntitled(let identifier):
      return
        "Can't use App Group `\(identifier)`: this app has no entitlement for it, so the system "
        + "gives it no shared container. Add the group to the app's App Groups capability."
    }
  }
}

extension LocationError {
  /// An identifier as a message quotes it: NUL as `\0`, other control characters as `\u{0A}`,
  /// so the message stays on one line.
  static func shown(_ identifier: String) -> String {
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

  /// The reason given when a file stands where a folder must be created.
  static let fileInTheWay = "a file of that name is in the way"

  /// The message as a clause to embed in another area's message ("Can't open the store:
  /// <clause>."): its first letter lowercased and its final period dropped.
  var clause: String {
    var text = description
    while text.hasSuffix(".") { text.removeLast() }
    guard let first = text.first else { return text }
    return first.lowercased() + text.dropFirst()
  }
}
