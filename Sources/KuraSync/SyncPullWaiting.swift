import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore
import Synchronization

/// How a caught-up device learns of other devices' saves: a pull that waits on the server (a
/// long poll, up to ``SyncSettings/waitForChanges``) until the space has a save past the
/// device's cursor — the server hears of every push through PostgreSQL `LISTEN/NOTIFY`, on
/// whichever server process it came — instead of a poll every ``SyncSettings/pollInterval``.
///
/// The status stays what the last exchange left (idle) while the pull waits. A local save
/// (or ``SyncEngine/syncNow()``, or the engine's stop) ends the wait at once: the engine
/// exchanges and leaves the waiting request to end by itself, its answer unused. A server
/// that answers a waiting pull at once with no `longPoll` mark can't wait (an older one): the
/// engine polls from then on. A waiting pull that fails or is refused (503 `busy`: the server
/// holds its most waiting pulls) makes the engine poll once; the exchange reports failures.
package struct SyncPullWaiting {
  /// What a wait came to.
  package enum Outcome: Equatable {
    /// The waiting pull brought the space's head (or nothing, after the server's wait):
    /// wait again.
    case caughtUp
    /// Woken (a local save, ``SyncEngine/syncNow()``, the stop) or there is more to pull:
    /// exchange now.
    case exchangeNow
    /// No waiting (turned off, a server that can't, or the pull failed): poll.
    case pollLater
  }

  /// Whether the server held the waiting pulls so far (not known to be unable to).
  package private(set) var serverWaits = true

  /// The answer of one waiting pull, kept for the loop unless the loop gave up on it.
  private final class Slot: Sendable {
    private let state = Mutex<(result: Result<Data, any Error>?, abandoned: Bool)>(
      (nil, false))

    /// Keeps the answer; whether the loop still waits for it.
    func finish(_ result: Result<Data, any Error>) -> Bool {
      state.withLock { state in
        guard !state.abandoned else { return false }
        state.result = result
        return true
      }
    }

    /// The answer, or `nil` (and the answer dropped when it comes) when it has not come.
    func take() -> Result<Data, any Error>? {
      state.withLock { state in
        if state.result == nil { state.abandoned = true }
        return state.result
      }
    }
  }

  /// Sends one waiting pull and waits for its answer or a wake-up, whichever comes first, and
  /// applies the changes it brought.
  package mutating func wait(_ transport: SyncTransport, wake: SyncWakeUp) async -> Outcome {
    guard serverWaits, let wait = transport.settings.waitForChanges, wait > .zero else {
      return .pollLater
    }
    // A wake-up that came meanwhile (a local save, or the hub telling of the changes this
    // engine just applied): exchange, without leaving a waiting pull behind on the server.
    if wake.takePending() { return .exchangeNow }
    let container = transport.container
    guard
      let query = try? container.pool.read({ db in
        "after=\(try SyncLocalStore.cursor(db))&limit=\(SyncPullResponse.maximumSaves)&"
          + (try SyncInitialSync.settledQuery(db))
      })
    else { return .pollLater }
    let seconds = max(1, wait.components.seconds)
    let slot = Slot()
    // Not a child task: cancelling a URLSession request can deadlock FoundationNetworking on
    // Linux (see SyncEngine.stop), so a request given up on ends by itself.
    Task.detached {
      let result: Result<Data, any Error>
      do {
        result = .success(
          try await transport.send("GET", path: "changes", query: query + "&wait=\(seconds)"))
      } catch {
        result = .failure(error)
      }
      if slot.finish(result) { wake.fire() }
    }
    // Bounded by the request's own timeout (30 s) in any case.
    await wake.wait(upTo: .seconds(seconds + 15))
    guard let result = slot.take() else { return .exchangeNow }
    guard case .success(let data) = result,
      let page = try? SyncJSONReader.decodePage(data)
    else { return .pollLater }
    guard let last = page.saves.last else {
      if page.longPoll != true { serverWaits = false }
      return serverWaits ? .caughtUp : .pollLater
    }
    do {
      let changes = try container.pool.write { db in
        // Applied only onto the cursor it was asked from (an exchange can't have run since).
        guard try SyncLocalStore.cursor(db) < page.saves[0].position else {
          return [:]
        }
        return try SyncLocalStore.applyPulled(page.saves, container: container, db: db)
      }
      if !changes.isEmpty { container.hub.didSave() }
    } catch {
      return .pollLater
    }
    return last.position >= page.head ? .caughtUp : .exchangeNow
  }
}
