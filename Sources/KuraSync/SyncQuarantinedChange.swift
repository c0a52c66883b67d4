import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// A change another device sent that this store could not hold, kept in the store's quarantine
/// instead of stopping the pull: a value that doesn't fit this app's schema (a `null` for a
/// property that is not optional, a NaN date, text where an integer belongs, an id that is not
/// a UUID, …), or a new model still missing a property that is neither optional nor defaulted.
///
/// The pull goes on past it: every other change is applied, and so are later changes of the same
/// model. An entry leaves the quarantine by itself when a later pulled change replaces it — a
/// new value of the same property, the model's delete, or (for ``Kind/waiting``) the missing
/// property — so the quarantine lists what is held back now (this store's own saves don't
/// clear it: ``SyncEngine/clearQuarantine()`` does). Read it with ``SyncEngine/quarantine()``; its
/// size is ``SyncStatus/quarantined``, which ``SyncEngine/statusUpdates()`` reports as it
/// changes.
///
/// For example:
///
/// ```swift
/// for entry in try sync.quarantine() {
///   print(entry.model, entry.id, entry.property ?? "-", "from", entry.replica, entry.reason)
/// }
/// ```
public struct SyncQuarantinedChange: Sendable, Hashable {
  /// Why the entry is held.
  ///
  /// For example: `if entry.kind == .waiting { print("not shown yet:", entry.id) }`.
  public enum Kind: String, Sendable, Hashable {
    /// The change doesn't fit this app's schema and was not applied; the model (if this store
    /// has it) keeps its value.
    case refused
    /// A new model's changes were applied to the sync state, but the model lacks
    /// ``SyncQuarantinedChange/property`` (not optional, no default) or its table refused it,
    /// so it is not in its table yet; it appears when a later change completes it.
    case waiting
  }

  /// Why the entry is held.
  public var kind: Kind
  /// The model's stored name, such as `Trip`.
  public var model: String
  /// The model's id as text, as it was sent.
  public var id: String
  /// The property the entry concerns (`nil` for the whole model: its id or its delete).
  public var property: String?
  /// The id of the replica that sent the change (32 hexadecimal digits); for
  /// ``Kind/waiting``, the replica of the model's latest change.
  public var replica: String
  /// What is wrong and what happens next, naming the model, the id and the property.
  public var reason: String
  /// The value as it was sent, as the wire's JSON (`{"integer":"5"}`, `null`, …); for
  /// ``Kind/waiting``, the model's values received so far, as a JSON object by property;
  /// `nil` for a refused delete.
  public var value: String?
  /// When the entry was made.
  public var date: Date
}

extension SyncEngine {
  /// The pulled changes this store could not hold, oldest first; see
  /// ``SyncQuarantinedChange``. The list is empty when every pulled change fit.
  ///
  /// For example:
  ///
  /// ```swift
  /// try await sync.syncNow()
  /// for entry in try sync.quarantine() where entry.kind == .refused {
  ///   print("\(entry.model) \(entry.id): \(entry.reason)")
  /// }
  /// ```
  ///
  /// - Returns: The quarantine's entries.
  /// - Throws: ``StoreError`` when the store can't be read.
  public func quarantine() throws -> [SyncQuarantinedChange] {
    try container.pool.read { try SyncQuarantine.entries($0) }
  }

  /// Forgets the entries ``quarantine()`` lists, once the app has shown or handled them. A
  /// model that still waits for a property is listed again by the next change of it that
  /// leaves it incomplete.
  ///
  /// For example: `try sync.clearQuarantine()`.
  ///
  /// - Throws: ``StoreError`` when the store can't be written.
  public func clearQuarantine() throws {
    try container.pool.write { db in
      try db.run("DELETE FROM kura_sync_quarantine")
    }
    update { $0.quarantined = 0 }
  }
}
