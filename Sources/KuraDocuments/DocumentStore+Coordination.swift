import Foundation
import KuraBase
import Observation
import Synchronization

// How a store coordinates with its own threads and with other processes: changes run under the
// store's mutex and the document's exclusive file lock, other processes' changes are loaded
// under the shared lock, and observers hear of both.
extension DocumentStore {
  /// Runs `body` on the state under the store's mutex, failing when the store is closed.
  package func withState<T>(_ body: (inout DocumentEngine<Value>.State) throws -> T) throws -> T {
    try refuseNestedChange()
    return try state.withLock { state in
      guard !state.isClosed else {
        throw DocumentError(.closed, file: url, reason: "the store was closed")
      }
      return try body(&state)
    }
  }

  /// Runs a change under the mutex and the exclusive file lock, after loading other processes'
  /// changes; records the stamp the write left (no system call: the engine knows the file and
  /// journal it wrote) and notifies observers when `body` says it changed.
  package func write<T>(_ body: (inout DocumentEngine<Value>.State) throws -> (T, Bool)) throws -> T
  {
    let (result, changed) = try withState { state -> (T, Bool) in
      changingThread.store(CurrentThread.identifier, ordering: .relaxed)
      defer { changingThread.store(0, ordering: .relaxed) }
      return try engine.io(.cannotWrite) {
        try lock.withLock(exclusive: true) {
          let before = state.file
          let beforeEnd = state.journalEnd
          try engine.prepareWrite(&state)
          let loaded = before != state.file || beforeEnd != state.journalEnd
          let (result, changed) = try body(&state)
          state.seenStamp = DocumentStamp(written: state)
          pin.withLock { $0.follow(state, engine) }
          return (result, changed || loaded)
        }
      }
    }
    if changed { notifyChange() }
    return result
  }

  /// What the store held when the calling thread's own change began, when it is inside one.
  package func valueDuringOwnChange() -> (Value, DocumentError?, DocumentError?)? {
    guard changingThread.load(ordering: .relaxed) == CurrentThread.identifier else { return nil }
    return duringChange.withLock { $0 }
  }

  /// Throws when the calling thread is inside a change of this store (its mutex is held).
  package func refuseNestedChange() throws {
    if changingThread.load(ordering: .relaxed) == CurrentThread.identifier {
      throw DocumentError(
        .nestedChange, file: url,
        reason: "it was called from inside a change of the same document, which is still in"
          + " progress")
    }
  }

  /// Loads changes another process saved, when the file's or journal's identity moved since the
  /// state was loaded (two `stat` calls). Returns whether a change was loaded or an error met;
  /// `waiting: false` (the file watcher) gives up without waiting when a writer holds the lock.
  @discardableResult
  package func refreshFromOtherProcesses(waiting: Bool = true) -> Bool {
    guard let stamp = try? DocumentStamp.current(engine) else { return false }
    let (changed, errorChanged) = state.withLock { state -> (Bool, Bool) in
      guard !state.isClosed, stamp != state.seenStamp else { return (false, false) }
      do {
        let changed: Bool
        if waiting {
          changed = try engine.io(.cannotRead) {
            try lock.withLock(exclusive: false) { try refreshPinning(&state) }
          }
        } else {
          let loaded = try engine.io(.cannotRead) {
            try lock.withSharedLockIfFree { try refreshPinning(&state) }
          }
          guard let loaded else { return (false, false) }
          changed = loaded
        }
        state.seenStamp = stamp.ifApplied(in: state)
        let hadError = state.reloadError != nil
        state.reloadError = nil
        return (changed, hadError)
      } catch let error as DocumentError {
        state.seenStamp = stamp
        state.reloadError = error
        return (false, true)
      } catch {
        state.seenStamp = stamp
        state.reloadError = DocumentError(.cannotRead, file: url, reason: "\(error)")
        return (false, true)
      }
    }
    if errorChanged { registrar.withMutation(of: self, keyPath: reloadErrorPath) {} }
    if changed { notifyChange() }
    return changed || errorChanged
  }

  /// Loads what changed on disk and pins the files loaded (the caller holds the lock).
  private func refreshPinning(_ state: inout DocumentEngine<Value>.State) throws -> Bool {
    let changed = try engine.refresh(&state)
    pin.withLock { $0.follow(state, engine) }
    return changed
  }

  /// Tells Observation observers and ``changes`` readers that the value changed.
  package func notifyChange() {
    registrar.withMutation(of: self, keyPath: valuePath) {}
    let readers = subscribers.withLock { $0.live }
    guard !readers.isEmpty else { return }
    let value = state.withLock { $0.value }
    for reader in readers { reader.send(value) }
  }
}
