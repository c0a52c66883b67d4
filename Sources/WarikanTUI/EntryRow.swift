import Foundation

/// One entry as the screen shows it: the seed's `CashData` (id, yen, memo, short time).
///
/// For example:
///
/// ```swift
/// let row = EntryRow(id: UUID(), cash: 2800, memo: "高速代金", time: "22:38")
/// ```
package struct EntryRow: Hashable, Sendable, Identifiable {
  /// The entry's identifier.
  package var id: UUID
  /// The amount in yen.
  package var cash: Int
  /// The memo (may be empty).
  package var memo: String
  /// The short local time of creation, such as `22:38`.
  package var time: String

  /// Creates a row.
  ///
  /// - Parameters:
  ///   - id: The entry's identifier.
  ///   - cash: The amount in yen.
  ///   - memo: The memo.
  ///   - time: The short time of creation.
  package init(id: UUID, cash: Int, memo: String, time: String) {
    self.id = id
    self.cash = cash
    self.memo = memo
    self.time = time
  }
}
