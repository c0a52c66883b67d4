import Foundation
import KuraBase
import KuraStore

/// Why syncing failed: the server can't be reached, refused the token or the changes, or
/// answered something that is not the sync protocol.
///
/// Nothing is lost when a sync fails: the local saves stay in the outbox and are sent again on
/// the next attempt.
///
/// For example:
///
/// ```swift
/// do {
///   try await sync.syncNow()
/// } catch let error as SyncError where error.code == .unauthorized {
///   print("sign in again:", error.message)
/// }
/// ```
public struct SyncError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What kind of failure it is.
  ///
  /// For example: `if error.code == .offline { showOfflineBadge() }`.
  public enum Code: String, Sendable, Hashable {
    /// The server can't be reached (no network, server down, timeout): retried with back-off.
    case offline
    /// The server's TLS certificate is not trusted here: add it (or the CA that signed it) to
    /// the system's trust store; retried with back-off.
    case untrustedServer
    /// The server refused the token (missing, unknown, expired or revoked: HTTP 401) or the
    /// space (HTTP 403): not retried until the settings change or ``SyncEngine/syncNow()``.
    case unauthorized
    /// The server refused the changes (HTTP 4xx): they stay in the outbox; see ``message``.
    case rejected
    /// The server failed (HTTP 5xx) or answered something that is not the sync protocol.
    case serverError
    /// A save in the local outbox is damaged; it is not sent.
    case damagedOutbox
    /// The store can't sync: it is not an SQLite store, or it is read-only.
    case unsupportedStore
  }

  /// What kind of failure it is.
  public var code: Code
  /// What failed and what to do.
  public var message: String
  /// The HTTP status of the server's answer, when there was one.
  public var status: Int?
  /// The error underneath, when there is one (such as the transport's or the local store's).
  /// Not compared by `==`.
  ///
  /// For example: `if let store = error.underlying as? StoreError { print(store.code) }`.
  public var underlying: (any Error)?
  /// The error code in the server's answer (such as `schemaConflict`), when it sent one.
  package var serverCode: String? = nil

  /// Creates an error.
  ///
  /// For example: `SyncError(.offline, message: "Can't reach the sync server.")`.
  ///
  /// - Parameters:
  ///   - code: The kind of failure.
  ///   - message: What failed and what to do.
  ///   - status: The HTTP status, if any.
  ///   - underlying: The error underneath, if any.
  public init(_ code: Code, message: String, status: Int? = nil, underlying: (any Error)? = nil) {
    self.code = code
    self.message = message
    self.status = status
    self.underlying = underlying
  }

  /// Whether two errors are the same failure: every property but ``underlying``.
  ///
  /// For example: `if error == other { print("the same failure") }`.
  ///
  /// - Parameters:
  ///   - lhs: An error.
  ///   - rhs: Another error.
  /// - Returns: Whether they are equal.
  public static func == (lhs: SyncError, rhs: SyncError) -> Bool {
    lhs.code == rhs.code && lhs.message == rhs.message && lhs.status == rhs.status
  }

  /// Hashes every property but ``underlying``, as `==` compares them.
  ///
  /// For example: `let failures: Set<SyncError> = [error]`.
  ///
  /// - Parameter hasher: The hasher.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(message)
    hasher.combine(status)
  }

  /// The message.
  public var description: String { message }

  /// The error for a server answer that is not the JSON of a push or pull answer: the URL
  /// reaches something that isn't `kura sync serve` (a proxy's page, another service), or one
  /// of another version.
  package static func notAnAnswer(to request: String, from server: URL?) -> SyncError {
    let place = server.map { " at \($0.absoluteString)" } ?? ""
    return SyncError(
      .serverError,
      message:
        "The sync server\(place) answered a \(request) with something that is not a \(request) "
        + "answer of Kura's sync protocol (version 1). Check that the settings' server URL "
        + "names a `kura sync serve` of this version, not a proxy or another service; local "
        + "saves are kept.")
  }
}
