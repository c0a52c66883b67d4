import Dispatch
import Foundation
import Kura
import Synchronization

// `kura studio --app`, live: the app's preference suites, scene states and documents pushed to
// the page as server-sent events when any process writes them. The process's file watcher
// (inotify on Linux) says when one of the app's folders changed; the studio then compares what
// the files look like (names, sizes, times) with what it saw last, and on a difference reads
// the app again and sends it if it reads differently. No timer runs while nothing is written.

extension Studio {
  /// `GET /api/app-events`: an `app` event with what `GET /api/app` answers, at once and after
  /// each write that changed it (by this or any other process).
  func appEvents() -> StudioResponse {
    guard let app else { return .error(404, "This studio shows a store, not an app (--app).") }
    return .eventStream { [self] send in
      let watcher = AppWatcher(studio: self, app: app, send: send)
      watcher.start()
      return { watcher.stop() }
    }
  }

  /// The folders whose files make up an app's page: its preferences, scene states and
  /// documents, and its App Group's documents and preferences.
  static func appFolders(_ app: StudioApp) -> [URL] {
    let locations = app.locations
    var folders = [
      locations.preferencesDirectory, locations.sceneStateDirectory,
      locations.documentsDirectory,
    ]
    if let group = app.group {
      let environment = locations.environment.variables
      if let folder = try? Locations.groupContainer(group, environment: environment) {
        folders.append(folder)
      }
      if let url = try? Preferences.fileURL(forSuite: group, environment: environment) {
        folders.append(url.deletingLastPathComponent())
      }
    }
    var seen: Set<String> = []
    return folders.filter { seen.insert($0.standardizedFileURL.path).inserted }
  }
}

/// Watches one app's folders for one stream of `app` events.
///
/// A folder that doesn't exist yet is watched through its nearest existing parent, so that the
/// app's first suite or document (and the folder made for it) is seen too.
final class AppWatcher: Sendable {
  private struct State {
    /// What the files looked like at the last check.
    var fingerprint: [String] = []
    /// The last answer sent.
    var sent: Data?
    /// The folders watched, each with its subscription to the file watcher.
    var observations: [String: ChangeObservation] = [:]
    var stopped = false
  }

  private let studio: Studio
  private let app: StudioApp
  private let folders: [URL]
  private let send: @Sendable (String, String) -> Bool
  private let state = Mutex(State())
  /// Reads and sends one at a time, off the file watcher's thread.
  private let queue = DispatchQueue(label: "kura.studio.app-events")

  /// Reads again this long after a change seen in the files (a SQLite commit becomes visible
  /// to readers a moment after its last write to the log, and a burst of writes is one change).
  private static let followUps: [DispatchTimeInterval] = [.milliseconds(50), .milliseconds(300)]

  init(studio: Studio, app: StudioApp, send: @escaping @Sendable (String, String) -> Bool) {
    self.studio = studio
    self.app = app
    self.folders = Studio.appFolders(app)
    self.send = send
  }

  /// Sends the app as it is now, and starts watching.
  func start() {
    state.withLock { $0.fingerprint = fingerprint() }
    queue.async { self.refresh() }
  }

  /// Stops watching (the client went, or the server stops).
  func stop() {
    let observations = state.withLock { state -> [ChangeObservation] in
      state.stopped = true
      defer { state.observations = [:] }
      return Array(state.observations.values)
    }
    for observation in observations { observation.cancel() }
  }

  /// Reads the app and sends it if it reads differently from what was sent last; then watches
  /// the folders that exist now.
  private func refresh() {
    guard !state.withLock({ $0.stopped }) else { return }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    guard let data = try? encoder.encode(studio.appAnswer(app)) else { return }
    let changed = state.withLock { state -> Bool in
      defer { state.sent = data }
      return state.sent != data
    }
    if changed && !send("app", String(decoding: data, as: UTF8.self)) {
      stop()
      return
    }
    watchFolders()
  }

  /// Subscribes to the file watcher for each folder, or its nearest existing parent while it
  /// doesn't exist; drops the subscriptions of folders no longer needed.
  private func watchFolders() {
    let wanted = Set(folders.map { Self.existingFolder($0.path) })
    let (added, removed) = state.withLock { state -> (Set<String>, [ChangeObservation]) in
      guard !state.stopped else { return ([], []) }
      let known = Set(state.observations.keys)
      let removed = known.subtracting(wanted).compactMap {
        state.observations.removeValue(forKey: $0)
      }
      return (wanted.subtracting(known), removed)
    }
    for observation in removed { observation.cancel() }
    for folder in added {
      let observation = FileChangeMonitor.shared.subscribe(folder: folder, names: []) {
        [weak self] in self?.check() ?? false
      }
      let kept = state.withLock { state -> Bool in
        guard !state.stopped else { return false }
        state.observations[folder] = observation
        return true
      }
      if !kept { observation.cancel() }
    }
  }

  /// On the file watcher's thread: whether the files changed since the last check; if they
  /// did, the app is read again (now and a moment later).
  private func check() -> Bool {
    let now = fingerprint()
    let changed = state.withLock { state -> Bool in
      guard !state.stopped, state.fingerprint != now else { return false }
      state.fingerprint = now
      return true
    }
    guard changed else { return false }
    queue.async { self.refresh() }
    for delay in Self.followUps {
      queue.asyncAfter(deadline: .now() + delay) { self.refresh() }
    }
    return true
  }

  /// What the app's files look like: each folder's entries with their sizes and times (not
  /// SQLite's shared-memory index, which readers write too).
  private func fingerprint() -> [String] {
    var lines: [String] = []
    let manager = FileManager.default
    for folder in folders {
      guard let names = try? manager.contentsOfDirectory(atPath: folder.path) else {
        lines.append("\(folder.path) missing")
        continue
      }
      lines.append(folder.path)
      for name in names.sorted() where !name.hasSuffix("-shm") {
        var status = stat()
        guard stat(folder.appendingPathComponent(name).path, &status) == 0 else { continue }
        #if canImport(Darwin)
          let time = status.st_mtimespec
        #else
          let time = status.st_mtim
        #endif
        lines.append("\(name) \(status.st_ino) \(status.st_size) \(time.tv_sec) \(time.tv_nsec)")
      }
    }
    return lines
  }

  /// `path`, or its nearest parent that exists.
  private static func existingFolder(_ path: String) -> String {
    var url = URL(fileURLWithPath: path)
    var isFolder: ObjCBool = false
    while !(FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
      && isFolder.boolValue), url.path != "/"
    {
      url = url.deletingLastPathComponent()
    }
    return url.path
  }
}
