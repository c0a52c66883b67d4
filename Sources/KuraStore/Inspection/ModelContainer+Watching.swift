import Foundation
import KuraBase
import KuraSQLite

extension ModelContainer {
  /// A container of no model types on a store as found, that never writes it: for watching its
  /// change feed (``changeSets()``) and reading its history without the app's types
  /// (`kura studio`).
  ///
  /// - Parameter configuration: Where the store is; it is opened read-only whatever
  ///   ``ModelConfiguration/allowsSave`` says.
  /// - Throws: ``StoreError`` when the store can't be opened.
  package static func watching(_ configuration: ModelConfiguration) throws -> ModelContainer {
    var configuration = configuration
    configuration.allowsSave = false
    return try ModelContainer(models: [], configurations: [configuration], migration: nil)
  }
}
