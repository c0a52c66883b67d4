import Dispatch
import Foundation
import KuraStore
import KuraSyncCore
import Synchronization

/// Runs `sync.syncNow()` and waits for it, for a command's synchronous code: the exchange's
/// error when it failed, `nil` when the server has everything.
///
/// For example:
///
/// ```swift
/// if let failure = syncNowAndWait(sync) { printError(failure.message) }
/// ```
///
/// - Parameter sync: The engine.
/// - Returns: Why the exchange failed, or `nil`.
package func syncNowAndWait(_ sync: SyncEngine) -> SyncError? {
  let outcome = Mutex<SyncError?>(nil)
  let done = DispatchSemaphore(value: 0)
  Task.detached {
    do {
      try await sync.syncNow()
    } catch let error as SyncError {
      outcome.withLock { $0 = error }
    } catch {
      outcome.withLock { $0 = SyncError(.serverError, message: "Sync stopped: \(error).") }
    }
    done.signal()
  }
  done.wait()
  return outcome.withLock { $0 }
}
