#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraSync

  import KuraSyncCore

  import KuraSyncServer

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  /// A space on a real `kura sync serve` over a real PostgreSQL database, and replica stores
  /// (separate SQLite files) in a temporary directory: the world of the initial-sync,
  /// tombstone and version tests.
  final class SyncSpaceWorld: Sendable {
    let directory: TemporaryDirectory
    let database: String
    let token: SyncToken
    let tokensFile: URL
    let server: SyncTestServer

    init(_ name: String, serverArguments: [String] = []) throws {
      directory = TemporaryDirectory(name)
      database = try PostgresCluster.shared().freshDatabaseURL(name)
      token = try makeToken(space: "family")
      tokensFile = directory.file("tokens")
      try "\(token.line)\n".write(to: tokensFile, atomically: true, encoding: .utf8)
      server = try SyncTestServer(
        store: database, tokens: tokensFile, directory: directory, arguments: serverArguments)
    }

    /// A replica's container (of the model types given) and engine, on a store file of its own.
    func replica(
      _ name: String, for models: any PersistentModel.Type..., server: URL? = nil
    ) throws -> (ModelContainer, SyncEngine) {
      let container = try makeContainer(name, models, server: server)
      return (container, try SyncEngine(container: container))
    }

    /// A replica's container alone (its engine started later, by the test).
    func container(_ name: String, for models: any PersistentModel.Type..., server: URL? = nil)
      throws -> ModelContainer
    {
      try makeContainer(name, models, server: server)
    }

    private func makeContainer(
      _ name: String, _ models: [any PersistentModel.Type], server: URL?
    ) throws -> ModelContainer {
      var configuration = ModelConfiguration.url(directory.file("\(name).store"))
      var settings = SyncSettings(
        server: server ?? self.server.url, space: "family", token: token.token)
      settings.pollInterval = .seconds(3600)  // the tests call syncNow
      settings.waitForChanges = nil
      configuration.sync = settings
      return try ModelContainer(models: models, configurations: [configuration], migration: nil)
    }

    /// A direct connection to the server's database.
    func connection() throws -> PostgresConnection { try PostgresConnection(database) }
  }
#endif
