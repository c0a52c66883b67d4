import Foundation

// The sync protocol's JSON bodies (version 1, under `/v1/`). JSON rather than a binary format:
// every value already has a lossless text form (see SyncValue), the bodies are read by
// PostgreSQL tools and people debugging, and Foundation's coders exist on every platform Kura
// runs on. Documented in Kura.docc/SyncingAcrossDevices.md.

/// One local save's changes, numbered by the replica that made it (1, 2, 3, … without gaps):
/// the unit a push sends and the server applies once.
struct SyncSave: Sendable, Hashable, Codable {
  /// The replica's number for the save.
  var sequence: Int64
  /// What the save changed.
  var changes: [SyncChange]
  /// The unique attributes of the models the save changes, which the server arbitrates (sent
  /// with the push, not kept in the outbox; see `SyncUniqueConstraint`).
  var unique: [SyncUniqueConstraint]? = nil
}

/// `POST /v1/spaces/{space}/push`'s body.
struct SyncPushRequest: Sendable, Hashable, Codable {
  /// The pushing replica's id (32 lowercase hex digits).
  var replica: String
  /// Saves in sequence order; the server applies those it has not applied yet.
  var saves: [SyncSave]
}

/// `POST /v1/spaces/{space}/push`'s answer.
struct SyncPushResponse: Sendable, Hashable, Codable {
  /// The highest sequence number of this replica the server has applied.
  var acknowledged: Int64
  /// The space's log position after the push.
  var head: Int64
  /// The unique values the pushed saves lost to other models (absent when none did), for
  /// saves of this push new and resent alike.
  var conflicts: [SyncUniqueConflict]? = nil
}

/// A save as the server's log holds it: its position in the space and who made it.
struct SyncLoggedSave: Sendable, Hashable, Codable {
  /// The position in the space's log (1, 2, 3, … in commit order).
  var position: Int64
  /// The replica that made the save.
  var replica: String
  /// That replica's number for it.
  var sequence: Int64
  /// What the save changed.
  var changes: [SyncChange]
}

/// `GET /v1/spaces/{space}/changes?after=N&limit=M`'s answer.
struct SyncPullResponse: Sendable, Hashable, Codable {
  /// The saves after position N, in position order (at most M).
  var saves: [SyncLoggedSave]
  /// The space's log position when the answer was read; when the last save's position equals
  /// it, the replica has everything the server had.
  var head: Int64
}

/// Every error answer's body.
struct SyncErrorResponse: Sendable, Hashable, Codable {
  /// A stable code: `badRequest`, `unauthorized`, `forbidden`, `notFound`, `methodNotAllowed`,
  /// `tooLarge`, `gap`, `replicaConflict`, `clockAhead`, `unavailable`.
  var error: String
  /// What failed and what to do, for people.
  var message: String
  /// For `gap`: the sequence number the server expects next.
  var expected: Int64?
}
