import Foundation
import KuraBase
import KuraStore

// The sync protocol's JSON bodies (version 1, under `/v1/`). JSON rather than a binary format:
// every value already has a lossless text form (see DatabaseValue), the bodies are read by
// PostgreSQL tools and people debugging, and Foundation's coders exist on every platform Kura
// runs on. The hottest bodies (pull pages, saves' changes) are read by `SyncJSONReader`, which
// falls back to `JSONDecoder` for anything out of their usual shape. Documented in
// Kura.docc/SyncingAcrossDevices.md.

/// One local save's changes, numbered by the replica that made it (1, 2, 3, … without gaps):
/// the unit a push sends and the server applies once.
package struct SyncSave: Sendable, Hashable, Codable {
  /// The replica's number for the save.
  package var sequence: Int64
  /// What the save changed.
  package var changes: [SyncChange]
  /// The unique attributes of the models the save changes, which the server arbitrates (sent
  /// with the push, not kept in the outbox; see `SyncUniqueConstraint`).
  package var unique: [SyncUniqueConstraint]? = nil
  /// The `.deny` references of the models the save changes, which the server enforces (sent
  /// with the push, like `unique`; see `SyncDenyReference`).
  package var deny: [SyncDenyReference]? = nil

  /// Creates the value from each of its stored properties.
  package init(
    sequence: Int64, changes: [SyncChange], unique: [SyncUniqueConstraint]? = nil,
    deny: [SyncDenyReference]? = nil
  ) {
    self.sequence = sequence
    self.changes = changes
    self.unique = unique
    self.deny = deny
  }
}

/// `POST /v1/spaces/{space}/push`'s body.
package struct SyncPushRequest: Sendable, Hashable, Codable {
  /// The pushing replica's id (32 lowercase hex digits).
  package var replica: String
  /// Saves in sequence order; the server applies those it has not applied yet.
  package var saves: [SyncSave]
  /// The pushing app's models, which the server learns into the space's catalogue and checks
  /// the saves against (absent from a version that declares none: the saves are then checked
  /// against what other devices declared; see SyncService+Catalog.swift).
  package var schema: [SyncModelDeclaration]? = nil

  /// Creates the value from each of its stored properties.
  package init(replica: String, saves: [SyncSave], schema: [SyncModelDeclaration]? = nil) {
    self.replica = replica
    self.saves = saves
    self.schema = schema
  }
}

/// `POST /v1/spaces/{space}/push`'s answer.
package struct SyncPushResponse: Sendable, Hashable, Codable {
  /// The highest sequence number of this replica the server has applied.
  package var acknowledged: Int64
  /// The space's log position after the push.
  package var head: Int64
  /// The unique values the pushed saves lost to other models (absent when none did), for
  /// saves of this push new and resent alike.
  package var conflicts: [SyncUniqueConflict]? = nil

  /// Creates the value from each of its stored properties.
  package init(acknowledged: Int64, head: Int64, conflicts: [SyncUniqueConflict]? = nil) {
    self.acknowledged = acknowledged
    self.head = head
    self.conflicts = conflicts
  }
}

/// A save as the server's log holds it: its position in the space and who made it.
package struct SyncLoggedSave: Sendable, Hashable, Codable {
  /// The position in the space's log (1, 2, 3, … in commit order).
  package var position: Int64
  /// The replica that made the save.
  package var replica: String
  /// That replica's number for it.
  package var sequence: Int64
  /// What the save changed.
  package var changes: [SyncChange]

  /// Creates the value from each of its stored properties.
  package init(position: Int64, replica: String, sequence: Int64, changes: [SyncChange]) {
    self.position = position
    self.replica = replica
    self.sequence = sequence
    self.changes = changes
  }
}

/// `GET /v1/spaces/{space}/changes?after=N&limit=M`'s answer.
package struct SyncPullResponse: Sendable, Hashable, Codable {
  /// The saves after position N, in position order (at most M).
  package var saves: [SyncLoggedSave]
  /// The space's log position when the answer was read; when the last save's position equals
  /// it, the replica has everything the server had.
  package var head: Int64
  /// Whether the server can hold a pull that asks to `wait` until the space's next push (a
  /// server without long polls leaves it out; see ``SyncPullWaiting``).
  package var longPoll: Bool? = nil
  /// The last save's position (a server of this version sends it first, with the head).
  package var last: Int64? = nil

  /// The most saves one pull returns.
  package static let maximumSaves = 1_000
  /// The most changes one pull returns (a page ends at the save that reaches this many; a
  /// single larger save is sent whole), so a page of large saves stays a few megabytes.
  package static let maximumChanges = 10_000

  /// Creates the value from each of its stored properties.
  package init(saves: [SyncLoggedSave], head: Int64, longPoll: Bool? = nil, last: Int64? = nil) {
    self.saves = saves
    self.head = head
    self.longPoll = longPoll
    self.last = last
  }
}

/// Every error answer's body.
package struct SyncErrorResponse: Sendable, Hashable, Codable {
  /// A stable code: `badRequest`, `unauthorized`, `forbidden`, `notFound`, `methodNotAllowed`,
  /// `tooLarge`, `gap`, `replicaConflict`, `clockAhead`, `unavailable`, `busy` (too many pulls
  /// wait on this server: poll), `refused` (a change contradicts the space's catalogue: see
  /// ``model`` and ``property``), `schemaConflict` (the push's declared models do).
  package var error: String
  /// What failed and what to do, for people.
  package var message: String
  /// For `gap`: the sequence number the server expects next.
  package var expected: Int64?
  /// For `refused` and `schemaConflict`: the model the refused change or declaration concerns.
  package var model: String? = nil
  /// For `refused` and `schemaConflict`: the property it concerns, when it concerns one.
  package var property: String? = nil

  /// Creates the value from each of its stored properties.
  package init(
    error: String, message: String, expected: Int64? = nil, model: String? = nil,
    property: String? = nil
  ) {
    self.error = error
    self.message = message
    self.expected = expected
    self.model = model
    self.property = property
  }
}

/// One model id as the server's folded state holds it (see `GET …/snapshot`): its incarnation,
/// its delete's stamp when it is deleted, and each property's winning value and stamp.
package struct SyncSnapshotRow: Sendable, Hashable, Codable {
  /// A property's winning value and its stamp's text.
  package struct Register: Sendable, Hashable, Codable {
    package var value: DatabaseValue
    package var stamp: String

    private enum CodingKeys: String, CodingKey { case value, stamp }

    package init(value: DatabaseValue, stamp: String) {
      self.value = value
      self.stamp = stamp
    }

    package init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      stamp = try container.decode(String.self, forKey: .stamp)
      value =
        try container.decodeNil(forKey: .value)
        ? .null : try container.decode(DatabaseValue.self, forKey: .value)
    }

  }

  package var model: String
  package var id: String
  package var incarnation: Int64
  /// The delete's stamp text, when the incarnation is deleted.
  package var deleted: String?
  package var properties: [String: Register]

  /// The row as changes that rebuild its state under the merge rule (`nil` for a stamp that
  /// is not one).
  package var changes: [SyncChange]? {
    if let deleted {
      guard let stamp = SyncStamp(text: deleted) else { return nil }
      return [.delete(model, id: id, incarnation: incarnation, stamp: stamp)]
    }
    var changes: [SyncChange] = []
    for (property, register) in properties.sorted(by: { $0.key < $1.key }) {
      guard let stamp = SyncStamp(text: register.stamp) else { return nil }
      changes.append(
        .set(
          model, id: id, incarnation: incarnation, property: property, to: register.value,
          stamp: stamp))
    }
    return changes
  }

  /// Creates the value from each of its stored properties.
  package init(
    model: String, id: String, incarnation: Int64, deleted: String? = nil,
    properties: [String: Register]
  ) {
    self.model = model
    self.id = id
    self.incarnation = incarnation
    self.deleted = deleted
    self.properties = properties
  }
}

/// `GET /v1/spaces/{space}/snapshot?replica=R&model=M&id=I&limit=N`'s answer: the space's
/// folded state in (model, id) order after the key given, for a replica joining a space whose
/// log was compacted, or rebasing after it was away longer than the space keeps its log.
package struct SyncSnapshotResponse: Sendable, Hashable, Codable {
  /// The rows after the key asked for, at most N.
  package var rows: [SyncSnapshotRow]
  /// Whether rows follow the last one.
  package var more: Bool
  /// The log position the state is folded through: pull the log after it once the snapshot
  /// is read.
  package var position: Int64
  /// The highest sequence number of the replica the server applied (its outbox saves up to it
  /// are applied; the others are not).
  package var acknowledged: Int64

  /// The most rows one snapshot page returns.
  package static let maximumRows = 5_000

  /// Creates the value from each of its stored properties.
  package init(rows: [SyncSnapshotRow], more: Bool, position: Int64, acknowledged: Int64) {
    self.rows = rows
    self.more = more
    self.position = position
    self.acknowledged = acknowledged
  }
}
