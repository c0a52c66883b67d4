import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore
import Synchronization

/// When a replica's exchanges with its server last succeeded, kept in the store's sync state
/// (`lastSuccess`) so a new ``SyncEngine`` — in another process too, such as the next run of
/// a command-line app — starts its status with it.
///
/// It is written at most every ``refresh`` while exchanges succeed (an idle engine polling
/// every few seconds writes nothing in between).
package final class SyncLastSuccess: Sendable {
  /// How stale the kept time may get while exchanges succeed.
  package static let refresh: TimeInterval = 30
  private let written = Mutex<Date?>(nil)

  /// The kept time of `db`'s store (`nil` when it never synced), remembered as written.
  package func load(_ db: StoreConnection) throws -> Date? {
    let date = try SyncLocalStore.state("lastSuccess", db).flatMap(Double.init).map {
      Date(timeIntervalSince1970: $0)
    }
    written.withLock { $0 = date }
    return date
  }

  /// Keeps `date` in `container`'s store, unless the time kept is more recent than
  /// ``refresh``; a write that fails is tried again at the next success.
  package func keep(_ date: Date, in container: ModelContainer) {
    let due = written.withLock { written in
      if let written, date.timeIntervalSince(written) < Self.refresh { return false }
      written = date
      return true
    }
    guard due else { return }
    do {
      try container.pool.write { db in
        try SyncLocalStore.setState("lastSuccess", String(date.timeIntervalSince1970), db)
      }
    } catch {
      // The engine's status still has it; the next success writes it.
      written.withLock { $0 = nil }
    }
  }
}
