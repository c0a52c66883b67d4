import Foundation
import KuraBase
import KuraSQLite

extension ChangeHistory {
  /// Runs `trim` (a save's history trim) inside ``ModelContainer/write(_:)``: in a savepoint,
  /// and a conflict with a concurrent save's trim (PostgreSQL: rows another transaction
  /// deleted after the write's snapshot, "could not serialize access due to concurrent
  /// delete") rolls back only the trim, leaving those rows to a later save. A trim deletes
  /// only rows nobody needs, so skipping it once loses nothing, while failing the write for it
  /// would fail most writes beside busy savers.
  package static func trimInsideWrite(_ db: StoreConnection, _ trim: () throws -> Void) throws {
    do {
      try db.savepoint(trim)
    } catch let error where isConcurrentChange(error) {
      return
    }
  }

  /// Whether `error` is a conflict with a concurrent transaction that ended the statement,
  /// not the transaction's outcome: a serialization failure or a deadlock.
  package static func isConcurrentChange(_ error: any Error) -> Bool {
    let engineError =
      error as? any EngineError ?? (error as? StoreError)?.underlying as? any EngineError
    return engineError?.failure == .concurrentChange
  }
}
