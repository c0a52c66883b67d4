import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// Where a ``SyncEngine`` stands: what it is doing, how many local saves the server has not
/// acknowledged yet, and when an exchange last succeeded.
///
/// "Up to date" is ``phase`` ``Phase/idle`` with ``pending`` 0: the server has every local
/// save and this store has every save the server had at the last exchange.
///
/// For example:
///
/// ```swift
/// let status = sync.status
/// print(status.phase, status.pending, status.lastSuccess as Any)
/// ```
public struct SyncStatus: Sendable, Hashable {
  /// What the engine is doing.
  ///
  /// For example: `if case .failing(let reason) = status.phase { print(reason) }`.
  public enum Phase: Sendable, Hashable {
    /// Not exchanging; the last exchange succeeded (or none was tried yet).
    case idle
    /// Sending local saves or receiving others'.
    case syncing
    /// The server can't be reached; retried with back-off.
    case offline
    /// The server refused (a token, a space, the changes) or failed; the reason says which and
    /// what to do.
    case failing(String)
  }

  /// What the engine is doing.
  public var phase: Phase
  /// Local saves the server has not acknowledged yet.
  public var pending: Int
  /// When an exchange last succeeded (everything sent and received).
  public var lastSuccess: Date?
  /// Why the last exchange failed, while ``phase`` is ``Phase/offline`` or
  /// ``Phase/failing(_:)`` (`nil` after a success): match its ``SyncError/code``, such as
  /// ``SyncError/Code/unauthorized`` for an expired or revoked token.
  ///
  /// For example: `if status.failure?.code == .unauthorized { askForANewToken() }`.
  public var failure: SyncError?
  /// How many pulled changes this store could not hold and keeps in its quarantine (see
  /// ``SyncEngine/quarantine()``); 0 when every pulled change fit.
  ///
  /// For example: `if status.quarantined > 0 { showQuarantine(try sync.quarantine()) }`.
  public var quarantined = 0

  /// Creates a status.
  ///
  /// For example: `SyncStatus(phase: .idle, pending: 0, lastSuccess: nil)`.
  ///
  /// - Parameters:
  ///   - phase: What the engine is doing.
  ///   - pending: Unacknowledged local saves.
  ///   - lastSuccess: When an exchange last succeeded.
  ///   - failure: Why the last exchange failed, if it did.
  ///   - quarantined: How many pulled changes wait in the quarantine.
  public init(
    phase: Phase, pending: Int, lastSuccess: Date?, failure: SyncError? = nil,
    quarantined: Int = 0
  ) {
    self.phase = phase
    self.pending = pending
    self.lastSuccess = lastSuccess
    self.failure = failure
    self.quarantined = quarantined
  }
}

/// A value this store had saved and the server had not acknowledged yet, that did not win: a
/// later value of another replica (per-property last writer wins), or a unique value another
/// model held first (see ``Kind``).
///
/// For example:
///
/// ```swift
/// for conflict in try sync.conflicts() {
///   print(conflict.model, conflict.id, conflict.property ?? "", conflict.lostValue)
/// }
/// ```
public struct SyncConflict: Sendable, Hashable {
  /// Why the local value did not win.
  ///
  /// For example: `if conflict.kind == .setAside { offerToRename(conflict) }`.
  public enum Kind: String, Sendable, Hashable {
    /// Another replica wrote the property later; its value is the model's now.
    case laterValue
    /// The model's unique value (``property``) is held by another model (``existingID``): the
    /// server kept this model's former value, which it has again.
    case uniqueValue
    /// The model was inserted here with a unique value another model (``existingID``) held
    /// first: the server refused it, so it was moved out of its table; ``keptValues`` holds
    /// all its values. Insert it again with another value, or merge it into the other model.
    case setAside
    /// The model referred through a `.deny` reference to a model another replica deleted: the
    /// delete stands (the server is the truth), so this model was deleted too; ``existingID``
    /// is the deleted model's id (when known) and ``keptValues`` holds all its values.
    case targetDeleted
  }

  /// Why the local value did not win.
  public var kind: Kind = .laterValue
  /// For a unique value: the id of the model that holds it (for ``Kind/targetDeleted``: the
  /// deleted model's id).
  public var existingID: String?
  /// For a model set aside or deleted by a `.deny` reference's target: its stored values, as a JSON object of property names to values
  /// (`{"id":{"text":"…"},"name":{"text":"Kyoto"}}`).
  public var keptValues: String?
  /// The model's stored name, such as `Trip`.
  public var model: String
  /// The model's id as text.
  public var id: String
  /// The property whose local value lost (for a unique attribute of several properties, their
  /// names joined by commas).
  public var property: String?
  /// The lost value, as JSON (`{"text":"Kyoto"}`, `{"integer":"3"}`, `null`, …; an array of
  /// values for a unique attribute of several properties).
  public var lostValue: String
  /// When the conflict was found.
  public var date: Date
}
