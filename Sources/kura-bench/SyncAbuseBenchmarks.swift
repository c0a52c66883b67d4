#if canImport(CLibPQ) && canImport(Glibc)
  import Dispatch
  import Foundation
  import Glibc
  import Kura
  import KuraSyncServer
  import Synchronization

  /// One HTTP/1.1 request on a connection of its own to 127.0.0.1:`port`, blocking; returns
  /// the status (0 when the connection failed or no answer came in 30 s).
  func rawHTTPRequest(port: UInt16, _ request: [UInt8]) -> Int {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { return 0 }
    defer { close(socket) }
    guard connectLoopback(socket, port: port) else { return 0 }
    var offset = 0
    while offset < request.count {
      let written = request.withUnsafeBytes {
        send(socket, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL))
      }
      guard written > 0 else { return 0 }
      offset += written
    }
    var timeout = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16_384)
    // The status line is enough: the request says `Connection: close`.
    while answer.count < 12 {
      let count = recv(socket, &buffer, buffer.count, 0)
      guard count > 0 else { break }
      answer += buffer[0..<count]
    }
    guard answer.count >= 12 else { return 0 }
    return Int(String(decoding: answer[9..<12], as: UTF8.self)) ?? 0
  }

  private func connectLoopback(_ socket: Int32, port: UInt16) -> Bool {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  /// A push request's bytes: one save of `changesPerSave` changes, as `replica` (written as
  /// the wire format's JSON: the bench is a client from outside).
  func rawPushRequest(
    space: String, token: String, replica: UUID, firstSequence: Int64, changesPerSave: Int,
    nameLength: Int
  ) throws -> [UInt8] {
    let replicaHex = replica.uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    let wall = String(UInt64(Date().timeIntervalSince1970 * 1000), radix: 16)
    let paddedWall = String(repeating: "0", count: 12 - wall.count) + wall
    let name = String(repeating: "n", count: nameLength)
    var changes: [String] = []
    for index in 0..<changesPerSave {
      let counter = String(index % 60_000, radix: 16)
      let stamp =
        "\(paddedWall)-\(String(repeating: "0", count: 4 - counter.count) + counter)-\(replicaHex)"
      changes.append(
        #"{"id":"\#(replicaHex)-\#(firstSequence)-\#(index)","incarnation":1,"model":"Trip","#
          + #""property":"name","stamp":"\#(stamp)","value":{"text":"\#(name)"}}"#)
    }
    let body = Array(
      (#"{"replica":"\#(replicaHex)","saves":[{"sequence":\#(firstSequence),"changes":["#
        + changes.joined(separator: ",") + "]}]}").utf8)
    let head =
      "POST /v1/spaces/\(space)/push HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
      + "\(token)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
      + "Connection: close\r\n\r\n"
    return Array(head.utf8) + body
  }

  /// A push of one large save whose bytes are made once; only the sequence number changes.
  struct FloodPush: Sendable {
    let space: String
    let token: String
    let prefix: [UInt8]
    let suffix: [UInt8]

    init(space: String, token: String, replica: UUID, changes: Int, nameLength: Int) throws {
      self.space = space
      self.token = token
      let whole = try rawPushRequest(
        space: space, token: token, replica: replica, firstSequence: 1, changesPerSave: changes,
        nameLength: nameLength)
      // The body only: after the head's blank line.
      let text = String(decoding: whole, as: UTF8.self)
      let body = text[(text.range(of: "\r\n\r\n")?.upperBound ?? text.startIndex)...]
      let marker = #""sequence":1,"#
      guard let at = body.range(of: marker) else {
        throw SyncAbuseBenchmarkError(description: "the push has no sequence")
      }
      prefix = Array(body[..<at.lowerBound].utf8) + Array(#""sequence":"#.utf8)
      suffix = Array(",".utf8) + Array(body[at.upperBound...].utf8)
    }

    func request(sequence: Int64) -> [UInt8] {
      let digits = Array(String(sequence).utf8)
      let length = prefix.count + digits.count + suffix.count
      let head =
        "POST /v1/spaces/\(space)/push HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
        + "\(token)\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n"
        + "Connection: close\r\n\r\n"
      var request = Array(head.utf8)
      request.reserveCapacity(head.utf8.count + length)
      request += prefix
      request += digits
      request += suffix
      return request
    }
  }

  struct SyncAbuseBenchmarkError: Error, CustomStringConvertible {
    var description: String
  }

  /// Per-space fairness: while 4 clients push saves of nearly the largest body (4 MiB) to one
  /// space as fast as they are answered, one-save pushes to another space, one after another
  /// and one per 25 ms at most (300, or 60 s); their latency's p50 and p99 (target p99 ≤
  /// 50 ms).
  func runSyncFairnessBenchmark(_ bench: SyncBenchmarkServer) throws {
    guard let floodToken = bench.tokens["flood"]?.token,
      let quietToken = bench.tokens["quiet"]?.token
    else { return }
    let port = bench.server.port
    let clock = ContinuousClock()
    let quietReplica = UUID()
    var sequence: Int64 = 0
    var failures = 0
    /// `count` one-save pushes to the quiet space, one per 25 ms at most (60 s at most).
    func sample(_ count: Int) throws -> [Duration] {
      var samples: [Duration] = []
      let deadline = clock.now + .seconds(60)
      for _ in 0..<count where clock.now < deadline {
        sequence += 1
        let due = clock.now + .milliseconds(25)
        let request = try rawPushRequest(
          space: "quiet", token: quietToken, replica: quietReplica, firstSequence: sequence,
          changesPerSave: 1, nameLength: 20)
        let start = clock.now
        let status = rawHTTPRequest(port: port, request)
        samples.append(clock.now - start)
        if status != 200 { failures += 1 }
        let rest = due - clock.now
        if rest > .zero { usleep(UInt32(rest.components.attoseconds / 1_000_000_000_000)) }
      }
      return samples.sorted()
    }
    // The same pushes without the flood first: what this machine gives them alone.
    let alone = try sample(100)
    let stop = Atomic(false)
    let floodPushes = Atomic(0)
    let floodFailures = Atomic(0)
    let group = DispatchGroup()
    for _ in 0..<4 {
      let replica = UUID()
      let flood = try FloodPush(
        space: "flood", token: floodToken, replica: replica, changes: 3_000, nameLength: 1_000)
      group.enter()
      Thread {
        defer { group.leave() }
        var sequence: Int64 = 1
        while !stop.load(ordering: .relaxed) {
          // ~3.7 MB of JSON: 3,000 changes with 1,000-character names, the same ones in each
          // save (made once: the clients' own work would take the server's cores here).
          let request = flood.request(sequence: sequence)
          if rawHTTPRequest(port: port, request) == 200 {
            sequence += 1
            floodPushes.add(1, ordering: .relaxed)
          } else {
            floodFailures.add(1, ordering: .relaxed)
          }
        }
      }.start()
    }
    // The flood under way before the first sample.
    while floodPushes.load(ordering: .relaxed) < 4 && floodFailures.load(ordering: .relaxed) < 20 {
      usleep(10_000)
    }
    // Over about 8 s, so the samples span many flood pushes.
    let samples = try sample(300)
    stop.store(true, ordering: .relaxed)
    group.wait()
    let median = samples[samples.count / 2]
    let p99 = samples[min(samples.count - 1, samples.count * 99 / 100)]
    print(
      "one-save push to a 2nd space, 4 flooding 1st".padding(
        toLength: 44, withPad: " ", startingAt: 0)
        + " p50 \(milliseconds(median))  p99 \(milliseconds(p99))  (\(samples.count) pushes, "
        + "\(failures) failed; \(floodPushes.load(ordering: .relaxed)) flood pushes of ~3.7 MB; "
        + "target p99 ≤ 50 ms; without the flood: p50 \(milliseconds(alone[alone.count / 2]))  "
        + "p99 \(milliseconds(alone[min(alone.count - 1, alone.count * 99 / 100)])))")
    fflush(nil)
    if outputsJSON {
      emitJSON([
        "workload": .string("push beside a flooded space"),
        "median_ns": .integer(nanoseconds(median)),
        "p99_ns": .integer(nanoseconds(p99)),
      ])
    }
  }

  /// 1,000 connections sending their request heads a byte a second: how long a pull takes
  /// meanwhile (target ≤ 2 s), and how long until the server closed every dripping one
  /// (target ≤ 10 s).
  func runSyncDrippingBenchmark(_ bench: SyncBenchmarkServer) throws {
    guard let token = bench.tokens["quiet"]?.token else { return }
    let port = bench.server.port
    let clock = ContinuousClock()
    let started = clock.now
    var dripping: [Int32] = []
    defer { for socket in dripping { close(socket) } }
    for _ in 0..<1_000 {
      let socket = Glibc.socket(
        AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
      guard socket >= 0 else { break }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = port.bigEndian
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      dripping.append(socket)
    }
    let pull = Array(
      ("GET /v1/spaces/quiet/changes?after=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "
        + "Bearer \(token)\r\nConnection: close\r\n\r\n").utf8)
    var pulls: [Duration] = []
    var open = Set(dripping)
    var closedAfter: Duration?
    var written = [Int32: Int]()
    let head = Array("GET /v1/spaces/quiet/changes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
    // A byte a second on each (the head first), a pull each second, for at most 30 s.
    for _ in 0..<30 where !open.isEmpty {
      for socket in open {
        let offset = written[socket, default: 0]
        let byte: UInt8 = offset < head.count ? head[offset] : 0x61
        var value = byte
        if send(socket, &value, 1, Int32(MSG_NOSIGNAL)) == 1 {
          written[socket] = offset + 1
        } else if errno != EAGAIN {
          open.remove(socket)
        }
        var probe: UInt8 = 0
        let peeked = recv(socket, &probe, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if peeked == 0 || (peeked < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
          open.remove(socket)
        }
      }
      let start = clock.now
      _ = rawHTTPRequest(port: port, pull)
      pulls.append(clock.now - start)
      if open.isEmpty { closedAfter = clock.now - started }
      if !open.isEmpty { usleep(1_000_000) }
    }
    let slowest = pulls.max() ?? .zero
    print(
      "pull while 1,000 connections drip heads".padding(toLength: 44, withPad: " ", startingAt: 0)
        + " slowest of \(pulls.count) \(milliseconds(slowest)) (target ≤ 2 s); all closed "
        + (closedAfter.map { "after \(milliseconds($0))" } ?? "NOT within 30 s")
        + " (target ≤ 10 s)")
    fflush(nil)
  }
#endif
