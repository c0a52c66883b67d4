import Foundation
import KuraBase
import KuraStore

// A device declares its models' schema in each push (`SyncPushRequest.schema`); the server keeps
// what the devices of a space declared as the space's catalogue (SyncService+Catalog.swift) and
// refuses a declaration or a change that contradicts it. Optional on the wire: a push from a
// version that declares nothing is checked against the catalogue the others declared.

/// One model as a device declares it in a push: its stored name, its id's kind, its properties
/// (kind, optionality, default, reference), and its unique attributes.
///
/// On the wire: `{"model":"Activity","id":"uuid","properties":[{"name":"trip","kind":"uuid",
/// "optional":false,"target":"Trip","rule":"cascade"}, …],"unique":[["name"]]}`.
package struct SyncModelDeclaration: Sendable, Hashable, Codable {
  /// One stored property (column) other than the id.
  package struct Property: Sendable, Hashable, Codable {
    /// The property's stored name.
    package var name: String
    /// Its kind: a ``ColumnKind`` raw value (`integer`, `real`, `text`, `blob`, `bool`, `date`,
    /// `uuid`, `url`, `json`).
    package var kind: String
    /// Whether it may be `null`.
    package var optional: Bool
    /// Whether the model declares a default for it (a replica stores the default when a change
    /// from an app version without the property leaves it out).
    package var defaulted: Bool? = nil
    /// For a reference: the target model's stored name.
    package var target: String? = nil
    /// For a reference: its delete rule (`cascade`, `nullify`, `deny`, `noAction`).
    package var rule: String? = nil

    /// Whether a new model must carry a value of it.
    package var isRequired: Bool { !optional && defaulted != true }

    /// Creates the value from each of its stored properties.
    package init(
      name: String, kind: String, optional: Bool, defaulted: Bool? = nil, target: String? = nil,
      rule: String? = nil
    ) {
      self.name = name
      self.kind = kind
      self.optional = optional
      self.defaulted = defaulted
      self.target = target
      self.rule = rule
    }
  }

  /// The model's stored name.
  package var model: String
  /// The id's kind (a ``ColumnKind`` raw value).
  package var id: String
  /// The properties but the id, in name order.
  package var properties: [Property]
  /// The unique attributes: each the properties whose values are unique together.
  package var unique: [[String]]? = nil

  /// The property named `name`.
  package func property(_ name: String) -> Property? {
    properties.first { $0.name == name }
  }

  /// The same declaration in the order the catalogue keeps and compares: properties by name,
  /// unique attributes sorted (each keeping its properties' order).
  package var normalized: SyncModelDeclaration {
    var copy = self
    copy.properties.sort { $0.name < $1.name }
    let unique = (unique ?? []).filter { !$0.isEmpty }
      .sorted { $0.joined(separator: ",") < $1.joined(separator: ",") }
    copy.unique = unique.isEmpty ? nil : unique
    return copy
  }

  /// Creates the value from each of its stored properties.
  package init(model: String, id: String, properties: [Property], unique: [[String]]? = nil) {
    self.model = model
    self.id = id
    self.properties = properties
    self.unique = unique
  }
}
