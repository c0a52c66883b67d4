#if canImport(CLibPQ)
  import Foundation
  import Glibc
  import Testing

  @testable import Kura

  /// `kura sync serve` as a real process on a real PostgreSQL database, spoken to over HTTP.
  @Suite("Sync server")
  struct SyncServerTests {
    /// A test's server with two spaces (`family` and `work`) and their tokens.
    private struct Setup {
      let directory = TemporaryDirectory("sync-server")
      let database: String
      let family: SyncToken
      let work: SyncToken
      let expired: SyncToken
      let tokensFile: URL
      let server: SyncTestServer

      init(name: String = #function, database: String? = nil) throws {
        self.database = try database ?? PostgresCluster.shared().freshDatabaseURL(name)
        family = try makeToken(space: "family")
        work = try makeToken(space: "work")
        expired = try makeToken(space: "family", expires: "2020-01-01T00:00:00Z")
        tokensFile = directory.file("tokens")
        let text = "# space hash\n\(family.line)\n\(work.line)\n\n\(expired.line)\n"
        try text.write(to: tokensFile, atomically: true, encoding: .utf8)
        server = try SyncTestServer(store: self.database, tokens: tokensFile, directory: directory)
      }

      func push(_ space: String, token: SyncToken?, _ body: Data) async throws -> (
        status: Int, body: Data
      ) {
        try await send(
          "POST", server.url.appendingPathComponent("v1/spaces/\(space)/push"),
          token: token?.token, body: body)
      }

      func pull(_ space: String, token: SyncToken?, query: String = "after=0") async throws -> (
        status: Int, body: Data
      ) {
        let url = try #require(URL(string: "\(server.url)/v1/spaces/\(space)/changes?\(query)"))
        return try await send("GET", url, token: token?.token)
      }

      /// Every save in `space`'s log, read on a direct connection.
      func logged(_ space: String) throws -> [String] {
        let connection = try PostgresConnection(database)
        return try connection.query(
          "SELECT replica || ':' || sequence FROM kura_sync_log WHERE space = ? ORDER BY position",
          [.text(space)]
        ) { $0.string(at: 0) }
      }
    }

    private static let replica = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    private static let replicaHex = SyncStamp.hex(replica)
    /// The wall time of the test's stamps (fixed, so a resent save is the same save).
    private static let baseWall = UInt64(Date().timeIntervalSince1970 * 1000)

    private static func save(
      _ sequence: Int64, name: String, replica: UUID = replica, wall: UInt64? = nil
    )
      -> SyncSave
    {
      let stamp = SyncStamp(
        wall: wall ?? baseWall, counter: UInt16(sequence),
        replica: replica)
      return SyncSave(
        sequence: sequence,
        changes: [
          .set(
            "Trip", id: "t\(sequence)", incarnation: 1, property: "name", to: .text(name),
            stamp: stamp)
        ])
    }

    private static func body(_ saves: [SyncSave], replica: String = replicaHex) throws -> Data {
      try JSONEncoder().encode(SyncPushRequest(replica: replica, saves: saves))
    }

    @Test func aPushIsAppliedOnceAndPulledInOrder() async throws {
      let setup = try Setup()
      let first = try Self.body([Self.save(1, name: "Kyoto"), Self.save(2, name: "Nara")])
      let pushed = try await setup.push("family", token: setup.family, first)
      #expect(pushed.status == 200)
      #expect(
        try JSONDecoder().decode(SyncPushResponse.self, from: pushed.body)
          == SyncPushResponse(acknowledged: 2, head: 2))
      // The same push again (its answer was lost): acknowledged, not applied again.
      let again = try await setup.push("family", token: setup.family, first)
      #expect(
        try JSONDecoder().decode(SyncPushResponse.self, from: again.body)
          == SyncPushResponse(acknowledged: 2, head: 2))
      // A push overlapping the applied ones: only save 3 is new.
      let overlapping = try await setup.push(
        "family", token: setup.family,
        try Self.body([Self.save(2, name: "Nara"), Self.save(3, name: "Osaka")]))
      #expect(
        try JSONDecoder().decode(SyncPushResponse.self, from: overlapping.body)
          == SyncPushResponse(acknowledged: 3, head: 3))
      #expect(
        try setup.logged("family") == [
          "\(Self.replicaHex):1", "\(Self.replicaHex):2", "\(Self.replicaHex):3",
        ])
      let pulled = try await setup.pull("family", token: setup.family, query: "after=1&limit=5")
      #expect(pulled.status == 200)
      let page = try JSONDecoder().decode(SyncPullResponse.self, from: pulled.body)
      #expect(page.head == 3)
      #expect(page.saves.map(\.position) == [2, 3])
      #expect(
        page.saves.map(\.changes) == [
          Self.save(2, name: "Nara").changes, Self.save(3, name: "Osaka").changes,
        ])
      // A gap, and a resend whose changes differ, are refused and change nothing.
      let gap = try await setup.push(
        "family", token: setup.family, try Self.body([Self.save(5, name: "x")]))
      #expect(gap.status == 409)
      #expect(try JSONDecoder().decode(SyncErrorResponse.self, from: gap.body).expected == 4)
      let conflict = try await setup.push(
        "family", token: setup.family, try Self.body([Self.save(1, name: "Other")]))
      #expect(conflict.status == 409)
      #expect(errorCode(conflict.body) == "replicaConflict")
      #expect(try setup.logged("family").count == 3)
    }

    /// A client holding the `work` token tries to read and write `family`'s rows: forged space
    /// names, a forged replica id (family's), forged cursors. Nothing of family's is read or
    /// written.
    @Test func aTokenOfAnotherSpaceReadsAndWritesNothingOfIt() async throws {
      let setup = try Setup()
      let family = try await setup.push(
        "family", token: setup.family, try Self.body([Self.save(1, name: "Secret")]))
      #expect(family.status == 200)
      let readFamily = try await setup.pull("family", token: setup.work)
      #expect(readFamily.status == 403)
      #expect(!String(decoding: readFamily.body, as: UTF8.self).contains("Secret"))
      let writeFamily = try await setup.push(
        "family", token: setup.work, try Self.body([Self.save(2, name: "Evil")]))
      #expect(writeFamily.status == 403)
      // Family's replica id pushed into work: refused (the replica is bound to family's
      // token), work's log stays empty.
      let forgedReplica = try await setup.push(
        "work", token: setup.work, try Self.body([Self.save(2, name: "Evil")]))
      #expect(forgedReplica.status == 403)
      #expect(errorCode(forgedReplica.body) == "replicaNotYours")
      for query in ["after=0", "after=-1", "after=999999999", "after=0&limit=1000"] {
        let answer = try await setup.pull("work", token: setup.work, query: query)
        #expect(!String(decoding: answer.body, as: UTF8.self).contains("Secret"), "\(query)")
        if answer.status == 200 {
          #expect(try JSONDecoder().decode(SyncPullResponse.self, from: answer.body).saves.isEmpty)
        } else {
          #expect(answer.status == 400, "\(query)")
        }
      }
      for space in ["family%20", "FAMILY", "..%2Ffamily", "work%2F..%2Ffamily", "fam%00ily"] {
        let url = try #require(
          URL(string: "\(setup.server.url)/v1/spaces/\(space)/changes?after=0"))
        let answer = try await send("GET", url, token: setup.work.token)
        #expect([403, 404].contains(answer.status), "\(space): \(answer.status)")
        #expect(!String(decoding: answer.body, as: UTF8.self).contains("Secret"))
      }
      #expect(try setup.logged("family") == ["\(Self.replicaHex):1"])
      #expect(try setup.logged("work").isEmpty)
    }

    @Test func missingUnknownExpiredAndRevokedTokensGet401() async throws {
      let setup = try Setup()
      let body = try Self.body([Self.save(1, name: "Kyoto")])
      #expect(try await setup.push("family", token: nil, body).status == 401)
      #expect(
        try await setup.push("family", token: try makeToken(space: "family"), body).status == 401)
      let expired = try await setup.push("family", token: setup.expired, body)
      #expect(expired.status == 401)
      #expect(String(decoding: expired.body, as: UTF8.self).contains("expired"))
      #expect(try await setup.pull("work", token: setup.work).status == 200)
      // Revoked: its line removed from the file, which the server reads again.
      try "\(setup.family.line)\n".write(to: setup.tokensFile, atomically: true, encoding: .utf8)
      #expect(try await setup.pull("work", token: setup.work).status == 401)
      #expect(try await setup.pull("family", token: setup.family).status == 200)
      #expect(try setup.logged("family").isEmpty)
    }

    /// Malformed, truncated, oversized and misdirected requests get a 4xx, change nothing, and
    /// the server goes on answering.
    @Test func badRequestsGet4xxAndChangeNothing() async throws {
      let setup = try Setup()
      let good = try Self.body([Self.save(1, name: "Kyoto")])
      let now = UInt64(Date().timeIntervalSince1970 * 1000)
      let other = UUID()
      let cases: [(String, Data, Int)] = [
        ("not JSON", Data("hello".utf8), 400),
        ("truncated", good.prefix(good.count / 2), 400),
        ("empty", Data(), 400),
        ("no saves", try Self.body([]), 400),
        ("bad replica", try Self.body([Self.save(1, name: "x")], replica: "XYZ"), 400),
        ("sequence 0", try Self.body([Self.save(0, name: "x")]), 400),
        (
          "not consecutive", try Self.body([Self.save(1, name: "x"), Self.save(3, name: "y")]), 400
        ),
        ("another replica's stamp", try Self.body([Self.save(1, name: "x", replica: other)]), 400),
        ("an hour ahead", try Self.body([Self.save(1, name: "x", wall: now + 3_600_000)]), 422),
        (
          "a bad stamp",
          Data(
            String(decoding: good, as: UTF8.self).replacingOccurrences(
              of: "\"stamp\":\"", with: "\"stamp\":\"zz"
            )
            .utf8), 400
        ),
        ("oversized", Data(repeating: 32, count: SyncService.maximumBodyBytes + 1), 413),
      ]
      for (what, body, status) in cases {
        let answer = try await setup.push("family", token: setup.family, body)
        #expect(answer.status == status, "\(what): \(String(decoding: answer.body, as: UTF8.self))")
        #expect(errorCode(answer.body) != nil, "\(what)")
      }
      let wrongMethod = try await send(
        "GET", setup.server.url.appendingPathComponent("v1/spaces/family/push"),
        token: setup.family.token)
      #expect(wrongMethod.status == 405)
      let unknown = try await send(
        "GET", setup.server.url.appendingPathComponent("v2/spaces/family/changes"),
        token: setup.family.token)
      #expect(unknown.status == 404)
      #expect(try await setup.pull("family", token: setup.family, query: "after=x").status == 400)
      #expect(try await setup.pull("family", token: setup.family, query: "limit=0").status == 400)
      #expect(try setup.logged("family").isEmpty)
      // Still serving, and the good push goes through.
      #expect(try await setup.push("family", token: setup.family, good).status == 200)
      #expect(try setup.logged("family") == ["\(Self.replicaHex):1"])
    }

    /// Raw bytes on a TCP connection: a push cut off in the middle of its body, a body shorter
    /// than its Content-Length, garbage instead of a request line. Nothing is stored, and the
    /// server answers the next good push.
    @Test func truncatedAndGarbageRequestsChangeNothingAndTheServerGoesOn() async throws {
      let setup = try Setup()
      let good = try Self.body([Self.save(1, name: "Kyoto")])
      let port = try #require(setup.server.url.port)
      let head =
        "POST /v1/spaces/family/push HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Authorization: Bearer \(setup.family.token)\r\nContent-Type: application/json\r\n"
      let payloads: [[UInt8]] = [
        Array((head + "Content-Length: \(good.count)\r\n\r\n").utf8) + Array(good.prefix(40)),
        Array((head + "Content-Length: \(good.count + 500)\r\n\r\n").utf8) + Array(good),
        Array(head.utf8.prefix(30)),
        [0, 255, 13, 10, 200, 1, 2, 3, 13, 10, 13, 10],
        Array(
          "GET /v1/spaces/family/changes?after=0 HTTP/1.1\r\nHost: \(String(repeating: "x", count: 200_000))\r\n\r\n"
            .utf8),
      ]
      for payload in payloads {
        try rawExchange(port: UInt16(port), payload)
      }
      #expect(try setup.logged("family").isEmpty)
      #expect(try await setup.push("family", token: setup.family, good).status == 200)
      #expect(try setup.logged("family") == ["\(Self.replicaHex):1"])
    }

    /// A body over the 4 MiB limit that the client is still sending when the server has
    /// decided on 413 is read and dropped before the answer, so the client gets the 413, not a
    /// reset connection (which a replica takes for an unreachable server, and retries).
    @Test func aClientStillSendingAnOversizedBodyGetsThe413() throws {
      let setup = try Setup()
      let port = UInt16(try #require(setup.server.url.port))
      let socket = try loopbackSocket(port: port)  // SyncFuzzTests.swift
      defer { close(socket) }
      let size = SyncService.maximumBodyBytes + 100_000
      try sendAll(socket, Array((Self.pushHead(setup) + "Content-Length: \(size)\r\n\r\n").utf8))
      // Long enough for a server answering at once to have answered and closed.
      Thread.sleep(forTimeInterval: 0.5)
      try sendAll(socket, [UInt8](repeating: 0x20, count: size))
      let answer = try receiveAnswer(socket)
      #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer.prefix(200))")
      #expect(try setup.logged("family").isEmpty)
    }

    /// A client that asks before sending its body (`Expect: 100-continue`, as Kura's replicas do
    /// for bodies over 1 MiB) gets the 413 for a body over the limit without sending it, and a
    /// `100 Continue` for one under it, which is then applied.
    @Test func aClientAskingBeforeSendingIsRefusedOrToldToGoOn() throws {
      let setup = try Setup()
      let port = UInt16(try #require(setup.server.url.port))
      let refused = try loopbackSocket(port: port)
      defer { close(refused) }
      try sendAll(
        refused,
        Array(
          (Self.pushHead(setup) + "Expect: 100-continue\r\n"
            + "Content-Length: \(SyncService.maximumBodyBytes + 1)\r\n\r\n").utf8))
      let refusal = try receiveAnswer(refused)
      #expect(refusal.hasPrefix("HTTP/1.1 413"), "\(refusal.prefix(200))")
      let good = try Self.body([Self.save(1, name: "Kyoto")])
      let accepted = try loopbackSocket(port: port)
      defer { close(accepted) }
      try sendAll(
        accepted,
        Array(
          (Self.pushHead(setup) + "Expect: 100-continue\r\nContent-Length: \(good.count)\r\n\r\n")
            .utf8))
      let goOn = try receiveAnswer(accepted, until: "\r\n\r\n")
      #expect(goOn.hasPrefix("HTTP/1.1 100"), "\(goOn.prefix(200))")
      try sendAll(accepted, Array(good))
      let answer = try receiveAnswer(accepted)
      #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(200))")
      #expect(try setup.logged("family") == ["\(Self.replicaHex):1"])
    }

    /// The head of a raw push request to space `family`, up to (not including) its length.
    private static func pushHead(_ setup: Setup) -> String {
      "POST /v1/spaces/family/push HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        + "Authorization: Bearer \(setup.family.token)\r\nContent-Type: application/json\r\n"
    }

    /// The push's COMMIT reaches PostgreSQL but its answer is lost (the fault proxy between the
    /// server and the database): the client gets an error, resends, and the save is in the log
    /// once.
    @Test func aPushWhoseCommitAnswerIsLostIsAppliedOnceWhenResent() async throws {
      let cluster = try PostgresCluster.shared()
      let direct = try cluster.freshDatabaseURL()
      let proxy = try FaultProxy(cluster: cluster)
      defer { proxy.stop() }
      let setup = try Setup(database: try proxy.url(replacingHostOf: direct))
      let body = try Self.body([Self.save(1, name: "Kyoto")])
      proxy.dropAnswer(toQueryStartingWith: "COMMIT")
      let lost = try await setup.push("family", token: setup.family, body)
      #expect(proxy.answersDropped == 1)
      #expect(lost.status == 503)
      let resent = try await setup.push("family", token: setup.family, body)
      #expect(resent.status == 200)
      #expect(
        try JSONDecoder().decode(SyncPushResponse.self, from: resent.body)
          == SyncPushResponse(acknowledged: 1, head: 1))
      #expect(try setup.logged("family") == ["\(Self.replicaHex):1"])
    }

    @Test func aNonLoopbackAddressWithoutTLSIsRefused() throws {
      let directory = TemporaryDirectory()
      let tokens = directory.file("tokens")
      try "".write(to: tokens, atomically: true, encoding: .utf8)
      let result = try run(
        try executable("kura"),
        [
          "sync", "serve", "--store", "postgresql:///none", "--listen", "0.0.0.0:0", "--tokens",
          tokens.path,
        ],
        environment: directory.environment)
      #expect(result.status == 64)
      #expect(result.stderr.contains("Won't listen on 0.0.0.0 without TLS"))
    }
  }

  /// A raw socket's write that failed.
  private struct SocketError: Error, CustomStringConvertible {
    var description: String
  }

  /// Writes all of `bytes` to `socket`, or throws naming how far it got.
  private func sendAll(_ socket: Int32, _ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes {
        send(socket, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL))
      }
      guard written > 0 else {
        let reason = String(cString: strerror(errno))
        throw SocketError(
          description: "send failed after \(offset) of \(bytes.count) bytes: \(reason)")
      }
      offset += written
    }
  }

  /// Reads from `socket` until it closes (or, with `until`, until that text arrives), within
  /// 20 seconds, and returns what came as text.
  private func receiveAnswer(_ socket: Int32, until marker: String? = nil) throws -> String {
    var timeout = timeval(tv_sec: 20, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var answer = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while marker.map({ !String(decoding: answer, as: UTF8.self).contains($0) }) ?? true {
      let count = recv(socket, &buffer, buffer.count, 0)
      if count <= 0 { break }
      answer.append(contentsOf: buffer[0..<count])
    }
    return String(decoding: answer, as: UTF8.self)
  }

  /// Connects to 127.0.0.1:`port`, writes `bytes` and closes the connection.
  private func rawExchange(port: UInt16, _ bytes: [UInt8]) throws {
    let socket = try loopbackSocket(port: port)  // SyncFuzzTests.swift
    defer { close(socket) }
    _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    // Closed without waiting for an answer: a truncated request never gets one.
  }
#endif
