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

  /// A model the sync end-to-end tests save on their replicas.
  struct SyncTrip: PersistentModel, Equatable {
    var id: UUID
    var name: String
    var budget: Int
    var rating: Double
  }

  /// A test's sync world: a fresh PostgreSQL database, two spaces' tokens (`family`, `work`) in
  /// a tokens file, a real `kura sync serve` process, and replica stores (separate SQLite
  /// files, each with its engine) made on demand.
  final class SyncWorld: Sendable {
    let directory = TemporaryDirectory("sync-e2e")
    let database: String
    let family: SyncToken
    let work: SyncToken
    let tokensFile: URL
    let server: SyncTestServer

    init(name: String = #function) throws {
      database = try PostgresCluster.shared().freshDatabaseURL(name)
      family = try makeToken(space: "family")
      work = try makeToken(space: "work")
      tokensFile = directory.file("tokens")
      try "\(family.line)\n\(work.line)\n".write(
        to: tokensFile, atomically: true, encoding: .utf8)
      server = try SyncTestServer(store: database, tokens: tokensFile, directory: directory)
    }

    /// Replaces the tokens file's lines (the server reads it again when it changes).
    func writeTokens(_ tokens: [SyncToken]) throws {
      try tokens.map { $0.line + "\n" }.joined().write(
        to: tokensFile, atomically: true, encoding: .utf8)
    }

    /// A replica's container and engine on a store file of its own; the engine polls only
    /// when asked (the tests call `syncNow`).
    func replica(_ name: String, token: SyncToken? = nil, server: URL? = nil) throws -> (
      ModelContainer, SyncEngine
    ) {
      var configuration = ModelConfiguration.url(directory.file("\(name).store"))
      var settings = SyncSettings(
        server: server ?? self.server.url, space: "family", token: (token ?? family).token)
      settings.pollInterval = .seconds(3600)
      settings.waitForChanges = nil
      configuration.sync = settings
      let container = try ModelContainer(for: SyncTrip.self, configurations: configuration)
      return try (container, SyncEngine(container: container))
    }

    /// Runs `body` with replicas `a` and `b`, stopping both engines afterwards.
    func withTwoReplicas<Result>(
      _ body: (_ a: (ModelContainer, SyncEngine), _ b: (ModelContainer, SyncEngine))
        async throws -> Result
    ) async throws -> Result {
      let a = try replica("a")
      defer { a.1.stop() }
      let b = try replica("b")
      defer { b.1.stop() }
      return try await body(a, b)
    }

    /// How many saves the server's log of `space` holds.
    func loggedSaves(_ space: String = "family") throws -> Int64 {
      try PostgresConnection(database).queryFirst(
        "SELECT count(*) FROM kura_sync_log WHERE space = ?", [.text(space)]
      ) { $0.int64(at: 0) } ?? -1
    }

    /// Every trip of a replica, by name.
    static func trips(_ container: ModelContainer) throws -> [SyncTrip] {
      try ModelContext(container).fetch(FetchDescriptor<SyncTrip>(sortBy: [SortDescriptor(\.name)]))
    }
  }
#endif

#if canImport(CLibPQ)
  import Synchronization

  /// A replica process (`kura-testhelper sync-replica`, a store file of its own), spoken to by
  /// tagged lines (see SyncHelpers.swift), optionally started through a launcher such as
  /// `unshare … sh -c` (whose command then ends with the helper's arguments).
  final class SyncReplicaProcess: Sendable {
    let process: ChildProcess
    private let requests = Mutex(0)

    init(
      store: URL, server: URL, token: SyncToken, directory: TemporaryDirectory,
      launcher: ((_ helper: [String]) -> (URL, [String]))? = nil
    ) throws {
      let helper = [
        try executable("kura-testhelper").path, "sync-replica", store.path,
        server.absoluteString, "family", token.token,
      ]
      let (program, arguments) =
        launcher?(helper) ?? (URL(fileURLWithPath: helper[0]), Array(helper.dropFirst()))
      process = try ChildProcess(program, arguments, environment: directory.environment)
      try #require(process.waitForLine(timeout: 60) { $0 == "- ready" } != nil)
    }

    /// Sends a request and returns the answer (without its tag).
    @discardableResult
    func ask(_ request: String, timeout: TimeInterval = 120) throws -> String {
      let tag = requests.withLock { count in
        count += 1
        return "r\(count)"
      }
      process.send(line: "\(tag) \(request)")
      let line = try #require(process.waitForLine(timeout: timeout) { $0.hasPrefix(tag + " ") })
      return String(line.dropFirst(tag.count + 1))
    }

    deinit { process.send(SIGKILL) }
  }
#endif
