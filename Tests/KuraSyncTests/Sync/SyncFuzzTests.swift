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

  /// Seeded random mutations of valid requests sent as raw bytes to a real `kura sync serve`:
  /// truncated bodies, flipped bits (in the body, the path and the token), huge lengths, values
  /// of the wrong JSON type, and replays. Every answer is a 4xx — or a 200 for a replay of what
  /// the server has (and for a read) — the server's data is unchanged at the end, and the
  /// server is still there.
  @Suite("Sync server fuzzing")
  struct SyncFuzzTests {
    /// What was sent, for the report of a failure.
    private enum Mutation: String, CaseIterable {
      case truncated, flippedBody, flippedPath, flippedToken, hugeLength, oversized, wrongType
      case replay, pullQuery
    }

    private static let replica = UUID()

    private static func pushBody(wall: UInt64) throws -> Data {
      let saves = (1...3).map { (sequence: Int) -> SyncSave in
        let stamp = SyncStamp(wall: wall, counter: UInt16(sequence), replica: replica)
        let name = SyncChange.set(
          "Trip", id: "t\(sequence)", incarnation: 1, property: "name",
          to: DatabaseValue.text("Kyoto \(sequence)"), stamp: stamp)
        let budget = SyncChange.set(
          "Trip", id: "t\(sequence)", incarnation: 1, property: "budget",
          to: DatabaseValue.integer(Int64(sequence * 100)), stamp: stamp)
        return SyncSave(sequence: Int64(sequence), changes: [name, budget])
      }
      let encoder = JSONEncoder()
      encoder.outputFormatting = .sortedKeys
      return try encoder.encode(
        SyncPushRequest(replica: SyncStamp.hex(replica), saves: saves))
    }

    /// The server's data as one text: every row of its three tables.
    private static func serverState(_ database: String) throws -> String {
      let connection = try PostgresConnection(database)
      let log = try connection.query(
        "SELECT space || '|' || position || '|' || replica || '|' || sequence || '|' || changes "
          + "FROM kura_sync_log ORDER BY space, position"
      ) { $0.string(at: 0) }
      let replicas = try connection.query(
        "SELECT replica || '|' || space || '|' || acknowledged FROM kura_sync_replicas "
          + "ORDER BY replica"
      ) { $0.string(at: 0) }
      let spaces = try connection.query(
        "SELECT space || '|' || head FROM kura_sync_spaces ORDER BY space"
      ) { $0.string(at: 0) }
      return (log + ["--"] + replicas + ["--"] + spaces).joined(separator: "\n")
    }

    /// A whole HTTP request.
    private static func request(
      method: String = "POST", path: String, token: String, body: [UInt8],
      contentLength: Int? = nil
    ) -> [UInt8] {
      let head =
        "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
        + "Content-Type: application/json\r\nConnection: close\r\n"
        + (method == "POST" ? "Content-Length: \(contentLength ?? body.count)\r\n" : "") + "\r\n"
      return Array(head.utf8) + body
    }

    @Test func mutatedRequestsGet4xxChangeNothingAndTheServerStaysUp() async throws {
      let directory = TemporaryDirectory()
      let database = try PostgresCluster.shared().freshDatabaseURL()
      let token = try makeToken(space: "family")
      let tokens = directory.file("tokens")
      try "\(token.line)\n".write(to: tokens, atomically: true, encoding: .utf8)
      let server = try SyncTestServer(store: database, tokens: tokens, directory: directory)
      let port = UInt16(try #require(server.url.port))
      let wall = UInt64(Date().timeIntervalSince1970 * 1000)
      let body = Array(try Self.pushBody(wall: wall))
      let path = "/v1/spaces/family/push"
      // The valid push, applied once: every mutation below is of something the server has.
      let first = try rawRequest(
        port: port, Self.request(path: path, token: token.token, body: body))
      try #require(first.status == 200, "the valid push got \(first.status as Any)")
      let before = try Self.serverState(database)
      let seed = UInt64(Date().timeIntervalSince1970)
      var generator = SeededGenerator(seed: seed)
      var counts: [Mutation: Int] = [:]
      let deadline = ContinuousClock.now + .seconds(60)
      var sent = 0
      for index in 0..<2_000 where ContinuousClock.now < deadline {
        let mutation = Mutation.allCases.randomElement(using: &generator) ?? .replay
        counts[mutation, default: 0] += 1
        sent += 1
        var bytes: [UInt8]
        switch mutation {
        case .truncated:
          let cut = Int.random(in: 0..<body.count, using: &generator)
          bytes = Self.request(path: path, token: token.token, body: Array(body.prefix(cut)))
        case .flippedBody:
          var mutated = body
          for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let at = Int.random(in: 0..<mutated.count, using: &generator)
            mutated[at] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
          }
          bytes = Self.request(path: path, token: token.token, body: mutated)
        case .flippedPath:
          var mutated = Array(path.utf8)
          let at = Int.random(in: 1..<mutated.count, using: &generator)
          // Printable, not a space (a space would end the request line's path).
          mutated[at] = UInt8.random(in: 0x21...0x7e, using: &generator)
          guard mutated != Array(path.utf8) else { continue }
          bytes = Self.request(
            path: String(decoding: mutated, as: UTF8.self), token: token.token, body: body)
        case .flippedToken:
          var mutated = Array(token.token.utf8)
          let at = Int.random(in: 0..<mutated.count, using: &generator)
          mutated[at] = UInt8.random(in: 0x21...0x7e, using: &generator)
          guard mutated != Array(token.token.utf8) else { continue }
          bytes = Self.request(
            path: path, token: String(decoding: mutated, as: UTF8.self), body: body)
        case .hugeLength:
          // A length far beyond the body: answered 413 at once, without waiting for it.
          let length = [1 << 31, 1 << 40, Int.max / 2].randomElement(using: &generator) ?? 1
          bytes = Self.request(path: path, token: token.token, body: body, contentLength: length)
        case .oversized:
          let size = SyncService.maximumBodyBytes + Int.random(in: 1...4096, using: &generator)
          bytes = Self.request(
            path: path, token: token.token, body: [UInt8](repeating: 0x7b, count: size))
        case .wrongType:
          bytes = Self.request(
            path: path, token: token.token,
            body: try Self.retyped(body, using: &generator))
        case .replay:
          bytes = Self.request(path: path, token: token.token, body: body)
        case .pullQuery:
          let queries = [
            "after=-1", "after=abc", "limit=0", "limit=100000", "after=99999999999999999999",
            "after=0&limit=1", "after=1", "limit=%00", "after=0&after=1",
          ]
          let query = queries.randomElement(using: &generator) ?? "after=0"
          bytes = Self.request(
            method: "GET", path: "/v1/spaces/family/changes?\(query)", token: token.token,
            body: [])
        }
        let answer = try rawRequest(port: port, bytes)
        let allowed: Bool
        switch (mutation, answer.status) {
        case (_, .some(let status)) where (400..<500).contains(status): allowed = true
        // A true replay: a request the server already applied (a mutation that decodes to the
        // same saves counts) gets the first answer again.
        case (_, 200) where answer.body == first.body: allowed = true
        case (.pullQuery, 200): allowed = true
        // A body cut short: the server may close without an answer.
        case (.truncated, nil): allowed = true
        default: allowed = false
        }
        let answered = String(decoding: answer.body.prefix(300), as: UTF8.self)
        #expect(
          allowed,
          "seed \(seed), request \(index) (\(mutation)): answered \(answer.status as Any) \(answered)"
        )
        if !allowed { break }
      }
      #expect(sent >= 100, "only \(sent) requests in 60 seconds")
      #expect(try Self.serverState(database) == before, "seed \(seed) changed the server's data")
      // Still up: the replay is answered, as at the start.
      let last = try rawRequest(
        port: port, Self.request(path: path, token: token.token, body: body))
      #expect(last.status == 200)
      #expect(Mutation.allCases.allSatisfy { (counts[$0] ?? 0) > 0 }, "\(counts)")
    }

    /// The push with one value (chosen at random) replaced by one of another JSON type.
    private static func retyped<Generator: RandomNumberGenerator>(
      _ body: [UInt8], using generator: inout Generator
    ) throws -> [UInt8] {
      var root = try #require(
        try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
      let replacements: [Any] = ["text", 12, [1, 2], ["a": 1], NSNull(), true, -1.5]
      let replacement = replacements.randomElement(using: &generator) ?? NSNull()
      switch Int.random(in: 0..<4, using: &generator) {
      case 0: root["replica"] = replacement
      case 1: root["saves"] = replacement
      default:
        var saves = try #require(root["saves"] as? [[String: Any]])
        let at = Int.random(in: 0..<saves.count, using: &generator)
        if Bool.random(using: &generator) {
          saves[at]["sequence"] = replacement is Int ? "1" : replacement
        } else {
          saves[at]["changes"] = replacement
        }
        root["saves"] = saves
      }
      return Array(try JSONSerialization.data(withJSONObject: root))
    }
  }

  /// Sends `bytes` on a new connection to 127.0.0.1:`port` (`[::1]` with `ipv6`), ends the
  /// sending side, and reads the answer until the server closes (at most 20 seconds): its
  /// status (nil when there was none) and body.
  func rawRequest(port: UInt16, _ bytes: [UInt8], ipv6: Bool = false) throws -> (
    status: Int?, body: Data
  ) {
    let socket = try ipv6 ? ipv6LoopbackSocket(port: port) : loopbackSocket(port: port)
    defer { close(socket) }
    var timeout = timeval(tv_sec: 20, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes {
        send(socket, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL))
      }
      if written <= 0 { break }  // the server closed (an oversized body): read its answer
      offset += written
    }
    shutdown(socket, Int32(SHUT_WR))
    var answer = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = recv(socket, &buffer, buffer.count, 0)
      if count <= 0 { break }
      answer.append(contentsOf: buffer[0..<count])
    }
    guard let headEnd = answer.range(of: Data("\r\n\r\n".utf8)) else { return (nil, answer) }
    let statusLine =
      String(decoding: answer[..<headEnd.lowerBound], as: UTF8.self)
      .split(separator: "\r\n").first ?? ""
    let parts = statusLine.split(separator: " ")
    let status = parts.count >= 2 && parts[0].hasPrefix("HTTP/") ? Int(parts[1]) : nil
    return (status, Data(answer[headEnd.upperBound...]))
  }

  /// A TCP connection to 127.0.0.1:`port` (close it when done).
  func loopbackSocket(port: UInt16) throws -> Int32 {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(socket >= 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return try connected(socket, to: address, port: port)
  }

  /// A TCP connection to [::1]:`port` (close it when done).
  func ipv6LoopbackSocket(port: UInt16) throws -> Int32 {
    let socket = Glibc.socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
    try #require(socket >= 0)
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_port = port.bigEndian
    address.sin6_addr = in6addr_loopback
    return try connected(socket, to: address, port: port)
  }

  /// `socket` connected to `address` (a `sockaddr_in` or `sockaddr_in6`), or closed and
  /// ``SyncSocketError`` thrown.
  private func connected<Address>(_ socket: Int32, to address: Address, port: UInt16) throws
    -> Int32
  {
    var address = address
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<Address>.size))
      }
    }
    guard result == 0 else {
      close(socket)
      throw SyncSocketError(port: port)
    }
    return socket
  }

  /// No connection to the sync server's port.
  struct SyncSocketError: Error, CustomStringConvertible {
    var port: UInt16
    var description: String { "can't connect to 127.0.0.1:\(port)" }
  }
#endif
