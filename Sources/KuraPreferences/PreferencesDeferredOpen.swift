import Foundation
import KuraBase
import KuraSQLite
import Synchronization

/// The standard suite of an app whose file could not be opened when ``Preferences/standard`` was
/// first used (an unwritable folder, a file locked by another process past the busy timeout).
///
/// Nothing is kept in memory in its place: until the file opens, reads give registered defaults
/// and key defaults, and every write tries to open the file again first — it is stored when that
/// works and fails (throwing, or through ``Preferences/lastWriteError``) when it does not. Once
/// a write has opened the file, the suite serves every call from it.
package final class PreferencesDeferredOpen: Sendable {
  /// The suite's name (the app identifier, as far as it is known).
  package let suiteName: String
  private let openFile: @Sendable () throws -> Preferences
  private let opened = Mutex<Preferences?>(nil)

  package init(suiteName: String, openFile: @escaping @Sendable () throws -> Preferences) {
    self.suiteName = suiteName
    self.openFile = openFile
  }

  /// The file's suite for a write: opened now if it was not yet.
  ///
  /// - Throws: ``PreferencesError/Code/cannotOpen`` when it still can't be opened (or
  ///   ``PreferencesError/Code/invalidSuiteName`` for an unusable app identifier).
  package func suiteForWriting(registeredDefaults: [String: PreferenceValue]) throws -> Preferences
  {
    if let suite = opened.withLock({ $0 }) { return suite }
    return try open(registeredDefaults: registeredDefaults)
  }

  /// The file's suite for a read, once a write has opened it; `nil` until then. (A read does
  /// not try to open the file: that could block it for the busy timeout.)
  package func suiteForReading() -> Preferences? {
    opened.withLock { $0 }
  }

  private func open(registeredDefaults: [String: PreferenceValue]) throws -> Preferences {
    let suite: Preferences
    do {
      suite = try openFile()
    } catch let error as PreferencesError {
      throw error
    } catch let error as LocationError {
      throw PreferencesError.invalidSuiteName(
        suite: suiteName, reason: Preferences.reason(error), underlying: error)
    }
    return opened.withLock { opened in
      if let existing = opened { return existing }
      if !registeredDefaults.isEmpty { suite.registerDefaults(registeredDefaults) }
      opened = suite
      return suite
    }
  }
}
