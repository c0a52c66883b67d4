import Foundation
import KuraBase
import KuraSQLite
import Synchronization

extension ModelContainer {
  /// Reads and changes models as one step that no other writer can come between, in this
  /// process or any other: an atomic read-modify-write, such as incrementing a counter that
  /// several processes share.
  ///
  /// `body` gets a new ``ModelContext`` whose fetches read inside one write transaction (on
  /// SQLite, `BEGIN IMMEDIATE`: every other writer waits until it ends, so what the fetches saw
  /// is still what is stored when the changes are written; on PostgreSQL, a `REPEATABLE READ`
  /// transaction every other `write` waits for, while plain saves run in parallel: a save that
  /// changes a row this write then changes too makes the write throw
  /// ``StoreError/Code/writeConflict`` with nothing written, rather than lose that save). Its
  /// pending changes are saved in that same transaction when `body` returns (calling
  /// ``ModelContext/save()`` inside `body` is allowed too); when `body` throws, nothing it
  /// changed or saved is written.
  ///
  /// A `write` that throws ``StoreError/Code/writeConflict`` wrote nothing: call it again (it
  /// reads the new state). Kura does not run `body` again by itself, on either engine: `body`
  /// is your code and may have effects outside the store that must not happen twice. On
  /// SQLite every writer waits for the others, so the code never arises there. The history
  /// trim a save does inside `write` (``HistoryRetention``) never causes it: a trim that meets
  /// another save's trim is left to a later save.
  ///
  /// Keep `body` short: other writers wait for it. Use only the given context to save: saving
  /// another context of this container, or calling `write` again, inside `body` throws
  /// ``StoreError/Code/nestedWrite``. (Other contexts of this container may read inside `body`;
  /// they read in the same transaction.)
  ///
  /// For example, a visit counter several processes increment without losing a visit:
  ///
  /// ```swift
  /// let visits = try container.write { context in
  ///   var counter = try context.model(for: "visits", as: Counter.self)
  ///     ?? Counter(id: "visits", value: 0)
  ///   counter.value += 1
  ///   try context.insert(counter)
  ///   return counter.value
  /// }
  /// ```
  ///
  /// - Parameter body: Reads and changes models through the context it is given.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws (nothing is written then); what ``ModelContext/save()``
  ///   throws; ``StoreError/Code/writeConflict`` when a concurrent save changed what the write
  ///   read (PostgreSQL; nothing written, call `write` again);
  ///   ``StoreError/Code/nestedWrite`` when called inside another `write` on this
  ///   container; ``StoreError`` when the store can't be written.
  public func write<Result>(_ body: (ModelContext) throws -> Result) throws -> Result {
    if activeWriteHere != nil { throw nestedWrite() }
    if !configuration.allowsSave { throw ModelContext.readOnlySave(storeURL) }
    var saved = false
    let result: Result
    do {
      result = try pool.writeSerialized { db in
        writesUnderWay.add(1, ordering: .sequentiallyConsistent)
        defer { writesUnderWay.subtract(1, ordering: .sequentiallyConsistent) }
        return try Self.$activeWrite.withValue(ActiveWrite(container: self, connection: db)) {
          let context = ModelContext(self, transaction: db)
          let result = try body(context)
          if context.hasChanges { try context.save() }
          saved = context.savedInTransaction
          return result
        }
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.wrapping(error, url: storeURL, doing: "write to")
    }
    if saved { hub.didSave() }  // wakes live queries of this process without waiting for inotify
    return result
  }

  /// The write transaction ``write(_:)`` runs on this thread (or task), if any.
  package struct ActiveWrite: Sendable {
    package let container: ModelContainer
    package let connection: StoreConnection
  }

  /// The write transaction of ``write(_:)`` under way here.
  @TaskLocal package static var activeWrite: ActiveWrite?

  /// The write transaction of ``write(_:)`` on this container that the current task runs in,
  /// or `nil` (without a task-local lookup while no `write` runs on this container).
  package var activeWriteHere: ActiveWrite? {
    guard writesUnderWay.load(ordering: .sequentiallyConsistent) > 0,
      let active = Self.activeWrite, active.container === self
    else { return nil }
    return active
  }

  /// Runs `body` on a reader of the store, or on the transaction's connection when called inside
  /// ``write(_:)`` on this container (so reads see that transaction, and an in-memory store,
  /// whose one connection the transaction holds, does not wait for itself).
  package func read<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
    if let active = activeWriteHere { return try body(active.connection) }
    return try pool.read(body)
  }

  /// The error for a save or a ``write(_:)`` inside another ``write(_:)`` on this container.
  package func nestedWrite() -> StoreError {
    let file = storeLabel(storeURL)
    return StoreError(
      .nestedWrite, url: storeURL,
      message:
        "Can't write to store \(file) here: this runs inside `ModelContainer.write`, whose "
        + "transaction holds the store until its body returns. Make the changes with the context "
        + "`write` gives its body; nothing was written by this call.")
  }
}
