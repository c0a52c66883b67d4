import Foundation
import KuraBase
import KuraSQLite

/// A position in a store's change history: the changes saved after it are read with
/// ``ModelContainer/history(since:)``.
///
/// Tokens grow with every save, in every process using the store (by one on SQLite; on
/// PostgreSQL they follow transaction ids, with gaps). Keep the token of the last change set you
/// handled (it is `Codable`) and ask for the changes since it.
///
/// For example:
///
/// ```swift
/// var token = try container.currentHistoryToken()
/// // … later …
/// for changeSet in try container.history(since: token) { handle(changeSet) }
/// ```
public struct HistoryToken: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
  /// The history row's number (0 before the first save).
  public let rawValue: Int64

  /// A token from its raw value (as stored by your app).
  ///
  /// For example: `HistoryToken(rawValue: 42)`.
  ///
  /// - Parameter rawValue: The history row's number.
  public init(rawValue: Int64) { self.rawValue = rawValue }

  /// The position before any change: the history since it is the whole history.
  ///
  /// For example: `try container.history(since: .start)`.
  public static let start = HistoryToken(rawValue: 0)

  /// The raw value, such as `42`.
  public var description: String { String(rawValue) }

  /// Whether `lhs` comes before `rhs`.
  public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool {
    lhs.rawValue < rhs.rawValue
  }
}
