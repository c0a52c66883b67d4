import Foundation
import KuraBase
import KuraSQLite

// The store's change history as found, for `kura studio`: what it keeps and its latest saves.

extension StoreInspector {
  /// What the store's history holds: the number of change sets kept, the oldest and newest
  /// tokens and the token through which it was trimmed.
  package struct HistorySummary: Sendable, Equatable {
    /// The change sets kept.
    package var count: Int
    /// The oldest token kept, or `nil` when none is.
    package var oldest: Int64?
    /// The newest token.
    package var latest: Int64
    /// The token up to which saves were trimmed (0: none).
    package var trimmedThrough: Int64
    /// When the oldest change set kept was saved.
    package var oldestDate: Date?
  }

  /// What the store's history holds; `nil` for a store without history (not made by Kura).
  ///
  /// - Throws: ``StoreError`` when the store can't be read.
  package func historySummary() throws -> HistorySummary? {
    try run {
      guard try connection.tableExists("kura_history") else { return nil }
      let row = try connection.queryFirst(
        "SELECT count(*), min(token), max(token), min(time) FROM kura_history WHERE token > 0"
      ) { row in
        (
          row.int64(at: 0), row.isNull(at: 1) ? nil : row.int64(at: 1),
          row.isNull(at: 3) ? nil : row.double(at: 3)
        )
      }
      return HistorySummary(
        count: Int(row?.0 ?? 0), oldest: row?.1,
        latest: try ChangeHistory.latestToken(connection).rawValue,
        trimmedThrough: try ChangeHistory.trimmedThrough(connection),
        oldestDate: (row?.2).map { Date(timeIntervalSince1970: $0) })
    }
  }

  /// The token of the last save in the history (0 before any, or without history).
  ///
  /// - Throws: ``StoreError`` when the store can't be read.
  package func latestHistoryToken() throws -> Int64 {
    try run {
      guard try connection.tableExists("kura_history") else { return 0 }
      return try ChangeHistory.latestToken(connection).rawValue
    }
  }

  /// The change sets saved after `token`, oldest first, at most `limit` (the newest ones when
  /// there are more).
  ///
  /// - Throws: ``StoreError`` when the store can't be read.
  package func changeSets(after token: Int64, limit: Int) throws -> [ChangeSet] {
    try run {
      guard try connection.tableExists("kura_history") else { return [] }
      let horizon = try ChangeHistory.horizon(connection)
      let latest = try ChangeHistory.latestToken(connection).rawValue
      // Start at the `limit`-th newest token when that is later.
      let start =
        try connection.queryFirst(
          "SELECT token FROM kura_history WHERE token > ? AND token <= ? ORDER BY token DESC "
            + "LIMIT 1 OFFSET ?", [.integer(token), .integer(latest), .integer(Int64(limit))]
        ) { $0.int64(at: 0) } ?? token
      return try ChangeHistory.changeSets(
        since: HistoryToken(rawValue: max(start, token)), below: horizon, in: connection
      ).filter { $0.token.rawValue <= latest }
    }
  }
}
