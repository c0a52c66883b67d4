import Foundation
import KuraBase
import KuraStore

// The server arbitrates unique attributes (`.unique(\.name)`): a local unique index can only
// keep one store from holding a value twice, not two devices that saved offline. The client
// names its models' unique attributes in each push (`SyncSave.unique`); the server keeps, per
// space, which model id holds each value (its claims table) and the merged value of each
// unique property, so that exactly one model holds a value in a space. A save whose model
// would hold a value another model holds loses it: see `SyncUniqueConflict`.

/// A model's unique attribute as a push names it: the model's stored name and the properties
/// (columns) whose values are unique together.
///
/// On the wire: `{"model":"Trip","properties":["name"]}`.
package struct SyncUniqueConstraint: Sendable, Hashable, Codable {
  /// The model's stored name.
  package var model: String
  /// The properties, in the order declared.
  package var properties: [String]

  /// The constraint's name in the server's claims table: its properties joined by commas.
  package var name: String { properties.joined(separator: ",") }

  /// Creates the value from each of its stored properties.
  package init(model: String, properties: [String]) {
    self.model = model
    self.properties = properties
  }
}

/// A unique value a pushed model lost: another model of the space held it first.
///
/// What the loser's device does with it depends on ``restored``:
/// - **An id the server never accepted** (a model inserted on this device, typically offline):
///   ``restored`` is `nil` and the server refuses every change of that id's incarnation — now
///   and in later saves — so no other replica ever sees it. The device moves the row out of
///   its table into its conflicts list, whole, with ``existingID``; the app reads it there and
///   inserts it again with another value, or merges it into the winner, and clears it.
/// - **A model the server had accepted with another value** (a rename to a taken value): the
///   server drops only the save's changes to the constraint's properties; ``restored`` holds
///   the values (and stamps) the server keeps for them, which the device writes back into its
///   row, listing the lost value in its conflicts.
package struct SyncUniqueConflict: Sendable, Hashable, Codable {
  /// The pushing replica's number of the save that lost.
  package var sequence: Int64
  /// The losing model's stored name.
  package var model: String
  /// The losing model's id.
  package var id: String
  /// Which life of the id lost.
  package var incarnation: Int64
  /// The unique attribute's properties.
  package var properties: [String]
  /// The values it wanted, one per property.
  package var values: [DatabaseValue]
  /// The id of the model that holds the values.
  package var existingID: String
  /// The server's values of the properties, for a model it had accepted with other values;
  /// `nil` when the id was never accepted (the row is set aside). For a denied delete: all
  /// the model's values on the server.
  package var restored: [SyncChange]?
  /// `denied` for a delete the server refused (a live model refers to the deleted one through
  /// a `.deny` reference: `referrer` names its model, ``existingID`` its id; empty for a
  /// delete of the same save refused with it); `nil` for a unique value lost.
  package var kind: String? = nil
  /// The referring model's stored name, for a denied delete.
  package var referrer: String? = nil

  /// Creates the value from each of its stored properties.
  package init(
    sequence: Int64, model: String, id: String, incarnation: Int64, properties: [String],
    values: [DatabaseValue], existingID: String, restored: [SyncChange]?, kind: String? = nil,
    referrer: String? = nil
  ) {
    self.sequence = sequence
    self.model = model
    self.id = id
    self.incarnation = incarnation
    self.properties = properties
    self.values = values
    self.existingID = existingID
    self.restored = restored
    self.kind = kind
    self.referrer = referrer
  }
}

extension DatabaseValue {
  /// The value as a unique attribute compares it: text in Unicode canonical composition (so
  /// strings Swift's `==` finds equal claim one value), everything else as it is.
  package var uniqueForm: DatabaseValue {
    guard case .text(let text) = self else { return self }
    return .text(text.precomposedStringWithCanonicalMapping)
  }
}

extension Array where Element == DatabaseValue {
  /// The values' key in the server's claims table: their JSON, texts in canonical composition.
  package var claimKey: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let data = (try? encoder.encode(map(\.uniqueForm))) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }
}
