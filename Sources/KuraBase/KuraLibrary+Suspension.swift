import Foundation

extension KuraLibrary {
  /// Releases every file lock Kura holds in this process, so iOS does not end the app (exception
  /// `0xdead10cc`) when it suspends it while a file in an App Group container is locked.
  ///
  /// Call it when the app goes to the background. It waits (at most `timeout`) for the reads,
  /// writes and document saves already running, then closes every SQLite connection that
  /// ``ModelContainer``, ``Preferences`` and ``DatabasePool`` keep open between operations (an open
  /// connection holds WAL locks on the store and its `-shm` file). Document stores hold their
  /// `flock` only during a save, so waiting for running saves is enough for them.
  ///
  /// Nothing is lost and nothing needs to be reopened: until ``resume()``, every operation still
  /// works; it opens the connection it needs and closes it when done, so a lock is held only while
  /// an operation runs. Work started in the background should run inside a background task
  /// (`UIApplication.beginBackgroundTask`), as any file work must on iOS.
  ///
  /// For example, in the app's `App`:
  ///
  /// ```swift
  /// @Environment(\.scenePhase) private var scenePhase
  ///
  /// var body: some Scene {
  ///   WindowGroup { ContentView() }
  ///     .onChange(of: scenePhase) { _, phase in
  ///       if phase == .background { KuraLibrary.suspend() }
  ///       if phase == .active { KuraLibrary.resume() }
  ///     }
  /// }
  /// ```
  ///
  /// - Parameter timeout: How long to wait for operations already running.
  /// - Returns: Whether no lock is held any more by what ran before the call: false when an
  ///   operation was still running at the deadline, or a transaction was left open. (Calling it
  ///   from inside a `write` or document `update` returns false: that operation is still running.)
  @discardableResult
  public static func suspend(waitingAtMost timeout: Duration = .seconds(2)) -> Bool {
    let seconds =
      Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    return FileLockActivity.shared.suspend(until: Date(timeIntervalSinceNow: max(0, seconds)))
  }

  /// Ends a ``suspend(waitingAtMost:)``: pools keep their connections open between operations
  /// again (the faster way, for an app in the foreground).
  ///
  /// For example: `if phase == .active { KuraLibrary.resume() }`.
  public static func resume() {
    FileLockActivity.shared.resume()
    // Observers missed nothing: what changed while suspended is checked now.
    FileChangeMonitor.shared.resumeChecks()
  }

  /// Whether ``suspend(waitingAtMost:)`` was called and ``resume()`` not yet.
  ///
  /// For example: `if KuraLibrary.isSuspended { KuraLibrary.resume() }`.
  public static var isSuspended: Bool { FileLockActivity.shared.isSuspended }
}
