#if canImport(CLibPQ)
  import Foundation
  import Synchronization

  @testable import Kura

  import KuraPostgreSQL

  import KuraTestSupport

  import KuraSyncCore

  /// A relay in front of the test cluster, for faults a real network has: it listens on a Unix
  /// socket of its own (`<folder>/.s.PGSQL.<port>`) and forwards every connection to the
  /// cluster's socket, unless told to
  ///
  /// - drop an answer: forward the client's next simple query that starts with a word (such as
  ///   `COMMIT`), then cut the connection before any of the server's reply reaches the client —
  ///   the server runs the statement; the client never learns its outcome;
  /// - cut every connection now;
  /// - stall every connection (relay nothing until ``resume()``), or black-hole it (read and
  ///   throw away both directions, forever — a half-open network path);
  /// - refuse new connections (accept and close them at once), as a server that can't be
  ///   reached.
  ///
  /// Tests point Kura at ``url(database:)``; what they measure is what reached the server (read
  /// on a direct connection), never timing.
  ///
  /// For example:
  ///
  /// ```swift
  /// let proxy = try FaultProxy(cluster: cluster)
  /// let container = try ModelContainer(for: Memo.self, configurations: .postgres(proxy.url(database: name)))
  /// proxy.dropAnswer(toQueryStartingWith: "COMMIT")
  /// try context.save()
  /// ```
  package final class FaultProxy: Sendable {
    /// What the relay does to a connection.
    package enum Mode: Sendable, Equatable {
      case forward
      case stalled
      case blackHoled
      case cut
    }

    /// The folder holding the proxy's socket.
    package let folder: String
    /// The port in the socket's name (the cluster's, so URLs differ only in `host`), or the
    /// TCP port on 127.0.0.1.
    package let port: Int
    /// Whether the proxy listens on TCP (127.0.0.1) rather than a Unix socket.
    package let isTCP: Bool
    private let target: String
    private let listener: Int32
    private let state = Mutex(State())
    private let wakeUp: (reader: Int32, writer: Int32)

    private struct State {
      var connections: [Int: Relay] = [:]
      var next = 0
      var dropAnswerTo: String?
      var dropAnswerToPipelineOf: Int?
      var dropsLeft = 0
      var afterDrop: (@Sendable () -> Void)?
      var refusesNew = false
      var stopped = false
      var accepted = 0
      var answersDropped = 0
      var exchanges = 0
    }

    /// One client connection and its server connection.
    private final class Relay: Sendable {
      let client: Int32
      let server: Int32
      let mode = Mutex(Mode.forward)
      init(client: Int32, server: Int32) {
        self.client = client
        self.server = server
      }
    }

    /// Starts relaying to `cluster`'s socket, listening on a Unix socket of its own or, with
    /// `tcp`, on a free TCP port of 127.0.0.1 (so libpq speaks TCP: keepalives apply).
    package init(cluster: PostgresCluster, tcp: Bool = false) throws {
      _ = brokenPipesAreErrors
      target = "\(cluster.folder)/.s.PGSQL.\(cluster.port)"
      isTCP = tcp
      var template = Array("/tmp/kura-fp-XXXXXX".utf8CString)
      guard let created = mkdtemp(&template) else { throw ProxyError("mkdtemp failed") }
      folder = String(cString: created)
      chmod(folder, 0o755)
      if tcp {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ProxyError("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        guard bound == 0 else { throw ProxyError("bind failed") }
        var actual = sockaddr_in()
        var actualLength = length
        _ = withUnsafeMutablePointer(to: &actual) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            getsockname(socket, $0, &actualLength)
          }
        }
        port = Int(UInt16(bigEndian: actual.sin_port))
        guard listen(socket, 64) == 0 else { throw ProxyError("listen failed") }
        listener = socket
      } else {
        port = cluster.port
        let socket = try Self.socket()
        try Self.withAddress("\(folder)/.s.PGSQL.\(port)") { address, length in
          guard bind(socket, address, length) == 0 else {
            throw ProxyError("bind failed: \(String(cString: strerror(errno)))")
          }
        }
        guard listen(socket, 64) == 0 else { throw ProxyError("listen failed") }
        listener = socket
      }
      var pipeEnds: [Int32] = [0, 0]
      guard pipe(&pipeEnds) == 0 else { throw ProxyError("pipe failed") }
      wakeUp = (pipeEnds[0], pipeEnds[1])
      let thread = Thread { [self] in acceptLoop() }
      thread.name = "FaultProxy.accept"
      thread.start()
    }

    deinit {
      stop()
      close(listener)
      close(wakeUp.reader)
      close(wakeUp.writer)
      unlink("\(folder)/.s.PGSQL.\(port)")
      rmdir(folder)
    }

    /// A URL of `database` on the cluster, through the proxy, as the superuser.
    package func url(database: String) -> String {
      if isTCP { return "postgresql://postgres@127.0.0.1:\(port)/\(database)" }
      let host = folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? folder
      return "postgresql://postgres@/\(database)?host=\(host)&port=\(port)"
    }

    /// The same database as `url` (a URL of the cluster), through the proxy.
    package func url(replacingHostOf url: String) throws -> String {
      let database = try PostgresLocation(url).database ?? "postgres"
      return self.url(database: database)
    }

    /// How many connections the proxy accepted so far.
    package var acceptedConnections: Int { state.withLock { $0.accepted } }

    /// How many times clients asked the server for an answer so far, on every connection: the
    /// simple queries (`Q`) and `Sync` messages (`S`, which ends each extended-protocol
    /// exchange, and a whole pipeline) relayed — each is one round trip a client waits on.
    package var exchanges: Int { state.withLock { $0.exchanges } }

    /// How many answers ``dropAnswer(toQueryStartingWith:)`` dropped so far.
    package var answersDropped: Int { state.withLock { $0.answersDropped } }

    /// The next `times` queries (on any connection: simple, prepared, or run again by a `Bind`
    /// of a statement prepared by name) whose text starts with `word` (ignoring case and
    /// leading spaces) are forwarded, then their connection is cut
    /// before the reply: `then` runs after the query was sent to the server and before the
    /// client's side is closed (the client is still waiting for its answer).
    package func dropAnswer(
      toQueryStartingWith word: String, times: Int = 1,
      then: (@Sendable () -> Void)? = nil
    ) {
      state.withLock {
        $0.dropAnswerTo = word.uppercased()
        $0.dropsLeft = times
        $0.afterDrop = then
      }
    }

    /// Like ``dropAnswer(toQueryStartingWith:times:then:)``, for the next pipeline (the
    /// messages up to a `Sync`) that runs at least `executes` statements: it is forwarded whole,
    /// then its connection is cut before the reply.
    package func dropAnswer(toPipelineOf executes: Int) {
      state.withLock {
        $0.dropAnswerToPipelineOf = executes
        $0.dropsLeft = 1
        $0.afterDrop = nil
      }
    }

    /// Cuts every open connection (both sides).
    package func cutAll() { setAll(.cut) }

    /// Stops relaying on every open connection until ``resume()``.
    package func stallAll() { setAll(.stalled) }

    /// Reads and throws away both directions of every open connection, from now on.
    package func blackHoleAll() { setAll(.blackHoled) }

    /// Reads and throws away both directions of the connection accepted last, from now on.
    package func blackHoleLatest() {
      let relay = state.withLock { state in state.connections.max { $0.key < $1.key }?.value }
      relay?.mode.withLock { $0 = .blackHoled }
    }

    /// Relays stalled connections again.
    package func resume() {
      let relays = state.withLock { Array($0.connections.values) }
      for relay in relays {
        relay.mode.withLock { if $0 == .stalled { $0 = .forward } }
      }
    }

    /// Whether new connections are accepted and closed at once (a server that can't be
    /// reached).
    package func refuseNewConnections(_ refuse: Bool) {
      state.withLock { $0.refusesNew = refuse }
    }

    /// Stops accepting and cuts every connection.
    package func stop() {
      let already = state.withLock { state -> Bool in
        defer { state.stopped = true }
        return state.stopped
      }
      guard !already else { return }
      var byte: UInt8 = 1
      _ = write(wakeUp.writer, &byte, 1)
      cutAll()
    }

    private func setAll(_ mode: Mode) {
      let relays = state.withLock { Array($0.connections.values) }
      for relay in relays {
        relay.mode.withLock { $0 = mode }
        if mode == .cut {
          shutdown(relay.client, Int32(SHUT_RDWR))
          shutdown(relay.server, Int32(SHUT_RDWR))
        }
      }
    }

    // MARK: Relaying

    private func acceptLoop() {
      while true {
        var descriptors = [
          pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
          pollfd(fd: wakeUp.reader, events: Int16(POLLIN), revents: 0),
        ]
        let ready = poll(&descriptors, 2, -1)
        if ready < 0 && errno == EINTR { continue }
        if descriptors[1].revents != 0 || state.withLock({ $0.stopped }) { return }
        let client = accept(listener, nil, nil)
        guard client >= 0 else { continue }
        if state.withLock({ $0.refusesNew }) {
          close(client)
          continue
        }
        guard let server = try? Self.socket(),
          (try? Self.withAddress(target, { connect(server, $0, $1) })) == 0
        else {
          close(client)
          continue
        }
        let relay = Relay(client: client, server: server)
        let id = state.withLock { state -> Int in
          state.next += 1
          state.accepted += 1
          state.connections[state.next] = relay
          return state.next
        }
        let thread = Thread { [self] in
          run(relay)
          _ = state.withLock { $0.connections.removeValue(forKey: id) }
          close(relay.client)
          close(relay.server)
        }
        thread.name = "FaultProxy.relay"
        thread.start()
      }
    }

    /// Relays one connection until either side closes or it is cut.
    private func run(_ relay: Relay) {
      var fromClient = ClientMessages()
      var buffer = [UInt8](repeating: 0, count: 65536)
      while true {
        let mode = relay.mode.withLock { $0 }
        if mode == .cut { return }
        let events = mode == .stalled ? Int16(0) : Int16(POLLIN)
        var descriptors = [
          pollfd(fd: relay.client, events: events, revents: 0),
          pollfd(fd: relay.server, events: events, revents: 0),
        ]
        // A short poll only so that a change of mode (stall, resume) is seen.
        let ready = poll(&descriptors, 2, 50)
        if ready < 0 && errno != EINTR { return }
        for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
          let source = index == 0 ? relay.client : relay.server
          let count = read(source, &buffer, buffer.count)
          if count <= 0 { return }
          let current = relay.mode.withLock { $0 }
          if current == .blackHoled { continue }
          if current == .cut { return }
          if index == 1 {
            guard Self.writeAll(relay.client, buffer[0..<count]) else { return }
            continue
          }
          let (word, executes) = state.withLock { ($0.dropAnswerTo, $0.dropAnswerToPipelineOf) }
          let before = fromClient.exchanges
          let cut = fromClient.scan(
            buffer[0..<count], cuttingAfterQueryStartingWith: word, orPipelineOf: executes)
          let asked = fromClient.exchanges - before
          if asked > 0 { state.withLock { $0.exchanges += asked } }
          let forwarded = cut ?? count
          guard Self.writeAll(relay.server, buffer[0..<forwarded]) else { return }
          if cut != nil {
            let hook = state.withLock { state -> (@Sendable () -> Void)? in
              state.dropsLeft -= 1
              let hook = state.afterDrop
              if state.dropsLeft <= 0 {
                state.dropAnswerTo = nil
                state.dropAnswerToPipelineOf = nil
                state.afterDrop = nil
              }
              state.answersDropped += 1
              return hook
            }
            shutdown(relay.server, Int32(SHUT_RDWR))
            hook?()
            return
          }
        }
      }
    }

    /// Writes every byte of `bytes` to `descriptor`; `false` when the other side went away.
    package static func writeAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
      var offset = bytes.startIndex
      while offset < bytes.endIndex {
        let written = bytes[offset...].withUnsafeBytes {
          Foundation.write(descriptor, $0.baseAddress, $0.count)
        }
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { return false }
        offset += written
      }
      return true
    }

    private static func socket() throws -> Int32 {
      let descriptor = Foundation.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
      guard descriptor >= 0 else { throw ProxyError("socket failed") }
      return descriptor
    }

    private static func withAddress<Result>(
      _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result
    ) throws -> Result {
      var address = sockaddr_un()
      address.sun_family = sa_family_t(AF_UNIX)
      let bytes = Array(path.utf8)
      guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
        throw ProxyError("socket path too long: \(path)")
      }
      withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in bytes.enumerated() { raw[index] = byte }
      }
      return try withUnsafePointer(to: &address) { pointer in
        try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          try body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
    }

    /// Follows the client's side of the protocol: the startup packet (no type byte), then
    /// typed messages (a byte, a 4-byte length counting itself, the body).
    private struct ClientMessages {
      var startedUp = false
      var header: [UInt8] = []
      var remaining = 0
      var type: UInt8 = 0
      var body: [UInt8] = []
      /// The simple queries and `Sync` messages read so far.
      var exchanges = 0
      /// The `Execute` messages since the last `Sync`.
      var executesSinceSync = 0
      /// The start of the SQL of each statement prepared by name (`Parse`), by its name: a
      /// `Bind` of it is that query again.
      var prepared: [[UInt8]: ArraySlice<UInt8>] = [:]

      /// Reads `bytes`; returns how many of them to forward before cutting, when a simple
      /// query (`Q`) starting with `word` ends in them.
      mutating func scan(
        _ bytes: ArraySlice<UInt8>, cuttingAfterQueryStartingWith word: String?,
        orPipelineOf executes: Int? = nil
      )
        -> Int?
      {
        var consumed = 0
        for byte in bytes {
          consumed += 1
          if remaining > 0 {
            remaining -= 1
            let isQuery =
              type == UInt8(ascii: "Q") || type == UInt8(ascii: "P") || type == UInt8(ascii: "B")
            if isQuery, body.count < 256 { body.append(byte) }
            if remaining == 0 {
              let sql = query()
              if type == UInt8(ascii: "P"), let end = body.firstIndex(of: 0), end > 0 {
                prepared[Array(body[..<end])] = sql
              }
              if isQuery, let word, Self.starts(sql, with: word) { return consumed }
              body = []
            }
            continue
          }
          header.append(byte)
          let headerLength = startedUp ? 5 : 4
          guard header.count == headerLength else { continue }
          let lengthBytes = header.suffix(4)
          let length = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
          type = startedUp ? header[0] : 0
          if type == UInt8(ascii: "Q") || type == UInt8(ascii: "S") { exchanges += 1 }
          if type == UInt8(ascii: "E") { executesSinceSync += 1 }
          if type == UInt8(ascii: "S") {
            defer { executesSinceSync = 0 }
            if let executes, executesSinceSync >= executes {
              header = []
              return consumed
            }
          }
          header = []
          remaining = length - 4
          if !startedUp {
            // The startup packet, an SSL or GSS request: the next message is typed (the
            // server's one-byte answer to a request is relayed as it is).
            startedUp = length != 8
          }
          if remaining == 0 { body = [] }
        }
        return nil
      }

      /// The SQL of the message read: a simple query's text, a Parse message's after the
      /// statement's name, or for a Bind message the SQL its statement was prepared with.
      private func query() -> ArraySlice<UInt8> {
        if type == UInt8(ascii: "B") {
          // The portal's name, then the statement's.
          guard let portalEnd = body.firstIndex(of: 0) else { return [] }
          let rest = body[(portalEnd + 1)...]
          guard let nameEnd = rest.firstIndex(of: 0) else { return [] }
          return prepared[Array(rest[..<nameEnd])] ?? []
        }
        guard type == UInt8(ascii: "P") else { return body[...] }
        guard let end = body.firstIndex(of: 0) else { return [] }
        return body[(end + 1)...]
      }

      private static func starts(_ body: ArraySlice<UInt8>, with word: String) -> Bool {
        let text = String(decoding: body.prefix { $0 != 0 }, as: UTF8.self)
        return text.drop { $0.isWhitespace }.uppercased().hasPrefix(word)
      }
    }
  }

  /// Why the fault proxy can't start.
  package struct ProxyError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
  }
#endif
