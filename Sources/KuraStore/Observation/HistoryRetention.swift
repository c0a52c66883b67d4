import Foundation
import KuraBase
import KuraSQLite

/// How much change history a store keeps: the saves of the last ``maximumAge`` seconds, at most
/// ``maximumCount`` of them. Older history is deleted as part of normal saves; a reader asking for
/// the changes since a token older than what is kept gets ``StoreError/Code/historyTrimmed``
/// (fetch again, then continue from ``ModelContainer/currentHistoryToken()``).
///
/// For example:
///
/// ```swift
/// var configuration = ModelConfiguration.url(storeURL)
/// configuration.historyRetention = HistoryRetention(maximumAge: 3 * 86_400, maximumCount: 1_000)
/// ```
public struct HistoryRetention: Sendable, Hashable {
  /// How old (in seconds) a kept save may be, or `nil` for any age.
  ///
  /// For example: `HistoryRetention(maximumAge: 86_400, maximumCount: nil)`.
  public var maximumAge: TimeInterval?
  /// How many saves are kept at most, or `nil` for any number (the newest is always kept).
  ///
  /// The save that goes over it deletes the oldest saves down to a hundredth under it (at most
  /// 1,000 under it), so the saves after it have nothing to delete: with 10,000, the history
  /// holds between 9,900 and 10,000 saves once it is full.
  ///
  /// For example: `HistoryRetention(maximumAge: nil, maximumCount: 500)`.
  public var maximumCount: Int?
  /// Whether saves are recorded at all (`false` only for ``off``).
  package var records = true

  /// A retention policy.
  ///
  /// For example: `HistoryRetention(maximumAge: 7 * 86_400, maximumCount: 10_000)`.
  ///
  /// - Parameters:
  ///   - maximumAge: How old, in seconds, a kept save may be; `nil` for any age.
  ///   - maximumCount: How many saves are kept at most; `nil` for any number.
  public init(maximumAge: TimeInterval?, maximumCount: Int?) {
    self.maximumAge = maximumAge
    self.maximumCount = maximumCount
  }

  /// The default: the last 7 days of saves, at most 10,000 of them.
  ///
  /// For example: `configuration.historyRetention = .default`.
  public static let `default` = HistoryRetention(maximumAge: 7 * 86_400, maximumCount: 10_000)

  /// Trimming off: the history grows with every save until ``ModelContainer/trimHistory(through:)``.
  ///
  /// For example: `configuration.historyRetention = .unlimited`.
  public static let unlimited = HistoryRetention(maximumAge: nil, maximumCount: nil)

  /// No history: saves write no history row (each save is one INSERT cheaper). Live queries and
  /// change-feed readers (``ModelContainer/changeSets()``, ``ModelContainer/history(since:)``)
  /// then see none of this container's saves, and a save's ``ChangeSet/token`` does not advance;
  /// use it for stores nobody observes, such as a bulk import or a benchmark.
  ///
  /// For example: `configuration.historyRetention = .off`.
  public static let off: HistoryRetention = {
    var retention = HistoryRetention(maximumAge: nil, maximumCount: nil)
    retention.records = false
    return retention
  }()
}
