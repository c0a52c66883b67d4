import Foundation
import KuraBase

#if canImport(CSQLite)
  internal import CSQLite
#else
  internal import SQLite3
#endif

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
  public var count: Int { state.pointee.count }
  /// The operation of the last reported change, `nil` before any.
  ///
  /// For example: `tracker.lastOperation == .update`.
  public var lastOperation: RowOperation? { state.pointee.lastOperation }
  /// The rowid of the row the last reported change touched (0 before any).
  ///
  /// For example: `let id = tracker.lastRowID`.
  public var lastRowID: Int64 { state.pointee.lastRowID }
  /// What the hook writes, in memory this tracker owns (the hook runs once per row, so it pays
  /// no reference counting or exclusivity checks).
  fileprivate let state: UnsafeMutablePointer<TrackedRowChanges>
  /// The tracked table's name.
  fileprivate let table: String

  fileprivate init(table: String) {
    self.table = table
    state = .allocate(capacity: 1)
    state.initialize(to: TrackedRowChanges(table: strdup(table)))
  }

  /// Forgets the changes reported so far, for the next tracking of the same table.
  fileprivate func restart() {
    // The schema may have been read again since (its names at new addresses): matched anew.
    state.pointee.matchedName = nil
    state.pointee.count = 0
    state.pointee.lastOperation = nil
    state.pointee.lastRowID = 0
  }

  deinit {
    free(state.pointee.table)
    state.deinitialize(count: 1)
    state.deallocate()
  }
}

/// The state the update hook of ``Connection/trackingRowChanges(in:_:)`` writes.
package struct TrackedRowChanges {
  /// The tracked table's name, NUL-terminated (owned by the tracker).
  package let table: UnsafeMutablePointer<CChar>?
  /// The name memory SQLite last reported a change of the tracked table with.
  package var matchedName: UnsafePointer<CChar>?
  package var count = 0
  package var lastOperation: RowOperation?
  package var lastRowID: Int64 = 0
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
  ///   - table: The table's name, unquoted (compared ignoring ASCII case, as SQLite does).
  ///   - body: The work, given the tracker to read after each statement.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func trackingRowChanges<Result>(
    in table: String, _ body: (RowChangeTracker) throws -> Result
  ) rethrows -> Result {
    // The tracker of the last tracking is used again for the same table (a save tracks its
    // model's table each time): no allocation, and no C copy of the name, per tracking.
    let tracker: RowChangeTracker
    if let last = lastRowTracker, last.table == table {
      last.restart()
      tracker = last
    } else {
      tracker = RowChangeTracker(table: table)
      lastRowTracker = tracker
    }
    sqlite3_update_hook(handle, rowChangeHook, UnsafeMutableRawPointer(tracker.state))
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
  let state = context.assumingMemoryBound(to: TrackedRowChanges.self)
  // SQLite passes its schema's own copy of the name, the same memory row after row: once a
  // name matched, that memory is known to be the tracked table's without comparing.
  if table != state.pointee.matchedName {
    guard let tracked = state.pointee.table, sqlite3_stricmp(tracked, table) == 0 else { return }
    state.pointee.matchedName = table
  }
  switch operation {
  case SQLITE_INSERT: state.pointee.lastOperation = .insert
  case SQLITE_UPDATE: state.pointee.lastOperation = .update
  default: state.pointee.lastOperation = .delete
  }
  state.pointee.lastRowID = rowID
  state.pointee.count += 1
}
