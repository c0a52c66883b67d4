import Foundation
import KuraBase

/// Makes the configuration of a store that a URL of another engine names (`postgresql://…`), for
/// the calls that take a URL (``StoreInspector/init(url:)``, ``StoreMigration``). The engine's
/// module declares the conforming type; the store finds it at run time by its name, so it names
/// no engine type and works when the app links that module.
package protocol ExternalStoreFactory {
  /// The configuration of the store `url` names.
  static func configuration(for url: URL) -> ModelConfiguration
}

/// The engines outside the store that a URL can name.
package enum ExternalEngines {
  /// The configuration of the store at `url` when its scheme names another engine, `nil` for a
  /// file; throws when that engine's module is not linked into the program.
  package static func configuration(for url: URL, doing action: String) throws
    -> ModelConfiguration?
  {
    guard url.isPostgresURL else { return nil }
    // KuraPostgreSQL.PostgresExternalStoreFactory, by its mangled name: Swift's runtime finds the
    // type in any module linked into the program.
    guard
      let factory = _typeByName("14KuraPostgreSQL28PostgresExternalStoreFactoryV")
        as? any ExternalStoreFactory.Type
    else {
      throw StoreError(
        .cannotOpen,
        message:
          "Can't \(action) the PostgreSQL store: this program does not link Kura's PostgreSQL "
          + "engine. Add the KuraPostgreSQL product to its dependencies and `import KuraPostgreSQL`."
      )
    }
    return factory.configuration(for: url)
  }
}
