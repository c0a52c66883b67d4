/// Facts about the Kura library itself.
///
/// For example:
///
/// ```swift
/// print("Kura \(Kura.version) on SQLite \(Connection.sqliteVersion)")
/// ```
public enum Kura {
  /// The version of this library.
  public static let version = "0.1.0"
}
