import Foundation
import KuraBase
import KuraStore

/// One change of one model that travels between replicas: a property's new value, or the
/// model's delete, each with its ``SyncStamp`` and the model's incarnation.
///
/// An id's incarnation starts at 1 and goes up by one each time the id is inserted again after
/// a delete, so a re-insert is never taken for an edit of the deleted model.
///
/// On the wire (JSON): `{"model":"Trip","id":"…","incarnation":1,"stamp":"…",
/// "property":"name","value":{"text":"Kyoto"}}`, or with `"deleted":true` and no property.
package struct SyncChange: Sendable, Hashable, Codable {
  /// The model's stored name (its table's model name, such as `Trip`).
  package var model: String
  /// The model's id as text (as the store's history writes it).
  package var id: String
  /// Which life of the id this change belongs to.
  package var incarnation: Int64
  /// When and where the change was made.
  package var stamp: SyncStamp
  /// The property (column) set; `nil` for a delete.
  package var property: String?
  /// The property's new value; `nil` for a delete.
  package var value: DatabaseValue?
  /// Whether this is the model's delete.
  package var deleted: Bool

  /// A property set to a value.
  package static func set(
    _ model: String, id: String, incarnation: Int64, property: String, to value: DatabaseValue,
    stamp: SyncStamp
  ) -> SyncChange {
    SyncChange(
      model: model, id: id, incarnation: incarnation, stamp: stamp, property: property,
      value: value, deleted: false)
  }

  /// The model's delete.
  package static func delete(_ model: String, id: String, incarnation: Int64, stamp: SyncStamp)
    -> SyncChange
  {
    SyncChange(
      model: model, id: id, incarnation: incarnation, stamp: stamp, property: nil, value: nil,
      deleted: true)
  }

  private enum CodingKeys: String, CodingKey {
    case model, id, incarnation, stamp, property, value, deleted
  }

  package init(
    model: String, id: String, incarnation: Int64, stamp: SyncStamp, property: String?,
    value: DatabaseValue?, deleted: Bool
  ) {
    self.model = model
    self.id = id
    self.incarnation = incarnation
    self.stamp = stamp
    self.property = property
    self.value = value
    self.deleted = deleted
  }

  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    model = try container.decode(String.self, forKey: .model)
    id = try container.decode(String.self, forKey: .id)
    incarnation = try container.decode(Int64.self, forKey: .incarnation)
    let stampText = try container.decode(String.self, forKey: .stamp)
    guard let stamp = SyncStamp(text: stampText) else {
      throw DecodingError.dataCorruptedError(
        forKey: .stamp, in: container,
        debugDescription: "a stamp is 12 hex digits, '-', 4 hex digits, '-', 32 hex digits")
    }
    self.stamp = stamp
    deleted = try container.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
    if deleted {
      property = nil
      value = nil
    } else {
      property = try container.decode(String.self, forKey: .property)
      // A present `"value": null` is the value null; a missing one is an error.
      guard container.contains(.value) else {
        throw DecodingError.keyNotFound(
          CodingKeys.value, .init(codingPath: container.codingPath, debugDescription: "value"))
      }
      value =
        try container.decodeNil(forKey: .value)
        ? .null : try container.decode(DatabaseValue.self, forKey: .value)
    }
    guard !model.isEmpty, !id.isEmpty, incarnation >= 1, property.map({ !$0.isEmpty }) ?? true
    else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: container.codingPath,
          debugDescription: "model, id and property are not empty; incarnation is 1 or more"))
    }
  }

  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(model, forKey: .model)
    try container.encode(id, forKey: .id)
    try container.encode(incarnation, forKey: .incarnation)
    try container.encode(stamp.text, forKey: .stamp)
    if deleted {
      try container.encode(true, forKey: .deleted)
    } else {
      try container.encode(property, forKey: .property)
      try container.encode(value ?? .null, forKey: .value)
    }
  }
}
