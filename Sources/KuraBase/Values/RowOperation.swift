/// What a statement did to one row, as SQLite's update hook reports it.
///
/// For example: `if tracker.lastOperation == .insert { inserted += 1 }`.
public enum RowOperation: Sendable, Equatable {
  /// A new row was inserted (an upsert that inserted reports this).
  case insert
  /// A stored row was updated (an upsert that hit a conflict and updated reports this).
  case update
  /// A row was deleted.
  case delete
}
