import Foundation
import KuraBase

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension DocumentStore {
  /// The document's value now and after each change saved by this store or loaded from another
  /// process. Coalescing: a reader that falls behind gets the newest value, not every
  /// intermediate one. The sequence ends when the store is closed or the reading task is
  /// cancelled; a change that fails to load is reported in ``reloadError``, not by the sequence.
  ///
  /// For example:
  ///
  /// ```swift
  /// for await entries in store.changes {
  ///   print("now \(entries.count) entries")
  /// }
  /// ```
  public var changes: AsyncStream<Value> {
    let changes = ChangeStream<Value>()
    let subscribe = { () -> Int in
      self.subscribers.withLock { subscribers in
        subscribers.next += 1
        subscribers.streams[subscribers.next] = Weak(changes)
        return subscribers.next
      }
    }
    // Asked for inside this thread's own `update` (whose lock is held, and whose store is open):
    // the stream starts with the value the change began from, and the change itself follows.
    let during = valueDuringOwnChange()
    let token: Int? =
      during != nil ? subscribe() : state.withLock { $0.isClosed ? nil : subscribe() }
    guard let token else {
      changes.finish()
      return changes.stream
    }
    changes.onTermination { [weak self] in
      _ = self?.subscribers.withLock { $0.streams.removeValue(forKey: token) }
    }
    if let during {
      changes.send(during.0)
    } else {
      refreshFromOtherProcesses()
      changes.send(state.withLock { $0.value })
    }
    return changes.stream
  }
}

/// The readers of ``DocumentStore/changes``.
package struct DocumentSubscribers<Value: Sendable>: Sendable {
  package var next = 0
  package var streams: [Int: Weak<ChangeStream<Value>>] = [:]

  /// The readers still alive.
  package var live: [ChangeStream<Value>] { streams.values.compactMap(\.object) }
}

/// What tells a process that another one changed a document: the identity of the document file
/// (device, inode, size, modification time) and of its journal (device, inode, size). A save
/// changes one of them by itself — a whole-file save renames a new file into place, a journal
/// append makes the journal longer — so there is no separate signal to write, and none to miss
/// when the writer is killed right after its save.
///
/// Two guards keep a stamp from repeating: the store keeps the file it loaded open
/// (``DocumentPin``), so its inode can't be reused by a later file of the same size and time;
/// and a stamp is only remembered when every journal byte it covers was applied (a torn tail
/// left by a killed writer is looked at again on each read until a writer cuts it off).
package struct DocumentStamp: Equatable, Sendable {
  package struct Journal: Equatable, Sendable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int
  }

  package var file: FileIdentity?
  package var journal: Journal?

  /// The stamp on disk now (two `stat` calls).
  package static func current<Value>(_ engine: DocumentEngine<Value>) throws -> DocumentStamp {
    let file = try engine.io(.cannotRead) { try DocumentFile.identity(of: engine.path) }
    let journal = try engine.io(.cannotRead) { try DocumentFile.identity(of: engine.journalPath) }
    return DocumentStamp(
      file: file,
      journal: journal.map { Journal(device: $0.device, inode: $0.inode, size: $0.size) })
  }

  /// The stamp a write of this process left: the file and journal it wrote (no system call).
  package init<Value>(written state: DocumentEngine<Value>.State) {
    file = state.file
    journal = state.journal.map {
      Journal(device: $0.device, inode: $0.inode, size: state.journalEnd)
    }
  }

  package init(file: FileIdentity?, journal: Journal?) {
    self.file = file
    self.journal = journal
  }

  /// This stamp when `state` has applied everything it covers; `nil` (look again) otherwise.
  package func ifApplied<Value>(in state: DocumentEngine<Value>.State) -> DocumentStamp? {
    guard file == state.file else { return nil }
    if let journal, !state.journalIsStale, journal.size > state.journalEnd { return nil }
    return self
  }
}

/// Open descriptors on the document file and journal a store's value came from, so that their
/// inodes are not reused for later versions while the store may still compare stamps with them
/// (a journal removed by one writer and created again by the next could otherwise come back with
/// the same inode and be taken for the old one). Taken while the document's lock is held, when
/// the files are known to be the ones the state describes.
package struct DocumentPin: ~Copyable {
  private var file = Pinned()
  private var journal = Pinned()

  private struct Pinned {
    var descriptor: Int32 = -1
    var identity: FileIdentity?

    mutating func follow(_ wanted: FileIdentity?, path: String) {
      if let wanted, let identity, wanted.isSameFile(as: identity) { return }
      if descriptor >= 0 { close(descriptor) }
      descriptor = -1
      identity = nil
      guard let wanted else { return }
      let opened = open(path, O_RDONLY | O_CLOEXEC)
      guard opened >= 0 else { return }
      var status = stat()
      if fstat(opened, &status) == 0, FileIdentity(status).isSameFile(as: wanted) {
        descriptor = opened
        identity = wanted
      } else {
        close(opened)
      }
    }
  }

  /// Pins the files `state` was loaded from (and unpins the previous ones).
  package mutating func follow<Value>(
    _ state: DocumentEngine<Value>.State, _ engine: DocumentEngine<Value>
  ) {
    file.follow(state.file, path: engine.path)
    journal.follow(state.journal, path: engine.journalPath)
  }

  /// Unpins everything.
  package mutating func release() {
    file.follow(nil, path: "")
    journal.follow(nil, path: "")
  }

  deinit {
    if file.descriptor >= 0 { close(file.descriptor) }
    if journal.descriptor >= 0 { close(journal.descriptor) }
  }
}
