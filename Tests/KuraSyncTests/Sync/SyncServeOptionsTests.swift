#if canImport(CLibPQ)
  import Foundation
  import Glibc
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraSync

  import KuraSyncCore

  import KuraSyncServer

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  /// `kura sync serve`'s `--listen` (IPv4 and IPv6) and `--tombstone-retention`, through the
  /// real command as a child process on a real PostgreSQL database.
  @Suite("Sync serve options")
  struct SyncServeOptionsTests {
    private static func serve(_ arguments: [String], directory: TemporaryDirectory) throws
      -> ProcessResult
    {
      let tokens = directory.file("tokens")
      try "".write(to: tokens, atomically: true, encoding: .utf8)
      return try run(
        try executable("kura"),
        ["sync", "serve", "--store", "postgresql:///none", "--tokens", tokens.path] + arguments,
        environment: directory.environment)
    }

    /// A push and a pull of `replica`'s saves, each setting a trip's name.
    private static func push(
      _ server: URL, token: SyncToken, replica: UUID, sequences: ClosedRange<Int64>
    ) async throws -> Int {
      let wall = UInt64(Date().timeIntervalSince1970 * 1000)
      let saves = sequences.map { sequence in
        SyncSave(
          sequence: sequence,
          changes: [
            .set(
              "Trip", id: "\(SyncStamp.hex(replica).prefix(4))-\(sequence)", incarnation: 1,
              property: "name", to: .text("trip \(sequence)"),
              stamp: SyncStamp(wall: wall, counter: UInt16(sequence % 60_000), replica: replica))
          ])
      }
      let body = try JSONEncoder().encode(
        SyncPushRequest(replica: SyncStamp.hex(replica), saves: saves))
      return try await send(
        "POST", server.appendingPathComponent("v1/spaces/family/push"), token: token.token,
        body: body
      ).status
    }

    private static func pull(_ server: URL, token: SyncToken, query: String) async throws
      -> Int
    {
      let url = try #require(URL(string: "\(server)/v1/spaces/family/changes?\(query)"))
      return try await send("GET", url, token: token.token).status
    }

    @Test func aServerListensOnTheIPv6LoopbackAndServesPushesAndPulls() async throws {
      let directory = TemporaryDirectory("sync-ipv6")
      let database = try PostgresCluster.shared().freshDatabaseURL(#function)
      let token = try makeToken(space: "family")
      let tokens = directory.file("tokens")
      try "\(token.line)\n".write(to: tokens, atomically: true, encoding: .utf8)
      let process = try ChildProcess(
        try executable("kura"),
        ["sync", "serve", "--store", database, "--listen", "[::1]:0", "--tokens", tokens.path],
        environment: directory.environment)
      defer { process.send(SIGKILL) }
      let line = try #require(
        process.waitForLine(timeout: 60) { $0.hasPrefix("Serving sync on http://[::1]:") })
      let address = try #require(
        line.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init))
      let port = try #require(address.split(separator: ":").last.flatMap { UInt16($0) })
      // Over a raw IPv6 socket: FoundationNetworking's URLSession refuses an IPv6 literal URL
      // (NSURLErrorBadURL) before it connects.
      let wall = UInt64(Date().timeIntervalSince1970 * 1000)
      let replica = UUID()
      let saves = (1...2).map { sequence in
        SyncSave(
          sequence: Int64(sequence),
          changes: [
            .set(
              "Trip", id: "t\(sequence)", incarnation: 1, property: "name",
              to: .text("trip \(sequence)"),
              stamp: SyncStamp(wall: wall, counter: UInt16(sequence), replica: replica))
          ])
      }
      let body = try JSONEncoder().encode(
        SyncPushRequest(replica: SyncStamp.hex(replica), saves: saves))
      let pushed = try Self.exchangeOverIPv6(
        port: port, "POST", "/v1/spaces/family/push", token: token.token, body: body)
      #expect(pushed.status == 200)
      #expect(
        try JSONDecoder().decode(SyncPushResponse.self, from: pushed.body)
          == SyncPushResponse(acknowledged: 2, head: 2))
      let pulled = try Self.exchangeOverIPv6(
        port: port, "GET", "/v1/spaces/family/changes?after=0", token: token.token, body: nil)
      #expect(pulled.status == 200)
      let page = try JSONDecoder().decode(SyncPullResponse.self, from: pulled.body)
      #expect(page.saves.map(\.sequence) == [1, 2])
      // The server's own view: the saves went into the database, not somewhere else.
      let logged = try PostgresConnection(database).query(
        "SELECT count(*) FROM kura_sync_log WHERE space = 'family'"
      ) { $0.int64(at: 0) }
      #expect(logged == [2])
    }

    /// One HTTP/1.1 request to `[::1]:port` on a socket of its own (SyncFuzzTests.swift's
    /// `rawRequest`); the status and the body.
    private static func exchangeOverIPv6(
      port: UInt16, _ method: String, _ path: String, token: String, body: Data?
    ) throws -> (status: Int?, body: Data) {
      var request = Data(
        ("\(method) \(path) HTTP/1.1\r\nHost: [::1]:\(port)\r\n"
          + "Authorization: Bearer \(token)\r\nConnection: close\r\n"
          + "Content-Length: \(body?.count ?? 0)\r\n\r\n").utf8)
      request.append(body ?? Data())
      return try rawRequest(port: port, Array(request), ipv6: true)
    }

    @Test func aNonLoopbackIPv6AddressWithoutTLSIsRefused() throws {
      let directory = TemporaryDirectory()
      let result = try Self.serve(["--listen", "[::]:0"], directory: directory)
      #expect(result.status == 64)
      #expect(result.stderr.contains("Won't listen on :: without TLS"))
    }

    @Test(arguments: ["[::1]", "[::1]8080", "::1:8080", "[]:8080", "[127.0.0.1]:80", "[::1]:x"])
    func aMalformedListenAddressIsRefusedNamingTheFlag(_ listen: String) throws {
      let directory = TemporaryDirectory()
      let result = try Self.serve(["--listen", listen], directory: directory)
      #expect(result.status == 64)
      #expect(result.stderr.contains("`\(listen)` is not a valid value for --listen"))
      #expect(result.stderr.contains("[::1]:8080"))
    }

    @Test(arguments: ["30", "0d", "-1d", "d", "1w", "1.5d", "99999999999999999d"])
    func aBadRetentionWindowIsRefusedNamingTheFlagAndTheFix(_ window: String) throws {
      let directory = TemporaryDirectory()
      let result = try Self.serve(["--tombstone-retention", window], directory: directory)
      #expect(result.status == 64)
      #expect(result.stderr.contains("`\(window)` is not a valid value for --tombstone-retention"))
      #expect(result.stderr.contains("such as 30d, 12h, 90m or 3600s"))
    }

    /// A server started with `--tombstone-retention 1h` retires a replica last seen two hours
    /// ago when it compacts: the replica no longer holds the horizon back, so the log is folded
    /// through the other replica's settled position. (With the 30-day default, the replica's
    /// `settled` 0 would keep the whole log.)
    @Test func theRetentionWindowOfServeRetiresAReplicaUnseenForLongerThanIt() async throws {
      let directory = TemporaryDirectory("sync-retention")
      let database = try PostgresCluster.shared().freshDatabaseURL(#function)
      let token = try makeToken(space: "family")
      let tokens = directory.file("tokens")
      try "\(token.line)\n".write(to: tokens, atomically: true, encoding: .utf8)
      let server = try SyncTestServer(
        store: database, tokens: tokens, directory: directory,
        arguments: ["--tombstone-retention", "1h"])
      #expect(
        server.process.outputLines.contains { $0.hasSuffix("(tombstone retention 1h)") })
      let away = UUID()
      let writer = UUID()
      #expect(
        try await Self.pull(
          server.url, token: token, query: "after=0&replica=\(SyncStamp.hex(away))&settled=0")
          == 200)
      try PostgresConnection(database).run(
        "UPDATE kura_sync_replicas SET seen_at = now() - interval '2 hours' WHERE replica = ?",
        [.text(SyncStamp.hex(away))])
      let batch = SyncService.compactionBatch
      #expect(
        try await Self.push(server.url, token: token, replica: writer, sequences: 1...batch)
          == 200)
      // This pull sees the log grown by a batch and starts the compaction in the background.
      #expect(
        try await Self.pull(
          server.url, token: token,
          query: "after=\(batch)&replica=\(SyncStamp.hex(writer))&settled=\(batch)") == 200)
      let compacted = try #require(
        server.process.waitForLine(onStandardError: true, timeout: 120) {
          $0.hasPrefix("Compacted sync space `family`")
        })
      #expect(
        compacted
          == "Compacted sync space `family` through \(batch): saves folded \(batch), "
          + "tombstones dropped 0, replicas retired 1")
      let position = try PostgresConnection(database).queryFirst(
        "SELECT compacted FROM kura_sync_spaces WHERE space = 'family'"
      ) { $0.int64(at: 0) }
      #expect(position == batch)
      // The retired replica is rebased when it comes back.
      #expect(
        try await Self.pull(
          server.url, token: token, query: "after=0&replica=\(SyncStamp.hex(away))&settled=0")
          == 410)
    }
  }
#endif
