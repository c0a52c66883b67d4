import Foundation
import KuraBase
import KuraStore

extension StoreError {
  /// Wraps a PostgreSQL error met while using the store at `url` (a PostgreSQL store's
  /// password-free URL): connection failures become ``Code/cannotOpen``, a connection lost
  /// mid-transaction ``Code/connectionLost``, one lost while committing
  /// ``Code/commitOutcomeUnknown``; the message names the database and server, never a secret.
  package static func wrapping(postgres error: PostgresError, url: URL?, doing action: String)
    -> StoreError
  {
    let store = storeLabel(url)
    switch error.code {
    case .connectionFailed, .authenticationFailed, .databaseMissing, .invalidLocation:
      return StoreError(
        .cannotOpen, url: url, sql: error.sql, underlying: error,
        message: "Can't \(action) store \(store): \(error)")
    case .connectionLost where error.isCommitOutcomeUnknown:
      return StoreError(
        .commitOutcomeUnknown, url: url, sql: error.sql, underlying: error,
        message:
          "Can't tell whether the work to \(action) store \(store) was saved: the connection to "
          + "the server broke while it was committing (\(error.message)). It may or may not "
          + "have been saved; read the data back before retrying.")
    case .connectionLost:
      return StoreError(
        .connectionLost, url: url, sql: error.sql, underlying: error,
        message:
          "Can't \(action) store \(store): the connection to the server broke "
          + "(\(error.message)). Nothing of this work was written; the next call connects "
          + "again, so retry it.")
    case .serializationFailure, .deadlock:
      return StoreError(
        .engine, url: url, sql: error.sql, underlying: error,
        message:
          "Can't \(action) store \(store): the server ended the transaction because it "
          + "conflicted with another one (\(error.message)). Nothing of it was written; retry it.")
    default:
      return StoreError(
        .engine, url: url, sql: error.sql, underlying: error,
        message: "Can't \(action) store \(store): \(error).")
    }
  }
}

extension PostgresError: StoreWrappableError {
  package func storeError(url: URL?, doing action: String) -> StoreError {
    StoreError.wrapping(postgres: self, url: url, doing: action)
  }
}
