#if canImport(KuraSyncServer) && canImport(Glibc)
  import Foundation
  import Glibc
  import KuraPostgreSQL
  import KuraSyncCore

  /// The hostile replica of a soak run: a device with a valid token of its own (`device=hostile`
  /// in the space) that pushes well-formed lies between the honest replicas' steps, as raw HTTP
  /// (what no Kura replica would send): wrong kinds, a required property missing or `null`, a
  /// NaN or infinite date, an id that is not the model's id type, and impersonation (pushing or
  /// settling as an honest replica). Every lie must be refused (400, 403) or, when the server
  /// logs it, quarantined by every honest replica; an impersonation must get 403.
  struct SoakHostile {
    let token: String
    /// The last answer received (its head and the start of its body), for an error.
    private var lastAnswer = ""
    let replica = UUID()
    private(set) var sequence: Int64 = 0
    private(set) var tally = Tally()
    private var number = 0

    /// What the hostile replica's pushes got.
    struct Tally {
      var refused = 0  // 400
      var forbidden = 0  // 403
      var logged = 0  // 200: the server took it, the replicas must quarantine it
      var unanswered = 0  // a cut, a killed server: no answer
      static func + (lhs: Tally, rhs: Tally) -> Tally {
        Tally(
          refused: lhs.refused + rhs.refused, forbidden: lhs.forbidden + rhs.forbidden,
          logged: lhs.logged + rhs.logged, unanswered: lhs.unanswered + rhs.unanswered)
      }
    }

    init(token: String) { self.token = token }

    /// The replica id's hex, as the wire writes it.
    var replicaHex: String { SyncStamp.hex(replica) }

    /// One lie, chosen by `choice`, about the acknowledged ids (an id an honest replica saved)
    /// or as one of the honest `replicas` the server knows; throws when an impersonation is not
    /// refused with 403.
    mutating func lie(
      choice: UInt64, acknowledged: [String], replicas: [(replica: String, acknowledged: Int64)],
      port: UInt16
    ) throws {
      number += 1
      // The next number after the last the server took (an answer lost to a cut or a killed
      // server leaves it unknown here).
      if let own = replicas.first(where: { $0.replica == replicaHex }) {
        sequence = own.acknowledged
      }
      let target =
        acknowledged.isEmpty ? "none" : acknowledged[Int(choice / 8) % acknowledged.count]
      func stamp(by replica: UUID) -> String {
        SyncStamp(
          wall: HybridLogicalClock.systemWallClock(), counter: UInt16(number % 60_000),
          replica: replica
        ).text
      }
      func set(_ id: String, _ property: String, _ value: String, by replica: UUID? = nil)
        -> String
      {
        "{\"id\":\"\(id)\",\"incarnation\":1,\"model\":\"SoakTrip\",\"property\":\"\(property)\","
          + "\"stamp\":\"\(stamp(by: replica ?? self.replica))\",\"value\":\(value)}"
      }
      let nan = String(Double.nan.bitPattern, radix: 16)
      let infinity = String(Double.infinity.bitPattern, radix: 16)
      let hostileID = "hostile-\(replicaHex.prefix(8))-\(number)"
      switch choice % 6 {
      case 0:  // a wrong kind: an integer for a text
        try push([set(target, "replica", "{\"integer\":\"5\"}")], port: port)
      case 1:  // a required property set to null
        try push([set(target, "replica", "null")], port: port)
      case 2:  // a new model missing its required properties
        try push([set(hostileID, "savedAt", "{\"real\":\"\(nan)\"}")], port: port)
      case 3:  // NaN and infinite dates on an honest model
        let bits = choice.isMultiple(of: 2) ? nan : infinity
        try push([set(target, "savedAt", "{\"real\":\"\(bits)\"}")], port: port)
      case 4:  // a wrong kind: bytes for a date
        try push([set(target, "savedAt", "{\"blob\":\"AAE=\"}")], port: port)
      default:  // impersonation: a push and a settle as an honest replica
        guard
          let (victim, last) = replicas.first(where: { $0.replica != replicaHex })
        else {
          try push([set(hostileID, "replica", "{\"text\":\"\(hostileID)\"}")], port: port)
          return
        }
        // The victim's next save's number, and a settled position it may well have.
        // A complete, well-formed save stamped by the victim: only the credential can refuse it.
        let impersonated = SyncStamp.uuid(hex: victim) ?? replica
        let now = String(Date().timeIntervalSince1970.bitPattern, radix: 16)
        let pushed = push(
          as: victim, sequence: last + 1,
          [
            set(hostileID, "replica", "{\"text\":\"\(hostileID)\"}", by: impersonated),
            set(hostileID, "savedAt", "{\"real\":\"\(now)\"}", by: impersonated),
          ], port: port)
        let pushAnswer = lastAnswer
        let settled = request(
          "GET /v1/spaces/soak/changes?after=0&limit=1&replica=\(victim)&settled=1",
          body: [], port: port)
        for status in [pushed, settled] {
          switch status {
          case 403: tally.forbidden += 1
          case 0, 500...599: tally.unanswered += 1
          default:
            throw SoakError(
              "the hostile replica acting as replica \(victim) was answered \(status), not 403: "
                + (status == pushed ? pushAnswer : lastAnswer))
          }
        }
      }
    }

    /// Pushes one save of `changes` as the hostile replica, and counts the answer.
    private mutating func push(_ changes: [String], port: UInt16) throws {
      sequence += 1
      let status = push(as: replicaHex, sequence: sequence, changes, port: port)
      switch status {
      case 200: tally.logged += 1
      case 400:
        tally.refused += 1
        sequence -= 1  // not taken: the number is used again
      case 403:
        tally.forbidden += 1
        sequence -= 1
      case 0, 409, 500...599:
        // No answer (a cut, a killed server), or a number the server did not expect after an
        // answer lost: the next lie starts from what the server took.
        tally.unanswered += 1
      default:
        throw SoakError("a hostile push was answered \(status)")
      }
    }

    private mutating func push(
      as replica: String, sequence: Int64, _ changes: [String], port: UInt16
    )
      -> Int
    {
      let body =
        "{\"replica\":\"\(replica)\",\"saves\":[{\"changes\":[" + changes.joined(separator: ",")
        + "],\"sequence\":\(sequence)}]}"
      return request("POST /v1/spaces/soak/push", body: Array(body.utf8), port: port)
    }

    /// One HTTP/1.1 request on a connection of its own to 127.0.0.1:`port`; the status (0: no
    /// answer within 10 s).
    private mutating func request(_ line: String, body: [UInt8], port: UInt16) -> Int {
      let head =
        "\(line) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
        + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        + "Connection: close\r\n\r\n"
      let bytes = Array(head.utf8) + body
      let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      guard socket >= 0 else { return 0 }
      defer { close(socket) }
      var timeout = timeval(tv_sec: 10, tv_usec: 0)
      setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = port.bigEndian
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
      }
      guard connected else { return 0 }
      var offset = 0
      while offset < bytes.count {
        let written = bytes.withUnsafeBytes {
          send(socket, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL))
        }
        guard written > 0 else { return 0 }
        offset += written
      }
      var answer: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4_096)
      while answer.count < 4_096 {
        let count = recv(socket, &buffer, buffer.count, 0)
        guard count > 0 else { break }
        answer += buffer[0..<count]
      }
      guard answer.count >= 12 else { return 0 }
      lastAnswer = String(decoding: answer, as: UTF8.self)
      return Int(String(decoding: answer[9..<12], as: UTF8.self)) ?? 0
    }

    /// The replicas the server knows in the soak's space (the honest ones are impersonated),
    /// with the number of the last save it acknowledged of each.
    static func replicas(_ database: String) throws -> [(replica: String, acknowledged: Int64)] {
      try PostgresConnection(database).query(
        "SELECT replica, acknowledged FROM kura_sync_replicas WHERE space = 'soak' "
          + "ORDER BY replica"
      ) { ($0.string(at: 0), $0.int64(at: 1)) }
    }
  }
#endif
