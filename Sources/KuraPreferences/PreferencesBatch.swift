import Foundation
import KuraBase
import KuraSQLite

/// Reads and writes inside one write transaction of a suite: see ``Preferences/batch(_:)``.
///
/// Reads see the file as it is in the transaction (other processes' latest writes and this
/// batch's own), not the in-memory copy, so a read-modify-write here is atomic across processes.
///
/// For example:
///
/// ```swift
/// try preferences.batch { batch in
///   batch[.sortOption] = .date
///   batch[.launchCount] = batch[.launchCount] + 1
/// }
/// ```
public final class PreferencesBatch {
  package let connection: Connection
  package let version: Int64
  package let suiteName: String
  package var changes: [String: PreferenceValue?] = [:]
  package var firstError: (any Error)?

  package init(connection: Connection, version: Int64, suiteName: String) {
    self.connection = connection
    self.version = version
    self.suiteName = suiteName
  }

  /// A key's value as stored in the file now, or its default; setting it stores (`nil` removes)
  /// the value when the batch commits. A stored value that can't be read (or that does not
  /// decode as the key's type), or a value that can't be encoded, makes the batch throw (rolling
  /// back every write of the batch), so a read-modify-write never replaces what it could not
  /// read.
  ///
  /// For example: `batch[.launchCount] = batch[.launchCount] + 1`.
  ///
  /// - Parameter key: The key.
  public subscript<Value>(key: Preferences.Key<Value>) -> Value {
    get {
      do {
        guard let stored = try storedValue(forKey: key.name) else { return key.defaultValue }
        guard let decoded = key.decode(stored) else {
          throw PreferencesError.undecodableValue(
            key: key.name, suite: suiteName, storedType: stored.typeName,
            expectedType: "\(Value.self)")
        }
        return decoded
      } catch {
        // A failed read must not turn into a silent overwrite with the default: the batch
        // remembers the error and `batch {}` throws it, rolling every write back.
        if firstError == nil { firstError = error }
        return key.defaultValue
      }
    }
    set {
      do {
        try set(newValue, for: key)
      } catch {
        if firstError == nil { firstError = error }
      }
    }
  }

  /// Stores a value (`nil` removes the key) when the batch commits.
  ///
  /// For example: `try batch.set(.date, for: .sortOption)`.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - key: The key.
  /// - Throws: ``PreferencesError/Code/cannotEncode`` or an SQLite error.
  public func set<Value>(_ value: Value, for key: Preferences.Key<Value>) throws {
    try setValue(try key.encode(value), forKey: key.name)
  }

  /// Removes a key's value when the batch commits.
  ///
  /// For example: `try batch.remove(.sortOption)`.
  ///
  /// - Parameter key: The key.
  /// - Throws: An SQLite error.
  public func remove<Value>(_ key: Preferences.Key<Value>) throws {
    try setValue(nil, forKey: key.name)
  }

  /// The stored value of any key, whatever its type; `nil` when none is stored.
  ///
  /// For example: `let raw = try batch.storedValue(forKey: "sortOption")`.
  ///
  /// - Parameter name: The key's name.
  /// - Returns: The stored value.
  /// - Throws: ``PreferencesError/Code/unreadableValue`` when a value
  ///   is stored that this version can't read, or an SQLite error.
  public func storedValue(forKey name: String) throws -> PreferenceValue? {
    do {
      return try PreferenceTable.value(connection, name: name)
    } catch let unreadable as PreferenceTable.Unreadable {
      throw PreferencesError.unreadableValue(
        key: name, suite: suiteName, storedType: unreadable.storedType, reason: unreadable.reason)
    }
  }

  /// Stores (or, with `nil`, removes) a raw value under a key name.
  ///
  /// For example: `try batch.setValue(.integer(3), forKey: "launchCount")`.
  ///
  /// - Parameters:
  ///   - value: The value, or `nil` to remove the key.
  ///   - name: The key's name.
  /// - Throws: An SQLite error.
  public func setValue(_ value: PreferenceValue?, forKey name: String) throws {
    if let value {
      try PreferenceTable.put(connection, name: name, value: value, version: version)
      changes[name] = .some(value)
    } else if try PreferenceTable.remove(connection, name: name, version: version) {
      changes[name] = .some(nil)
    }
  }
}
