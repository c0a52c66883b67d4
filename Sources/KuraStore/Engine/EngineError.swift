import Foundation
import KuraBase
import KuraSQLite

/// An error of a database driver under a store engine (``StoreEngine``): each engine conforms
/// its driver's error type, in its own folder, saying which ``EngineFailure`` an error is, so
/// the store reacts to a constraint violation, a busy database or a lost connection without
/// naming the driver.
package protocol EngineError: Error {
  /// What kind of failure this is, in the words every engine shares.
  var failure: EngineFailure { get }
  /// The SQL that failed, when a statement did.
  var failedSQL: String? { get }
}

/// The kinds of engine failure the store acts on (``EngineError``).
package enum EngineFailure: Sendable, Hashable {
  /// A unique, foreign-key, not-null or check constraint refused a change.
  case constraintViolation
  /// The database was busy or locked by another connection past the wait.
  case busy
  /// The connection to the database broke (a server restarted, a network failed).
  case connectionLost
  /// The database can't be written (a read-only file, a read-only server).
  case readOnly
  /// The database can't be opened or reached.
  case cannotOpen
  /// A concurrent transaction's change ended the statement (a serialization failure or a
  /// deadlock), not the transaction's outcome.
  case concurrentChange
  /// Anything else the engine reported.
  case other

  /// The failure `error` is, or `nil` when it is not an engine's error (but Kura's or the app's).
  package init?(of error: any Error) {
    guard let error = error as? any EngineError else { return nil }
    self = error.failure
  }

  /// Whether `error` comes from an engine (its connection or statements) rather than from Kura
  /// or the app's code.
  package static func isEngineError(_ error: any Error) -> Bool { error is any EngineError }
}
