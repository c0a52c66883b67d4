import Foundation
import KuraBase
import KuraStore

/// What a replica knows of one model id: which incarnation it is in, whether that incarnation is
/// deleted, and each property's winning value and stamp — and the merge rule that every replica
/// and the server apply, so that replicas holding the same changes hold the same state.
///
/// The rule, in order:
/// 1. **A higher incarnation wins.** Changes of an older incarnation (edits of a model that was
///    deleted and inserted again since) are ignored.
/// 2. **Within one incarnation, a delete wins** over every property value, whatever the stamps:
///    an edit made concurrently with a delete, on a replica that had not seen the delete, is
///    dropped. (Among deletes of one incarnation the highest stamp is kept.)
/// 3. **Otherwise, per property, the higher stamp wins** (stamps are totally ordered; see
///    ``SyncStamp``).
///
/// The state is a function of the set of changes received — the highest incarnation, whether a
/// delete of it is among them, each property's highest-stamped value in it — so the order,
/// duplication and delay of delivery can't change it.
package struct SyncRecordState: Sendable, Hashable {
  /// A property's winning value and when it was written.
  package struct Register: Sendable, Hashable {
    package var value: DatabaseValue
    package var stamp: SyncStamp

    /// Creates the value from each of its stored properties.
    package init(value: DatabaseValue, stamp: SyncStamp) {
      self.value = value
      self.stamp = stamp
    }
  }

  /// The incarnation this state belongs to (0: nothing known yet).
  package var incarnation: Int64 = 0
  /// The stamp of the incarnation's delete, when it is deleted.
  package var deleted: SyncStamp?
  /// The winning value of each property of the incarnation (empty once deleted).
  package var properties: [String: Register] = [:]

  /// Whether the id is a live model (known and not deleted).
  package var isLive: Bool { incarnation > 0 && deleted == nil }

  /// The highest stamp in the state (its delete's, or its properties').
  package var latestStamp: SyncStamp? {
    if let deleted { return deleted }
    return properties.values.map(\.stamp).max()
  }

  /// Applies one change under the merge rule.
  ///
  /// - Returns: Whether the state changed (`false` for a change that lost or was known).
  @discardableResult
  package mutating func apply(_ change: SyncChange) -> Bool {
    if change.incarnation < incarnation { return false }
    if change.incarnation > incarnation {
      self = SyncRecordState(incarnation: change.incarnation)
    }
    if change.deleted {
      if let deleted, deleted >= change.stamp { return false }
      deleted = change.stamp
      properties = [:]
      return true
    }
    guard deleted == nil, let property = change.property else { return false }
    if let current = properties[property], current.stamp >= change.stamp { return false }
    properties[property] = Register(value: change.value ?? .null, stamp: change.stamp)
    return true
  }

  /// Creates the value from each of its stored properties.
  package init(
    incarnation: Int64 = 0, deleted: SyncStamp? = nil, properties: [String: Register] = [:]
  ) {
    self.incarnation = incarnation
    self.deleted = deleted
    self.properties = properties
  }
}

/// The merged state of many model ids: what one replica (or the server) holds.
package struct SyncMergeState: Sendable, Hashable {
  /// A model id: the model's stored name and the id's text.
  package struct Key: Sendable, Hashable, Comparable {
    package var model: String
    package var id: String

    package static func < (left: Key, right: Key) -> Bool {
      (left.model, left.id) < (right.model, right.id)
    }

    /// Creates the value from each of its stored properties.
    package init(model: String, id: String) {
      self.model = model
      self.id = id
    }
  }

  /// Each id's state.
  package var records: [Key: SyncRecordState] = [:]

  /// Applies changes in the order given.
  ///
  /// - Returns: The ids whose state changed.
  @discardableResult
  package mutating func apply<Changes: Sequence<SyncChange>>(_ changes: Changes) -> Set<Key> {
    var changed = Set<Key>()
    for change in changes {
      let key = Key(model: change.model, id: change.id)
      if records[key, default: SyncRecordState()].apply(change) { changed.insert(key) }
    }
    return changed
  }

  /// Creates the value from each of its stored properties.
  package init(records: [Key: SyncRecordState] = [:]) {
    self.records = records
  }
}
