import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Cancels a change subscription when cancelled or released.
package final class ChangeObservation: Sendable {
  private let onCancel: Mutex<(@Sendable () -> Void)?>

  package init(_ onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = Mutex(onCancel)
  }

  /// Stops the calls. Calling it again does nothing.
  package func cancel() {
    let action = onCancel.withLock { action -> (@Sendable () -> Void)? in
      defer { action = nil }
      return action
    }
    action?()
  }

  deinit { cancel() }
}

/// The process's one file watcher: one thread and (on Linux) one inotify instance, shared by every
/// observed database, suite, scene and document.
///
/// A subscriber names a folder, the file names in it that its writes touch, and a `check` that
/// compares what the commit itself changed (a WAL-index stamp, a file's identity) with what it
/// saw last and delivers any change. The watcher only decides *when* to check:
///
/// - on Linux, when inotify reports one of the names modified, created, moved or deleted (one watch
///   per folder, however many subscribers it has);
/// - on Apple platforms, when a `DispatchSource` file-system source on the folder or one of the
///   files fires;
/// - after such an event, again a few times with a growing delay (1 ms, 2 ms, … up to 0.5 s, for
///   5 s after the last event or change): a SQLite commit becomes visible a moment *after* its
///   last write to the `-wal` file, and events of several writes coalesce;
/// - every 50 ms for a subscriber whose folder can't be watched (inotify watch limit reached).
///
/// An idle process with any number of subscribers sleeps in `poll` without a timeout.
package final class FileChangeMonitor: Sendable {
  /// The watcher of this process.
  package static let shared = FileChangeMonitor()

  private struct Subscription {
    let folder: String
    let names: Set<String>
    let check: @Sendable () -> Bool
  }

  /// When to check a subscriber again without an event.
  private struct Recheck {
    var due: UInt64
    var interval: UInt64
    var until: UInt64
  }

  private struct Folder {
    var watch: Int32
    var users: Int
  }

  private struct State {
    var subscriptions: [Int: Subscription] = [:]
    var nextID = 0
    var folders: [String: Folder] = [:]
    var folderByWatch: [Int32: String] = [:]
    /// Subscribers an event named since the last round.
    var notified: Set<Int> = []
    var rechecks: [Int: Recheck] = [:]
    /// Subscribers without an event source, checked every ``pollInterval``.
    var polled: Set<Int> = []
    var nextPoll: UInt64 = 0
    var isRunning = false
    #if canImport(Darwin)
      var sources: [Int: [any DispatchSourceFileSystemObject]] = [:]
    #endif
  }

  private static let millisecond: UInt64 = 1_000_000
  private static let pollInterval = 50 * millisecond
  private static let longestRecheck = 500 * millisecond
  private static let recheckWindow = 5_000 * millisecond

  private let state = Mutex(State())
  private let wakeRead: Int32
  private let wakeWrite: Int32
  /// The inotify instance, or -1 (Apple platforms, or when the process has none left).
  private let inotify: Int32
  #if canImport(Darwin)
    private let sourceQueue = DispatchQueue(label: "Kura.FileChangeMonitor")
  #endif

  private init() {
    var fds: [Int32] = [-1, -1]
    if pipe(&fds) == 0 {
      for fd in fds {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      }
    }
    wakeRead = fds[0]
    wakeWrite = fds[1]
    #if os(Linux)
      inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
    #else
      inotify = -1
    #endif
  }

  /// Calls `check` when one of `names` in `folder` may have changed, until the observation is
  /// cancelled. `check` runs on the watcher's thread, one call at a time across all subscribers;
  /// it returns whether it found (and delivered) a change. An empty `names` means every entry
  /// of the folder, including ones created later (a folder of suites or documents, watched for
  /// new files as well as writes).
  package func subscribe(
    folder: String, names: Set<String>, check: @escaping @Sendable () -> Bool
  ) -> ChangeObservation {
    let (id, start) = state.withLock { state -> (Int, Bool) in
      state.nextID += 1
      let id = state.nextID
      state.subscriptions[id] = Subscription(folder: folder, names: names, check: check)
      if !addSource(for: id, folder: folder, names: names, &state) { state.polled.insert(id) }
      defer { state.isRunning = true }
      return (id, !state.isRunning)
    }
    if start {
      let thread = Thread { [self] in self.run() }
      thread.name = "kura.file-change-monitor"
      thread.start()
    }
    wake()
    return ChangeObservation { [self] in self.unsubscribe(id) }
  }

  /// How many subscribers there are and how many folders are watched (tests and benchmarks).
  package var counts: (subscribers: Int, folders: Int, polled: Int) {
    state.withLock { ($0.subscriptions.count, $0.folders.count, $0.polled.count) }
  }

  private func unsubscribe(_ id: Int) {
    state.withLock { state in
      guard let subscription = state.subscriptions.removeValue(forKey: id) else { return }
      state.rechecks[id] = nil
      state.notified.remove(id)
      state.polled.remove(id)
      removeSource(for: id, folder: subscription.folder, &state)
    }
  }

  /// After `KuraLibrary.resume()`: checks every subscriber once, since checks were held back
  /// while the process was suspended.
  package func resumeChecks() {
    state.withLock { state in
      guard state.isRunning else { return }
      state.notified.formUnion(state.subscriptions.keys)
    }
    wake()
  }

  private func wake() {
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  // MARK: Event sources

  #if os(Linux)
    private func addSource(
      for id: Int, folder: String, names: Set<String>, _ state: inout State
    ) -> Bool {
      if var known = state.folders[folder] {
        known.users += 1
        state.folders[folder] = known
        return true
      }
      guard inotify >= 0 else { return false }
      let mask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)
      let watch = inotify_add_watch(inotify, folder, mask | UInt32(IN_ONLYDIR))
      guard watch >= 0 else { return false }
      state.folders[folder] = Folder(watch: watch, users: 1)
      state.folderByWatch[watch] = folder
      return true
    }

    private func removeSource(for id: Int, folder: String, _ state: inout State) {
      guard var known = state.folders[folder] else { return }
      known.users -= 1
      if known.users > 0 {
        state.folders[folder] = known
        return
      }
      state.folders[folder] = nil
      state.folderByWatch[known.watch] = nil
      _ = inotify_rm_watch(inotify, known.watch)
    }

    /// Reads the pending inotify events and marks the subscribers they name.
    private func readEvents() {
      var buffer = [UInt8](repeating: 0, count: 16_384)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
        guard count > 0 else { return }
        var touched: [(Int32, String?)] = []
        var overflow = false
        buffer.withUnsafeBytes { bytes in
          var offset = 0
          let header = MemoryLayout<inotify_event>.size
          while offset + header <= count {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            if mask & UInt32(IN_Q_OVERFLOW) != 0 { overflow = true }
            var name: String?
            if length > 0 {
              let start = offset + header
              let raw = bytes[start..<min(start + length, count)]
              let end = raw.firstIndex(of: 0) ?? raw.endIndex
              name = String(decoding: raw[start..<end], as: UTF8.self)
            }
            touched.append((watch, name))
            offset += header + length
          }
        }
        state.withLock { state in
          if overflow {
            state.notified.formUnion(state.subscriptions.keys)
            return
          }
          for (watch, name) in touched {
            guard let folder = state.folderByWatch[watch], let name else { continue }
            for (id, subscription) in state.subscriptions
            where subscription.folder == folder
              && (subscription.names.isEmpty || subscription.names.contains(name))
            {
              state.notified.insert(id)
            }
          }
        }
      }
    }
  #elseif canImport(Darwin)
    /// One source on the folder (entries created, renamed or removed) and one per named file
    /// that exists (written, extended, renamed, removed); a folder event re-opens the file
    /// sources, since a replaced file is a new file.
    private func addSource(
      for id: Int, folder: String, names: Set<String>, _ state: inout State
    ) -> Bool {
      var sources: [any DispatchSourceFileSystemObject] = []
      let folderDescriptor = open(folder, O_EVTONLY | O_CLOEXEC)
      guard folderDescriptor >= 0 else { return false }
      let folderSource = DispatchSource.makeFileSystemObjectSource(
        fileDescriptor: folderDescriptor, eventMask: [.write, .delete, .rename], queue: sourceQueue)
      folderSource.setEventHandler { [weak self] in
        self?.reopenFileSources(for: id)
        self?.notify(id)
      }
      folderSource.setCancelHandler { close(folderDescriptor) }
      folderSource.resume()
      sources.append(folderSource)
      sources += fileSources(for: id, folder: folder, names: names)
      state.sources[id] = sources
      return true
    }

    private func fileSources(
      for id: Int, folder: String, names: Set<String>
    ) -> [any DispatchSourceFileSystemObject] {
      // No names: every entry there now (a folder event opens the sources again, so a file
      // created later gets one too).
      let watched =
        names.isEmpty
        ? Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []) : names
      return watched.compactMap { name in
        let path = (folder as NSString).appendingPathComponent(name)
        let descriptor = open(path, O_EVTONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let source = DispatchSource.makeFileSystemObjectSource(
          fileDescriptor: descriptor, eventMask: [.write, .extend, .delete, .rename, .attrib],
          queue: sourceQueue)
        source.setEventHandler { [weak self] in self?.notify(id) }
        source.setCancelHandler { close(descriptor) }
        source.resume()
        return source
      }
    }

    private func reopenFileSources(for id: Int) {
      let old = state.withLock { state -> [any DispatchSourceFileSystemObject] in
        guard let subscription = state.subscriptions[id], var sources = state.sources[id],
          !sources.isEmpty
        else { return [] }
        let folderSource = sources.removeFirst()
        state.sources[id] =
          [folderSource]
          + fileSources(for: id, folder: subscription.folder, names: subscription.names)
        return sources
      }
      for source in old { source.cancel() }
    }

    private func removeSource(for id: Int, folder: String, _ state: inout State) {
      for source in state.sources.removeValue(forKey: id) ?? [] { source.cancel() }
    }

    private func notify(_ id: Int) {
      state.withLock { _ = $0.notified.insert(id) }
      wake()
    }

    private func readEvents() {}
  #endif

  // MARK: The thread

  private func run() {
    while true {
      let suspended = FileLockActivity.shared.isSuspended
      let timeout = state.withLock { state -> Int32 in
        // Suspended: nothing is checked, so nothing is due until `resumeChecks()` wakes it.
        if suspended { return -1 }
        let now = DispatchTime.now().uptimeNanoseconds
        var next = state.rechecks.values.map(\.due).min()
        if !state.polled.isEmpty { next = min(next ?? state.nextPoll, state.nextPoll) }
        guard let next else { return -1 }
        return Int32(clamping: (next > now ? next - now : 0) / Self.millisecond + 1)
      }
      var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
      if inotify >= 0 { fds.append(pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)) }
      let ready = poll(&fds, nfds_t(fds.count), timeout)
      if ready > 0 {
        if fds[0].revents != 0 {
          var drain = [UInt8](repeating: 0, count: 64)
          while read(wakeRead, &drain, drain.count) > 0 {}
        }
        if fds.count > 1 && fds[1].revents != 0 { readEvents() }
      }
      checkDue()
    }
  }

  /// Runs the checks that are due: subscribers an event named, rechecks whose time has come,
  /// and polled subscribers every ``pollInterval``.
  private func checkDue() {
    let now = DispatchTime.now().uptimeNanoseconds
    let due = state.withLock { state -> [(Int, Bool, @Sendable () -> Bool)] in
      var ids = state.notified.map { ($0, true) }
      for (id, recheck) in state.rechecks where recheck.due <= now && !state.notified.contains(id) {
        ids.append((id, false))
      }
      if !state.polled.isEmpty && state.nextPoll <= now {
        state.nextPoll = now + Self.pollInterval
        for id in state.polled where !state.notified.contains(id) { ids.append((id, false)) }
      }
      state.notified.removeAll()
      return ids.compactMap { id, fromEvent in
        state.subscriptions[id].map { (id, fromEvent, $0.check) }
      }
    }
    for (id, fromEvent, check) in due {
      // Counted as a file-lock operation, so a suspension waits for a check already running;
      // while suspended no check runs (its reads would take SQLite's locks again) and the
      // subscriber is checked after `KuraLibrary.resume()` instead.
      let operation = FileLockActivity.shared.begin()
      if FileLockActivity.shared.isSuspended {
        FileLockActivity.shared.end(operation)
        state.withLock { state in
          if state.subscriptions[id] != nil { state.notified.insert(id) }
          state.rechecks[id] = nil
        }
        continue
      }
      let changed = check()
      FileLockActivity.shared.end(operation)
      let after = DispatchTime.now().uptimeNanoseconds
      state.withLock { state in
        guard state.subscriptions[id] != nil, !state.polled.contains(id) else { return }
        if fromEvent || changed {
          state.rechecks[id] = Recheck(
            due: after + Self.millisecond, interval: Self.millisecond,
            until: after + Self.recheckWindow)
        } else if var recheck = state.rechecks[id], recheck.due <= now {
          recheck.interval = min(recheck.interval * 2, Self.longestRecheck)
          recheck.due = after + recheck.interval
          state.rechecks[id] = recheck.due > recheck.until ? nil : recheck
        }
      }
    }
  }
}
