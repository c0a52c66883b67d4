/// A `.deny` reference of a model, as a push names it for the server to enforce: the
/// referring model's stored name, its property (column) holding the target's id, and the
/// target model's stored name. JSON: `{"model":"Booking","property":"trip","target":"Trip"}`.
struct SyncDenyReference: Sendable, Hashable, Codable {
  /// The referring model's stored name.
  var model: String
  /// The property holding the target's id.
  var property: String
  /// The target model's stored name.
  var target: String
}
