/// Facts about the Kura library itself.
///
/// For example:
///
/// ```swift
/// print("Kura \(KuraLibrary.version) on SQLite \(Connection.sqliteVersion)")
/// ```
public enum KuraLibrary {
  /// The version of this library.
  public static let version = "0.1.0"
}

extension KuraLibrary {
  /// How many file observations this process holds, how many folders its one file watcher
  /// watches, and how many observations fell back to polling (for Kura's own tests, which run
  /// some checks in a child process).
  ///
  /// For example:
  ///
  /// ```swift
  /// precondition(KuraLibrary.fileWatcherCounts.polled == 0)
  /// ```
  package static var fileWatcherCounts: (subscribers: Int, folders: Int, polled: Int) {
    FileChangeMonitor.shared.counts
  }
}
