import Foundation

#if canImport(CSQLite)
  internal import CSQLite
#else
  internal import SQLite3
#endif

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

/// The row changes made to one table while ``Connection/trackingRowChanges(in:_:)`` runs: how
/// many, and the operation and rowid of the last one.
///
/// SQLite reports changes to rowid tables only (not `WITHOUT ROWID` tables), and not rows that
/// foreign-key actions or `REPLACE` conflict resolution remove.
///
/// For example:
///
/// ```swift
/// try db.trackingRowChanges(in: "note") { tracker in
///   try db.run("INSERT INTO note (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET id = id")
///   print(tracker.lastOperation == .insert)
/// }
/// ```
public final class RowChangeTracker {
  /// How many changes to the table were reported so far.
  ///
  /// For example: `let before = tracker.count`.
  public fileprivate(set) var count = 0
  /// The operation of the last reported change, `nil` before any.
  ///
  /// For example: `tracker.lastOperation == .update`.
  public fileprivate(set) var lastOperation: RowOperation?
  /// The rowid of the row the last reported change touched (0 before any).
  ///
  /// For example: `let id = tracker.lastRowID`.
  public fileprivate(set) var lastRowID: Int64 = 0
  /// The tracked table's name, NUL-terminated.
  fileprivate let table: [CChar]

  fileprivate init(table: String) {
    self.table = Array(table.utf8CString)
  }
}

extension Connection {
  /// Runs `body` with SQLite's update hook reporting each row that statements on this connection
  /// insert, update or delete in `table` to a ``RowChangeTracker`` (how an upsert resolved:
  /// ``RowOperation/insert`` or ``RowOperation/update``). The hook is removed when `body`
  /// returns; trackings do not nest.
  ///
  /// For example:
  ///
  /// ```swift
  /// let inserted = try db.trackingRowChanges(in: "note") { tracker in
  ///   try db.run("INSERT INTO note (id, text) VALUES (1, 'a') ON CONFLICT (id) DO UPDATE "
  ///     + "SET text = excluded.text")
  ///   return tracker.lastOperation == .insert
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - table: The table's name, as created (unquoted).
  ///   - body: The work, given the tracker to read after each statement.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func trackingRowChanges<Result>(
    in table: String, _ body: (RowChangeTracker) throws -> Result
  ) rethrows -> Result {
    let tracker = RowChangeTracker(table: table)
    let context = Unmanaged.passUnretained(tracker).toOpaque()
    sqlite3_update_hook(handle, rowChangeHook, context)
    defer { sqlite3_update_hook(handle, nil, nil) }
    return try withExtendedLifetime(tracker) { try body(tracker) }
  }
}

/// The update hook of ``Connection/trackingRowChanges(in:_:)``.
private func rowChangeHook(
  _ context: UnsafeMutableRawPointer?, _ operation: Int32, _ database: UnsafePointer<CChar>?,
  _ table: UnsafePointer<CChar>?, _ rowID: sqlite3_int64
) {
  guard let context, let table else { return }
  let tracker = Unmanaged<RowChangeTracker>.fromOpaque(context).takeUnretainedValue()
  let matches = tracker.table.withUnsafeBufferPointer { name in
    name.baseAddress.map { strcmp($0, table) == 0 } ?? false
  }
  guard matches else { return }
  switch operation {
  case SQLITE_INSERT: tracker.lastOperation = .insert
  case SQLITE_UPDATE: tracker.lastOperation = .update
  default: tracker.lastOperation = .delete
  }
  tracker.lastRowID = rowID
  tracker.count += 1
}
