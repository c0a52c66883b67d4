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
