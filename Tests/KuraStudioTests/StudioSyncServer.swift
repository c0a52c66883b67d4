#if canImport(CLibPQ)
  import Foundation
  import Kura
  import KuraPostgresCluster
  import KuraSync
  import KuraSyncServer
  import KuraTestSupport
  import Testing

  /// A `kura sync serve` process on a fresh database of the test cluster, with one token for
  /// the space `family` in its tokens file, for the studio's sync tests.
  final class StudioSyncServer {
    /// The server's database (what `kura studio --sync-server` opens).
    let database: String
    /// The token of the space `family`.
    let token: SyncToken
    /// The server's base URL, such as `http://127.0.0.1:40123`.
    let url: URL
    private let process: ChildLine

    init(folder: StudioFolder) throws {
      database = try PostgresCluster.freshDatabaseURL()
      token = try SyncToken(space: "family")
      let tokens = folder.file("tokens")
      try "\(token.line)\n".write(to: tokens, atomically: true, encoding: .utf8)
      process = try ChildLine(
        try executable("kura"),
        ["sync", "serve", "--store", database, "--listen", "127.0.0.1:0", "--tokens", tokens.path],
        until: { $0.hasPrefix("Serving sync on http://") })
      do {
        let address = try #require(
          process.line?.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init))
        url = try #require(URL(string: address))
      } catch {
        process.stop()
        throw error
      }
    }

    /// Stops the server.
    func stop() { process.stop() }

    /// A container of a store at `file` that syncs the space `family` through this server, and
    /// only when asked (`syncNow()`): no polling, no long pull.
    func replica(_ file: URL) throws -> ModelContainer {
      var configuration = ModelConfiguration.url(file)
      var settings = SyncSettings(server: url, space: "family", token: token.token)
      settings.pollInterval = .seconds(3600)
      settings.waitForChanges = nil
      configuration.sync = settings
      return try ModelContainer(
        models: studioModels, configurations: [configuration], migration: nil)
    }
  }
#endif
