#if canImport(CLibPQ)
  import Foundation
  import KuraPostgreSQL
  import KuraSync
  import KuraSyncCore
  import KuraSyncServer
  import KuraTestSupport
  import KuraEngineTestSupport
  import KuraCLI
  import Synchronization

  /// A relay in front of a sync server, on a TCP port of 127.0.0.1 of its own: it forwards each
  /// HTTP request whole (reading `Content-Length` bodies) and every byte of the answers, and
  /// records the target of each request (`/v1/spaces/family/changes?after=0&limit=1000`).
  ///
  /// Told to hold from the `n`th pull on (``holdPulls(from:)``), it forwards nothing more of
  /// that request or any later one: the client waits for an answer that never comes, at a
  /// point the test knows exactly (a replica sends its next pull only once it has stored the
  /// previous page). Told to cut reused connections (``cutReusedConnections()``), it closes a
  /// connection when a second request arrives on it, forwarding nothing of that request: a
  /// kept-alive connection that died just as the client reused it. Tests measure what crossed
  /// the relay, never timing.
  final class SyncHTTPRelay: Sendable {
    /// The relay's base URL, such as `http://127.0.0.1:40123`.
    let url: URL
    private let target: UInt16
    private let listener: Int32
    private let state = Mutex(State())
    private let changed = NSCondition()

    /// A request that reached the relay: its connection (numbered from 0 in the order
    /// accepted), how many requests came before it on that connection, its method and
    /// target, and whether it was forwarded.
    struct Request: Equatable {
      var connection: Int
      var index: Int
      var method: String
      var target: String
      var forwarded: Bool
    }

    private struct State {
      var targets: [String] = []
      var requests: [Request] = []
      var connections = 0
      var cutReused = false
      var holdFrom: Int?
      var holding = false
      var stopped = false
      var sockets: [Int32] = []
    }

    /// Starts relaying to `server` (an `http://127.0.0.1:PORT` URL).
    init(to server: URL) throws {
      guard let port = server.port else { throw RelayError("no port in \(server)") }
      target = UInt16(port)
      let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      guard listener >= 0 else { throw RelayError("socket failed") }
      self.listener = listener
      var address = Self.loopback(port: 0)
      let length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
      }
      guard bound == 0, listen(listener, 16) == 0 else { throw RelayError("bind failed") }
      var actual = sockaddr_in()
      var actualLength = length
      _ = withUnsafeMutablePointer(to: &actual) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          getsockname(listener, $0, &actualLength)
        }
      }
      guard let url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: actual.sin_port))")
      else { throw RelayError("no URL") }
      self.url = url
      let thread = Thread { [self] in acceptLoop() }
      thread.name = "SyncHTTPRelay.accept"
      thread.start()
    }

    deinit { stop() }

    /// The target of every request forwarded so far, in order.
    var targets: [String] { state.withLock { $0.targets } }

    /// Every request that reached the relay so far, forwarded or not, in order.
    var requests: [Request] { state.withLock { $0.requests } }

    /// From now on, closes a connection when a second request arrives on it (forwarding
    /// nothing of it).
    func cutReusedConnections() {
      state.withLock { $0.cutReused = true }
    }

    /// The `after` of every pull forwarded so far, in order.
    var pulledAfter: [Int64] {
      targets.filter { $0.contains("/changes?") }.compactMap { target in
        target.split(separator: "?").last?.split(separator: "&")
          .first { $0.hasPrefix("after=") }.flatMap { Int64($0.dropFirst(6)) }
      }
    }

    /// Forwards nothing more from the `number`th pull (1 is the first) on.
    func holdPulls(from number: Int) {
      state.withLock { $0.holdFrom = number }
    }

    /// Waits until a pull is held (up to `timeout` seconds); returns whether one is.
    func waitUntilHolding(timeout: TimeInterval) -> Bool {
      let deadline = Date(timeIntervalSinceNow: timeout)
      changed.lock()
      defer { changed.unlock() }
      while !state.withLock({ $0.holding }) {
        if !changed.wait(until: deadline) { return state.withLock { $0.holding } }
      }
      return true
    }

    /// Stops accepting and closes every connection.
    func stop() {
      let sockets = state.withLock { state -> [Int32] in
        state.stopped = true
        return state.sockets
      }
      shutdown(listener, Int32(SHUT_RDWR))
      for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    // MARK: Relaying

    private func acceptLoop() {
      while !state.withLock({ $0.stopped }) {
        let client = accept(listener, nil, nil)
        guard client >= 0 else {
          if errno == EINTR { continue }
          return
        }
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: target)
        let connected = withUnsafePointer(to: &address) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
          }
        }
        guard connected == 0 else {
          close(client)
          close(server)
          continue
        }
        let connection = state.withLock { state -> Int in
          state.sockets += [client, server]
          defer { state.connections += 1 }
          return state.connections
        }
        let requests = Thread { [self] in
          forwardRequests(from: client, to: server, connection: connection)
          shutdown(server, Int32(SHUT_WR))
        }
        requests.name = "SyncHTTPRelay.requests"
        requests.start()
        let answers = Thread { [self] in
          forwardBytes(from: server, to: client)
          shutdown(client, Int32(SHUT_RDWR))
          shutdown(server, Int32(SHUT_RDWR))
        }
        answers.name = "SyncHTTPRelay.answers"
        answers.start()
      }
    }

    /// Reads whole requests (head, then `Content-Length` bytes) and forwards each, unless held.
    private func forwardRequests(from client: Int32, to server: Int32, connection: Int) {
      var pending: [UInt8] = []
      var index = 0
      var buffer = [UInt8](repeating: 0, count: 65536)
      let separator: [UInt8] = Array("\r\n\r\n".utf8)
      while true {
        while let end = Self.find(separator, in: pending) {
          let head = String(decoding: pending[..<end], as: UTF8.self)
          let lines = head.split(separator: "\r\n")
          let length =
            lines.dropFirst().compactMap { line -> Int? in
              let parts = line.split(separator: ":", maxSplits: 1)
              guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
              return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 0
          let total = end + separator.count + length
          guard pending.count >= total else { break }
          let requestLine = lines.first.map(String.init) ?? ""
          let words = requestLine.split(separator: " ")
          let requestTarget = words.count > 1 ? String(words[1]) : ""
          var request = Request(
            connection: connection, index: index, method: words.first.map(String.init) ?? "",
            target: requestTarget, forwarded: false)
          index += 1
          let cut = state.withLock { state -> Bool in
            guard state.cutReused, request.index > 0 else { return false }
            state.requests.append(request)
            return true
          }
          if cut {
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
            return
          }
          let forward = state.withLock { state -> Bool in
            defer { state.requests.append(request) }
            let pulls = state.targets.filter { $0.contains("/changes?") }.count
            if requestTarget.contains("/changes?"), let from = state.holdFrom, pulls + 1 >= from {
              state.holding = true
              return false
            }
            if state.holding { return false }
            state.targets.append(requestTarget)
            request.forwarded = true
            return true
          }
          if !forward {
            changed.lock()
            changed.broadcast()
            changed.unlock()
            // Held: read and drop whatever the client sends until it closes.
            while read(client, &buffer, buffer.count) > 0 {}
            return
          }
          guard FaultProxy.writeAll(server, pending[..<total]) else { return }
          pending.removeFirst(total)
        }
        let count = read(client, &buffer, buffer.count)
        if count <= 0 { return }
        pending += buffer[0..<count]
      }
    }

    private func forwardBytes(from source: Int32, to destination: Int32) {
      var buffer = [UInt8](repeating: 0, count: 65536)
      while true {
        let count = read(source, &buffer, buffer.count)
        if count <= 0 { return }
        guard FaultProxy.writeAll(destination, buffer[0..<count]) else { return }
      }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
      guard haystack.count >= needle.count else { return nil }
      for start in 0...(haystack.count - needle.count)
      where haystack[start..<(start + needle.count)].elementsEqual(needle) {
        return start
      }
      return nil
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = port.bigEndian
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      return address
    }
  }

  struct RelayError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
#endif
