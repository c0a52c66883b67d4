import Foundation

extension StoreEngine {
  /// The engine keeps names of any length.
  var longestName: Int? { nil }

  /// The engine keeps names of any length: nothing to refuse.
  func refuseNamesTooLong(_ schemas: [ModelSchema], url: URL?) throws {}
}
