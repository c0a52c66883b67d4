import Foundation

/// The short local time of an entry, written as the seed app writes it: 24-hour `H:mm`
/// (`22:38`, `6:06`), in the user's time zone (`TZ` is honoured).
///
/// For example:
///
/// ```swift
/// let time = ShortTime.string(from: Date())   // "22:38"
/// ```
public enum ShortTime {
  /// Formats a moment as `H:mm` in a time zone.
  ///
  /// For example:
  ///
  /// ```swift
  /// let tokyo = TimeZone(identifier: "Asia/Tokyo") ?? .current
  /// ShortTime.string(from: Date(timeIntervalSince1970: 0), in: tokyo)   // "9:00"
  /// ```
  ///
  /// - Parameters:
  ///   - date: The moment.
  ///   - timeZone: The time zone; the user's (from `TZ`, else the system's) by default.
  /// - Returns: The hour without a leading zero, `:`, and two-digit minutes.
  public static func string(from date: Date, in timeZone: TimeZone = userTimeZone()) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let parts = calendar.dateComponents([.hour, .minute], from: date)
    let minute = parts.minute ?? 0
    return "\(parts.hour ?? 0):\(minute < 10 ? "0" : "")\(minute)"
  }

  /// The user's time zone: the one named by `TZ` when it is set and known, else the system's.
  ///
  /// For example: `ShortTime.userTimeZone(environment: ["TZ": "Europe/Paris"])`.
  ///
  /// - Parameter environment: Variables to read `TZ` from; the process environment by default.
  /// - Returns: The time zone.
  public static func userTimeZone(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> TimeZone {
    if var name = environment["TZ"], !name.isEmpty {
      if name.hasPrefix(":") { name.removeFirst() }
      if name.hasPrefix("/"), let range = name.range(of: "zoneinfo/") {
        name = String(name[range.upperBound...])
      }
      if let zone = TimeZone(identifier: name) ?? TimeZone(abbreviation: name) { return zone }
    }
    return TimeZone.current
  }
}
