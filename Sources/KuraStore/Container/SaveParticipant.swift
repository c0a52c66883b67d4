import Foundation
import KuraBase
import KuraSQLite

/// A part of Kura above the model store that records each save inside the save's own
/// transaction (sync's outbox: ``SyncSettings``): it sees the save's change set and writes its
/// own rows on the same connection, so they commit together or not at all. The store names
/// only this protocol, never the part that conforms to it.
package protocol SaveParticipant: Sendable {
  /// Records `changeSet`, the save's changes, on `db`, inside the save's write transaction;
  /// throwing rolls the whole save back.
  func recordSave(_ changeSet: ChangeSet, container: ModelContainer, db: StoreConnection) throws

  /// Prepares what the participant keeps in the store (sync: its tables and the replica id),
  /// once, at the end of the container's open — only for a writable store: a read-only
  /// container never saves, so it never calls this (nor ``recordSave(_:container:db:)``).
  /// Throwing fails the open.
  func prepare(_ container: ModelContainer) throws

  /// Whether `other` is the same participant configured the same way.
  func isSame(as other: any SaveParticipant) -> Bool

  /// The last history token a save's trim may delete through (`nil`: no limit), read on `db`
  /// inside the save's transaction only when the retention would delete rows: the participant
  /// still reads the history after it (sync records saves from it when it next sends).
  func keptHistory(_ db: StoreConnection) throws -> Int64?

  /// Hashes what configures the participant.
  func hash(into hasher: inout Hasher)
}

extension SaveParticipant {
  /// No limit: a participant that reads no history keeps none.
  package func keptHistory(_ db: StoreConnection) throws -> Int64? { nil }
}

/// A configuration's ``SaveParticipant``, compared and hashed by what configures it (so
/// ``ModelConfiguration`` stays `Hashable`).
package struct ConfiguredSaveParticipant: Sendable, Hashable {
  /// The participant.
  package let participant: any SaveParticipant

  package static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.participant.isSame(as: rhs.participant)
  }

  package func hash(into hasher: inout Hasher) { participant.hash(into: &hasher) }

  /// Creates the value from each of its stored properties.
  package init(participant: any SaveParticipant) {
    self.participant = participant
  }
}
