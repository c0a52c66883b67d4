import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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

  /// The user's time zone: the one named by `TZ` when it is set and understood, else the
  /// system's.
  ///
  /// `TZ` may name a zone (`Asia/Tokyo`, `:Asia/Tokyo`, `/usr/share/zoneinfo/Asia/Tokyo`) or be a
  /// POSIX rule such as `JST-9` or `<+0530>-5:30`, whose offset counts hours *west* of UTC as the
  /// C library reads it (`GMT+5` is five hours behind UTC, as `date` shows it). For a rule with
  /// summer time (`CET-1CEST,M3.5.0,M10.5.0/3`) that is this process's own `TZ`, the C library
  /// gives the offset in force now; from another environment only the standard offset is used.
  ///
  /// For example: `ShortTime.userTimeZone(environment: ["TZ": "Europe/Paris"])`.
  ///
  /// - Parameter environment: Variables to read `TZ` from; the process environment by default.
  /// - Returns: The time zone.
  public static func userTimeZone(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> TimeZone {
    guard let value = environment["TZ"], !value.isEmpty else { return TimeZone.current }
    return zone(named: value) ?? TimeZone.current
  }

  /// What is wrong with `TZ` when it is set but names no time zone warikan understands (times
  /// are then written in the system's time zone); `nil` when it is unset or understood.
  ///
  /// For example:
  ///
  /// ```swift
  /// ShortTime.timeZoneProblem(environment: ["TZ": "Bogus/Zone"])
  /// // "TZ=Bogus/Zone names no time zone: …"
  /// ```
  ///
  /// - Parameter environment: Variables to read `TZ` from; the process environment by default.
  /// - Returns: The warning, naming the value, the zone used instead and the fix.
  public static func timeZoneProblem(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String? {
    guard let value = environment["TZ"], !value.isEmpty, zone(named: value) == nil else {
      return nil
    }
    return "TZ=\(value) names no time zone: times are written in the system's time zone"
      + " (\(TimeZone.current.identifier)). Set TZ to a zone such as Asia/Tokyo or a rule such"
      + " as JST-9, or unset it."
  }

  /// The time zone a `TZ` value names, or `nil` when it names none.
  private static func zone(named value: String) -> TimeZone? {
    var name = value
    if name.hasPrefix(":") { name.removeFirst() }
    if name.hasPrefix("/"), let range = name.range(of: "zoneinfo/") {
      name = String(name[range.upperBound...])
    }
    // Foundation reads `GMT+5` with the opposite sign to POSIX; such names are rules.
    let looksLikeOffsetName =
      (name.hasPrefix("GMT") || name.hasPrefix("UTC"))
      && name.dropFirst(3).first.map { $0 == "+" || $0 == "-" } == true
    if !looksLikeOffsetName, let zone = TimeZone(identifier: name) { return zone }
    if let rule = POSIXTimeZoneRule(name) {
      if rule.hasSummerTime, value == processTimeZoneVariable(),
        let offset = currentProcessOffset()
      {
        return TimeZone(secondsFromGMT: offset) ?? TimeZone.current
      }
      return TimeZone(secondsFromGMT: rule.standardOffset)
    }
    return TimeZone(abbreviation: name)
  }

  /// This process's own `TZ`, as the C library sees it.
  private static func processTimeZoneVariable() -> String? {
    guard let pointer = getenv("TZ") else { return nil }
    return String(cString: pointer)
  }

  /// The offset from UTC in force now in this process's time zone, from the C library.
  private static func currentProcessOffset() -> Int? {
    tzset()
    var now = time(nil)
    var parts = tm()
    guard localtime_r(&now, &parts) != nil else { return nil }
    return Int(parts.tm_gmtoff)
  }
}
