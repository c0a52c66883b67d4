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

  /// A real `kura sync serve` process on a fresh PostgreSQL database, and replica stores (each a
  /// separate SQLite file with its sync engine) of the models a test gives: the setting of the
  /// sync rule tests (uniques, delete rules, rejections, stores that turn sync on).
  final class SyncRulesWorld: Sendable {
    let directory = TemporaryDirectory("sync-rules")
    let database: String
    let token: SyncToken
    let tokensFile: URL
    let server: SyncTestServer
    let models: [any PersistentModel.Type]

    init(_ models: [any PersistentModel.Type], name: String = #function) throws {
      self.models = models
      database = try PostgresCluster.shared().freshDatabaseURL(name)
      token = try makeToken(space: "family")
      tokensFile = directory.file("tokens")
      try "\(token.line)\n".write(to: tokensFile, atomically: true, encoding: .utf8)
      server = try SyncTestServer(store: database, tokens: tokensFile, directory: directory)
    }

    /// The settings of a replica of space `family` that syncs only when the test says so.
    var settings: SyncSettings {
      var settings = SyncSettings(server: server.url, space: "family", token: token.token)
      settings.pollInterval = .seconds(3600)
      settings.waitForChanges = nil
      return settings
    }

    /// A replica's container (sync on) on the store file `name.store`.
    func container(_ name: String, sync: Bool = true) throws -> ModelContainer {
      var configuration = ModelConfiguration.url(directory.file("\(name).store"))
      if sync { configuration.sync = settings }
      return try ModelContainer(models: models, configurations: [configuration], migration: nil)
    }

    /// A replica's container and its engine.
    func replica(_ name: String) throws -> (ModelContainer, SyncEngine) {
      let container = try container(name)
      return (container, try SyncEngine(container: container))
    }

    /// Runs the server's SQL on a direct connection.
    func serverQuery<Row>(_ sql: String, row: (PostgresStatement) throws -> Row) throws -> [Row] {
      try PostgresConnection(database).query(sql, row: row)
    }
  }
#endif
