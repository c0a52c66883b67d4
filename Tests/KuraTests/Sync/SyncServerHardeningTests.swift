#if canImport(CLibPQ)
  import Foundation
  import Glibc
  import Testing

  @testable import Kura

  /// `kura sync serve` under a device that holds a valid token and misuses it, and under
  /// hostile connections: each test runs a real server process on a real PostgreSQL database.
  @Suite("Sync server hardening")
  struct SyncServerHardeningTests {
    /// A server whose space `family` has two devices, alice and mallory, each with a token of
    /// its own.
    private struct Setup {
      let directory = TemporaryDirectory("sync-hardening")
      let database: String
      let alice: SyncToken
      let mallory: SyncToken
      let tokensFile: URL
      let server: SyncTestServer

      init(name: String = #function, lineEnd: String = "\n", arguments: [String] = []) throws {
        database = try PostgresCluster.shared().freshDatabaseURL(name)
        alice = try SyncToken(space: "family", device: "alice-phone")
        mallory = try SyncToken(space: "family", device: "mallory-laptop")
        tokensFile = directory.file("tokens")
        try Self.write([alice, mallory], to: tokensFile, lineEnd: lineEnd)
        server = try SyncTestServer(
          store: database, tokens: tokensFile, directory: directory, arguments: arguments)
      }

      func write(_ tokens: [SyncToken]) throws {
        try Self.write(tokens, to: tokensFile, lineEnd: "\n")
      }

      static func write(_ tokens: [SyncToken], to file: URL, lineEnd: String) throws {
        let text = (["# space hash device"] + tokens.map(\.line)).joined(separator: lineEnd)
        try (text + lineEnd).write(to: file, atomically: true, encoding: .utf8)
      }

      func push(_ token: SyncToken, _ body: Data, space: String = "family") async throws -> (
        status: Int, body: Data
      ) {
        try await send(
          "POST", server.url.appendingPathComponent("v1/spaces/\(space)/push"),
          token: token.token, body: body)
      }

      func pull(_ token: SyncToken, query: String, space: String = "family") async throws -> (
        status: Int, body: Data
      ) {
        let url = try #require(URL(string: "\(server.url)/v1/spaces/\(space)/changes?\(query)"))
        return try await send("GET", url, token: token.token)
      }

      /// Every save in the log, as `replica:sequence`, read on a direct connection.
      func logged() throws -> [String] {
        try PostgresConnection(database).query(
          "SELECT replica || ':' || sequence FROM kura_sync_log ORDER BY space, position"
        ) { $0.string(at: 0) }
      }

      func settled(_ replica: String) throws -> Int64? {
        try PostgresConnection(database).queryFirst(
          "SELECT settled FROM kura_sync_replicas WHERE replica = ?", [.text(replica)]
        ) { $0.int64(at: 0) }
      }
    }

    private static let alicesReplica = UUID()
    private static let baseWall = UInt64(Date().timeIntervalSince1970 * 1000)

    private static func body(
      _ sequences: ClosedRange<Int64>, replica: UUID = alicesReplica, id: String? = nil
    ) throws -> Data {
      let saves = sequences.map { sequence in
        SyncSave(
          sequence: sequence,
          changes: [
            .set(
              "Trip", id: id ?? "t\(sequence)", incarnation: 1, property: "name",
              to: .text("trip \(sequence)"),
              stamp: SyncStamp(wall: baseWall, counter: UInt16(sequence), replica: replica))
          ])
      }
      return try JSONEncoder().encode(
        SyncPushRequest(replica: SyncStamp.hex(replica), saves: saves))
    }

    /// Another device pushing as alice's replica with its next sequence number was accepted,
    /// and alice's own next save then got 409 on every try (its outbox stuck for good).
    @Test func anotherDevicePushingAsAReplicaGets403AndTheReplicaPushesOn() async throws {
      let setup = try Setup()
      #expect(try await setup.push(setup.alice, Self.body(1...1)).status == 200)
      let forged = try await setup.push(setup.mallory, Self.body(2...2))
      #expect(forged.status == 403)
      #expect(errorCode(forged.body) == "replicaNotYours")
      let own = try await setup.push(setup.alice, Self.body(2...2))
      #expect(own.status == 200)
      let replica = SyncStamp.hex(Self.alicesReplica)
      #expect(try setup.logged() == ["\(replica):1", "\(replica):2"])
      // Nor can it pull as alice's replica.
      let pulled = try await setup.pull(setup.mallory, query: "after=0&replica=\(replica)")
      #expect(pulled.status == 403)
    }

    /// Anyone could raise another replica's `settled` position, letting compaction fold past
    /// what that replica has.
    @Test func anotherDeviceCantRaiseAReplicasSettledPosition() async throws {
      let setup = try Setup()
      #expect(try await setup.push(setup.alice, Self.body(1...3)).status == 200)
      let replica = SyncStamp.hex(Self.alicesReplica)
      #expect(try setup.settled(replica) == 0)
      let raised = try await setup.pull(
        setup.mallory, query: "after=3&replica=\(replica)&settled=3")
      #expect(raised.status == 403)
      #expect(try setup.settled(replica) == 0)
      // Alice's own pull moves it.
      #expect(
        try await setup.pull(setup.alice, query: "after=3&replica=\(replica)&settled=3").status
          == 200)
      #expect(try setup.settled(replica) == 3)
    }

    /// A device's token revokes alone; a new token for the same device name keeps its
    /// replicas.
    @Test func aDeviceTokenIsRevokedAloneAndAReplacementKeepsItsReplicas() async throws {
      let setup = try Setup()
      #expect(try await setup.push(setup.alice, Self.body(1...1)).status == 200)
      try setup.write([setup.mallory])
      let revoked = try await setup.push(setup.alice, Self.body(2...2))
      #expect(revoked.status == 401)
      #expect(try await setup.pull(setup.mallory, query: "after=0").status == 200)
      let replacement = try SyncToken(space: "family", device: "alice-phone")
      #expect(replacement.line.hasSuffix(" device=alice-phone"))
      try setup.write([setup.mallory, replacement])
      #expect(try await setup.push(replacement, Self.body(2...2)).status == 200)
      #expect(try setup.logged().count == 2)
    }

    /// A tokens file with CRLF line ends stopped the server from starting, naming a wrong
    /// reason.
    @Test func aTokensFileWithCRLFLineEndsIsReadAsLF() async throws {
      let setup = try Setup(lineEnd: "\r\n")
      #expect(try String(contentsOf: setup.tokensFile, encoding: .utf8).contains("\r\n"))
      #expect(try await setup.push(setup.alice, Self.body(1...1)).status == 200)
      #expect(try await setup.pull(setup.mallory, query: "after=0").status == 200)
    }

    /// A tokens file that no longer parsed, or was deleted, kept the last good grants — so a
    /// token whose line was removed in that edit kept working.
    @Test func aTokensFileThatCantBeReadRefusesEveryTokenUntilFixed() async throws {
      let setup = try Setup()
      #expect(try await setup.pull(setup.alice, query: "after=0").status == 200)
      // Mallory's line removed in an edit that broke another line.
      try "family \(setup.alice.line.split(separator: " ")[1]) device=\n".write(
        to: setup.tokensFile, atomically: true, encoding: .utf8)
      #expect(try await setup.pull(setup.mallory, query: "after=0").status == 401)
      #expect(try await setup.pull(setup.alice, query: "after=0").status == 401)
      setup.server.process.waitForLine(onStandardError: true) {
        $0.contains("Can't read tokens file") && $0.contains("Every token is refused")
      }
      try setup.write([setup.alice])
      #expect(try await setup.pull(setup.alice, query: "after=0").status == 200)
      #expect(try await setup.pull(setup.mallory, query: "after=0").status == 401)
      try FileManager.default.removeItem(at: setup.tokensFile)
      #expect(try await setup.pull(setup.alice, query: "after=0").status == 401)
    }

    /// The space in the path was compared with Unicode equivalence while PostgreSQL compares
    /// bytes: a KELVIN SIGN reached a second space with the first space's token.
    @Test func aSpaceNameIsComparedByteForByte() async throws {
      let setup = try Setup()
      let kelvin = try SyncToken(space: "Kyoto", device: "alice-phone")
      try setup.write([setup.alice, kelvin])
      // U+212A KELVIN SIGN, percent-encoded in the path.
      let answer = try await setup.push(kelvin, Self.body(1...1), space: "%E2%84%AAyoto")
      #expect(answer.status == 403)
      let spaces = try PostgresConnection(setup.database).query(
        "SELECT space FROM kura_sync_spaces ORDER BY space"
      ) { $0.string(at: 0) }
      #expect(spaces.isEmpty)
      #expect(throws: SyncTokensError.self) { try SyncToken(space: "\u{212A}yoto") }
      #expect(throws: SyncTokensError.self) { try SyncToken(space: "Cafe\u{301}") }
    }

    /// The body was read before the token was checked (an anonymous client held 4 MiB a
    /// connection): a request that waits before sending its body is refused on its head.
    @Test func aRequestWithABadTokenIsRefusedBeforeItsBodyIsSent() throws {
      let setup = try Setup()
      let port = try #require(setup.server.url.port.map(UInt16.init))
      let connection = try RawHTTPConnection(port: port)
      connection.write(
        "POST /v1/spaces/family/push HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer nope\r\n"
          + "Content-Length: \(4 << 20)\r\nExpect: 100-continue\r\n\r\n")
      let answer = connection.read(until: "}")
      #expect(RawHTTPConnection.status(answer) == 401)
      #expect(!answer.contains("100 Continue"))
    }

    /// Two different `Content-Length` fields were accepted and the push applied (request
    /// smuggling behind a proxy that reads the other one).
    @Test func conflictingLengthsOrControlCharactersGet400AndNothingIsApplied() throws {
      let setup = try Setup()
      let port = try #require(setup.server.url.port.map(UInt16.init))
      let body = String(decoding: try Self.body(1...1), as: UTF8.self)
      let heads = [
        "Content-Length: \(body.utf8.count)\r\nContent-Length: 5\r\n",
        "Content-Length: \(body.utf8.count)\r\nTransfer-Encoding: chunked\r\n",
        "Content-Length: \(body.utf8.count)\r\nX-Note: a\u{7}b\r\n",
      ]
      for head in heads {
        let connection = try RawHTTPConnection(port: port)
        connection.write(
          "POST /v1/spaces/family/push HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer "
            + "\(setup.alice.token)\r\n\(head)\r\n\(body)")
        let answer = connection.read(until: "}")
        #expect(RawHTTPConnection.status(answer) == 400, "\(head)")
      }
      #expect(try setup.logged().isEmpty)
    }

    /// 300 connections dripping header bytes left a normal client unanswered for more than
    /// 8 s: with 1,000, a pull is answered, and the dripping connections are closed at their
    /// head deadline however slowly they go on.
    @Test func dripping1000ConnectionsLeaveAPullAnsweredAndAreClosed() throws {
      let setup = try Setup()
      let port = try #require(setup.server.url.port.map(UInt16.init))
      // No child process starts while this test holds 1,000 descriptors: Foundation's
      // `Process.run()` crashes past about 1,300 (see `launch(_:)`).
      let (status, open) = try launching {
        var dripping: [RawHTTPConnection] = []
        for _ in 0..<1_000 {
          let connection = try RawHTTPConnection(port: port)
          connection.write("GET /v1/spaces/family/changes HTTP/1.1\r\nHost: a\r\nX-Slow: ")
          dripping.append(connection)
        }
        let url = try #require(
          URL(string: "\(setup.server.url)/v1/spaces/family/changes?after=0"))
        let answer = try PendingRequest("GET", url, token: setup.alice.token).wait(timeout: 30)
        // A byte a second each, for at most 30 s: every one is closed by then (8 s deadline).
        var open = dripping
        for _ in 0..<30 where !open.isEmpty {
          open = open.filter { $0.write("a") && !$0.isClosedNow }
          if !open.isEmpty { _ = poll(nil, 0, 1_000) }
        }
        return (answer.status, open.count)
      }
      #expect(status == 200)
      #expect(open == 0)
    }

    /// An unexpected database error was answered 503 "can't reach the database" and dropped
    /// the PostgreSQL connection: a value PostgreSQL refuses is a 400, and the server goes on.
    @Test func aValueTheDatabaseRefusesIsA400AndTheServerGoesOn() async throws {
      let setup = try Setup()
      // A unique value too large for a PostgreSQL index entry (random: no compression helps).
      var generator = SystemRandomNumberGenerator()
      let huge = (0..<30_000).map { _ in
        String(UInt8.random(in: 0...15, using: &generator), radix: 16)
      }
      .joined()
      let stamp = SyncStamp(wall: Self.baseWall, counter: 1, replica: Self.alicesReplica)
      let save = SyncSave(
        sequence: 1,
        changes: [
          .set("Trip", id: "t1", incarnation: 1, property: "name", to: .text(huge), stamp: stamp)
        ],
        unique: [SyncUniqueConstraint(model: "Trip", properties: ["name"])])
      let body = try JSONEncoder().encode(
        SyncPushRequest(replica: SyncStamp.hex(Self.alicesReplica), saves: [save]))
      let refused = try await setup.push(setup.alice, body)
      #expect(refused.status == 400, "\(String(decoding: refused.body, as: UTF8.self))")
      #expect(errorCode(refused.body) == "badRequest")
      #expect(try await setup.push(setup.alice, Self.body(1...1)).status == 200)
      #expect(try setup.logged().count == 1)
    }

    /// `--connections-per-address 2`: a third connection from 127.0.0.1 is closed unanswered,
    /// and one is let in again once the others are gone.
    @Test func connectionsFromOneAddressAreCappedWhenAsked() throws {
      let setup = try Setup(arguments: ["--connections-per-address", "2"])
      let port = try #require(setup.server.url.port.map(UInt16.init))
      var held = try (0..<2).map { _ in try RawHTTPConnection(port: port) }
      for connection in held {
        connection.write("GET /v1/spaces/family/changes HTTP/1.1\r\nHost: a\r\n")
      }
      // A whole request on a third: closed unanswered (without the cap it would get its 200).
      let third = try RawHTTPConnection(port: port)
      third.write(
        "GET /v1/spaces/family/changes?after=0 HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer "
          + "\(setup.alice.token)\r\nConnection: close\r\n\r\n")
      #expect(RawHTTPConnection.status(third.read(timeout: 10)) == nil)
      held.removeAll()  // closes both
      // Let in again once the held ones are gone: closed here, or at the latest at their head
      // deadline (tries 50 ms apart, 10 s at most).
      var status: Int?
      for _ in 0..<200 where status == nil {
        if status == nil { _ = poll(nil, 0, 50) }
        let connection = try RawHTTPConnection(port: port)
        connection.write(
          "GET /v1/spaces/family/changes?after=0 HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer "
            + "\(setup.alice.token)\r\nConnection: close\r\n\r\n")
        status = RawHTTPConnection.status(connection.read(timeout: 5))
      }
      #expect(status == 200)
    }
  }
#endif
