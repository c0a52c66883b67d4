import KuraBase
import KuraStore

/// A `.deny` reference of a model, as a push names it for the server to enforce: the
/// referring model's stored name, its property (column) holding the target's id, and the
/// target model's stored name. JSON: `{"model":"Booking","property":"trip","target":"Trip"}`.
package struct SyncDenyReference: Sendable, Hashable, Codable {
  /// The referring model's stored name.
  package var model: String
  /// The property holding the target's id.
  package var property: String
  /// The target model's stored name.
  package var target: String

  /// Creates the value from each of its stored properties.
  package init(model: String, property: String, target: String) {
    self.model = model
    self.property = property
    self.target = target
  }
}
