import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CMicroHTTPD)
  import CMicroHTTPD
  import Dispatch
  import Foundation
  import Synchronization

  #if canImport(Glibc)
    import Glibc
  #endif

  /// An HTTP/1.1 server on libmicrohttpd (HTTPS with ``SyncTLSFiles``), on a TCP address or a
  /// Unix socket: each request's head goes to a check that may refuse it before its body is
  /// read, then the whole request to a handler, which answers through an ``HTTPReply`` at
  /// once or later from any thread, with a body or an event stream.
  ///
  /// The server holds under slow and hostile clients (see ``HTTPServerLimits``): a request
  /// whose head or body is late is disconnected, conflicting `Content-Length` fields,
  /// `Content-Length` with `Transfer-Encoding`, and control characters (such as NUL) in a
  /// header field are answered 400 before any handler sees them.
  ///
  /// For example:
  ///
  /// ```swift
  /// let server = try HTTPServer(address: .tcp(host: "127.0.0.1", port: 0)) { request, reply in
  ///   reply.send(.text(200, "You asked for \(request.path)"))
  /// }
  /// print(server.port)
  /// server.stop()
  /// ```
  // Safety: the mutable state is behind Mutexes; `daemon` is written in `init` and under
  // `state`'s lock in `stop()`; libmicrohttpd runs the callbacks on its threads, each with its
  // own request's state.
  package final class HTTPServer: @unchecked Sendable {
    /// Answers a whole request: call `reply.send` once, now or later from any thread.
    package typealias Handler = @Sendable (HTTPRequest, HTTPReply) -> Void
    /// Looks at a request's head before its body is read: a response refuses it (the body is
    /// then dropped unread), `nil` lets it in.
    package typealias HeadCheck = @Sendable (HTTPRequestHead) -> HTTPResponse?

    /// Where a server listens.
    package enum Address: Sendable {
      /// An IPv4 or IPv6 address (such as `127.0.0.1` or `::1`) and a port (0: one the system
      /// picks).
      case tcp(host: String, port: UInt16)
      /// A Unix domain socket at `path` (an existing file there is replaced).
      case unix(path: String)
    }

    package let limits: HTTPServerLimits
    package let headCheck: HeadCheck
    package let handler: Handler
    private var daemon: OpaquePointer?
    private let unixPath: String?
    package let state = Mutex(State())
    private var timer: DispatchSourceTimer?

    package struct State {
      package var stopping = false
      /// Open connections by pointer: their socket and when their current phase must end.
      package var connections: [HTTPConnectionHandle: Tracked] = [:]
      /// Requests whose handler has not answered yet.
      package var waiting: [ObjectIdentifier: HTTPReply] = [:]
      /// Event streams being sent.
      package var streams: [ObjectIdentifier: HTTPEventStream] = [:]
      /// Requests answered 503 by `stop()` whose answer is not sent yet.
      package var answeringAtStop: Set<ObjectIdentifier> = []
    }
    /// Signalled when a request completes while the server stops.
    private let completions = NSCondition()

    package struct Tracked {
      package var socket: Int32
      package var deadline: ContinuousClock.Instant?
    }

    /// The port the server listens on (0 on a Unix socket).
    package private(set) var port: UInt16 = 0

    /// Whether this libmicrohttpd serves HTTPS (it was built with GnuTLS), checked at run time.
    package static var supportsTLS: Bool { kura_mhd_supports_tls() != 0 }

    /// Listens on `address`, over HTTPS with `tls` or plain HTTP without it.
    ///
    /// - Parameters:
    ///   - address: Where to listen.
    ///   - tls: The certificate and key for HTTPS.
    ///   - limits: What a client is allowed.
    ///   - headCheck: Sees each request's head first (authenticate here: a refused request's
    ///     body is never kept).
    ///   - handler: Answers each request let in.
    /// - Throws: ``SyncHTTPServerError`` when the address is not IPv4 or IPv6, or can't be
    ///   listened on, when this libmicrohttpd has no TLS, or when it refuses the certificate and
    ///   key.
    package init(
      address: Address, tls: SyncTLSFiles? = nil, limits: HTTPServerLimits = HTTPServerLimits(),
      headCheck: @escaping HeadCheck = { _ in nil }, handler: @escaping Handler
    ) throws {
      self.limits = limits
      self.headCheck = headCheck
      self.handler = handler
      if tls != nil, !Self.supportsTLS {
        throw SyncHTTPServerError(
          message:
            "Can't serve HTTPS: this libmicrohttpd was built without TLS (GnuTLS). Install one "
            + "with HTTPS support (Debian's libmicrohttpd12 has it), or drop --tls-cert and "
            + "--tls-key and serve on 127.0.0.1 behind a TLS proxy.")
      }
      var address4 = sockaddr_in()
      address4.sin_family = sa_family_t(AF_INET)
      var address6 = sockaddr_in6()
      address6.sin6_family = sa_family_t(AF_INET6)
      var ipv6 = false
      var listenSocket: Int32 = -1
      let shown: String
      switch address {
      case .tcp(let host, let port):
        shown = "\(host):\(port)"
        unixPath = nil
        address4.sin_port = port.bigEndian
        address6.sin6_port = port.bigEndian
        ipv6 = host.contains(":")
        guard
          ipv6
            ? inet_pton(AF_INET6, host, &address6.sin6_addr) == 1
            : inet_pton(AF_INET, host, &address4.sin_addr) == 1
        else {
          throw SyncHTTPServerError(
            message:
              "`\(host)` is not an IPv4 address such as 127.0.0.1 or an IPv6 address such as "
              + "::1: give one.")
        }
      case .unix(let path):
        shown = path
        unixPath = path
        listenSocket = try Self.listenOnUnixSocket(path)
      }
      var settings = kura_mhd_settings(
        threads: UInt32(max(1, limits.threads)), connections: UInt32(max(1, limits.connections)),
        connections_per_address: UInt32(max(0, limits.connectionsPerAddress)),
        idle_timeout_seconds: UInt32(max(1, limits.idleTimeout.components.seconds)),
        connection_memory: max(16 << 10, limits.connectionMemoryBytes),
        listen_socket: listenSocket)
      let context = Unmanaged.passUnretained(self).toOpaque()
      let started = { (certificate: UnsafePointer<CChar>?, key: UnsafePointer<CChar>?) in
        withUnsafePointer(to: &address4) { ip4 in
          withUnsafePointer(to: &address6) { ip6 in
            let socketAddress = ipv6 ? UnsafeRawPointer(ip6) : UnsafeRawPointer(ip4)
            return kura_mhd_start_server(
              socketAddress.assumingMemoryBound(to: sockaddr.self), ipv6 ? 1 : 0, &settings,
              accessHandler, context, completedHandler, connectionHandler, certificate, key)
          }
        }
      }
      let daemon: OpaquePointer?
      if let tls {
        daemon = tls.certificate.withCString { certificate in
          tls.key.withCString { key in started(certificate, key) }
        }
      } else {
        daemon = started(nil, nil)
      }
      guard let daemon else {
        let code = errno
        if listenSocket >= 0 { close(listenSocket) }
        if let tls {
          throw SyncHTTPServerError(
            message:
              "Can't serve HTTPS on \(shown) with certificate `\(tls.certificatePath)` "
              + "and key `\(tls.keyPath)`: libmicrohttpd refused them or the port (errno "
              + "\(code)). Check that the key belongs to the certificate (`openssl x509 -noout "
              + "-pubkey -in CERT` and `openssl pkey -pubout -in KEY` print the same key) and "
              + "that the port is free.")
        }
        throw SyncHTTPServerError(
          message:
            "Can't listen on \(shown): the port is in use or not allowed (errno \(code)). "
            + "Choose another port with --listen.")
      }
      self.daemon = daemon
      port = unixPath == nil ? kura_mhd_port(daemon) : 0
      // Made once the daemon runs: a timer never resumed can't be released (libdispatch traps).
      let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "kura.http.deadlines"))
      timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
      timer.setEventHandler { [weak self] in self?.enforceDeadlines() }
      timer.resume()
      self.timer = timer
    }

    /// Stops listening: the requests still waiting for their handler are answered 503, the
    /// event streams finish, and the requests under way end; a later ``HTTPReply/send(_:)``
    /// does nothing. Later calls do nothing.
    package func stop() {
      let (waiting, streams) = state.withLock { state in
        let taken = (Array(state.waiting.values), Array(state.streams.values))
        state.stopping = true
        state.answeringAtStop = Set(state.waiting.keys)
        state.waiting = [:]
        state.streams = [:]
        return taken
      }
      guard let daemon else { return }
      timer?.cancel()
      for reply in waiting {
        reply.send(.error(503, "stopping", "The server is stopping: send the request again."))
      }
      for stream in streams { stream.finish() }
      // The answers and the streams' ends are sent before the connections are closed (2 s at
      // most: a client that doesn't read doesn't hold the stop).
      let deadline = Date(timeIntervalSinceNow: 2)
      completions.lock()
      while !state.withLock({ $0.answeringAtStop.isEmpty }) || !streams.allSatisfy(\.isClosed) {
        if !completions.wait(until: deadline) { break }
      }
      completions.unlock()
      MHD_stop_daemon(daemon)
      self.daemon = nil
      if let unixPath { unlink(unixPath) }
    }

    deinit { stop() }

    private static func listenOnUnixSocket(_ path: String) throws -> Int32 {
      var address = sockaddr_un()
      address.sun_family = sa_family_t(AF_UNIX)
      let capacity = MemoryLayout.size(ofValue: address.sun_path)
      guard path.utf8.count < capacity else {
        throw SyncHTTPServerError(
          message:
            "Can't listen on `\(path)`: a Unix socket's path has at most \(capacity - 1) "
            + "bytes. Choose a shorter path.")
      }
      withUnsafeMutableBytes(of: &address.sun_path) { bytes in
        for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
      }
      let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
      guard socket >= 0 else {
        throw SyncHTTPServerError(
          message: "Can't make a Unix socket for `\(path)` (errno \(errno)).")
      }
      unlink(path)
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      guard bound == 0, listen(socket, 128) == 0 else {
        let code = errno
        close(socket)
        throw SyncHTTPServerError(
          message:
            "Can't listen on Unix socket `\(path)` (errno \(code)): check that its directory "
            + "exists and is writable.")
      }
      return socket
    }

    // MARK: Deadlines

    /// Sets when the connection's current phase must end (`nil`: no deadline).
    package func setDeadline(_ connection: OpaquePointer, after duration: Duration?) {
      let key = HTTPConnectionHandle(connection)
      state.withLock { state in
        state.connections[key]?.deadline = duration.map { ContinuousClock.now + $0 }
      }
    }

    /// Shuts down the sockets of the connections past their deadline (libmicrohttpd then
    /// closes them as a client that went), and writes a comment to idle event streams.
    private func enforceDeadlines() {
      let now = ContinuousClock.now
      let streams = state.withLock { state in
        for (key, tracked) in state.connections {
          guard let deadline = tracked.deadline, deadline <= now, tracked.socket >= 0 else {
            continue
          }
          // Under the lock: the connection's close notice (which removes it) waits, so the
          // socket is still this connection's.
          shutdown(tracked.socket, Int32(SHUT_RDWR))
          state.connections[key]?.deadline = nil
        }
        state.streams = state.streams.filter { !$0.value.isClosed }
        return Array(state.streams.values)
      }
      for stream in streams { stream.keepAlive(after: .seconds(15)) }
    }

    /// A request completed (its answer sent, or its connection gone).
    fileprivate func completed(_ reply: HTTPReply?) {
      guard let reply else { return }
      let stopping = state.withLock { state in
        state.waiting[ObjectIdentifier(reply)] = nil
        return state.answeringAtStop.remove(ObjectIdentifier(reply)) != nil
      }
      if stopping {
        completions.lock()
        completions.broadcast()
        completions.unlock()
      }
    }

    /// A stream closed: `stop()` may be waiting for it.
    fileprivate func streamClosed() {
      completions.lock()
      completions.broadcast()
      completions.unlock()
    }

    fileprivate func connectionStarted(_ connection: OpaquePointer) {
      let socket = kura_mhd_connection_socket(connection)
      let deadline = ContinuousClock.now + limits.headDeadline
      state.withLock {
        $0.connections[HTTPConnectionHandle(connection)] = Tracked(
          socket: socket, deadline: deadline)
      }
    }

    fileprivate func connectionClosed(_ connection: OpaquePointer) {
      _ = state.withLock { $0.connections.removeValue(forKey: HTTPConnectionHandle(connection)) }
    }

    // MARK: Requests

    /// The head, or the 400 that refuses it: conflicting or malformed `Content-Length`,
    /// `Content-Length` with `Transfer-Encoding`, a control character in a field.
    fileprivate func readHead(_ connection: OpaquePointer, method: String, url: String)
      -> Result<HTTPRequestHead, HTTPResponseRefusal>
    {
      let collected = HeadCollector()
      let context = Unmanaged.passUnretained(collected).toOpaque()
      _ = MHD_get_connection_values_n(connection, .HEADER_KIND, collectHeader, context)
      _ = MHD_get_connection_values_n(connection, .GET_ARGUMENT_KIND, collectArgument, context)
      if let problem = collected.problem {
        return .failure(HTTPResponseRefusal(response: .error(400, "badRequest", problem)))
      }
      let lengths = Set(collected.contentLengths)
      if lengths.count > 1 {
        return .failure(
          HTTPResponseRefusal(
            response: .error(
              400, "badRequest",
              "The request has `Content-Length` fields that disagree: send one.")))
      }
      if let length = lengths.first,
        length.isEmpty || !length.utf8.allSatisfy({ (0x30...0x39).contains($0) })
          || length.utf8.count > 18
      {
        return .failure(
          HTTPResponseRefusal(
            response: .error(
              400, "badRequest", "The request's `Content-Length` is not a decimal number.")))
      }
      if !lengths.isEmpty, collected.headers["transfer-encoding"] != nil {
        return .failure(
          HTTPResponseRefusal(
            response: .error(
              400, "badRequest",
              "The request has both `Content-Length` and `Transfer-Encoding`: send one.")))
      }
      var head = HTTPRequestHead(method: method, path: url, query: [:], headers: [:])
      head.headers = collected.headers
      head.query = collected.query
      return .success(head)
    }

    fileprivate func queue(_ response: HTTPResponse, on connection: OpaquePointer, close: Bool)
      -> MHD_Result
    {
      let made: OpaquePointer?
      if let stream = response.stream {
        stream.attach(connection) { [weak self] in self?.streamClosed() }
        let streamContext = Unmanaged.passRetained(stream).toOpaque()
        made = MHD_create_response_from_callback(
          kura_mhd_size_unknown, 4096, readStream, streamContext, freeStream)
        if made == nil {
          Unmanaged<HTTPEventStream>.fromOpaque(streamContext).release()
        } else {
          let open = state.withLock { state in
            if state.stopping { return false }
            state.streams[ObjectIdentifier(stream)] = stream
            return true
          }
          if !open { stream.finish() }
        }
      } else {
        made = response.body.withUnsafeBytes { bytes in
          MHD_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
      }
      guard let made else { return .NO }
      defer { MHD_destroy_response(made) }
      for (name, value) in response.headers {
        _ = MHD_add_response_header(made, name, value)
      }
      if close { _ = MHD_add_response_header(made, "Connection", "close") }
      return MHD_queue_response(connection, UInt32(response.status), made)
    }

    /// Runs the handler and queues its answer, or suspends the connection until it comes.
    fileprivate func dispatch(
      _ request: HTTPRequest, _ connection: OpaquePointer, _ state: RequestState
    )
      -> MHD_Result
    {
      let reply = HTTPReply()
      state.reply = reply
      handler(request, reply)
      let registered = self.state.withLock { server in
        guard !server.stopping else { return false }
        if !reply.isSent { server.waiting[ObjectIdentifier(reply)] = reply }
        return true
      }
      if !registered {
        reply.send(.error(503, "stopping", "The server is stopping: send the request again."))
      }
      guard let response = reply.responseOrSuspend(connection) else { return .YES }
      self.state.withLock { _ = $0.waiting.removeValue(forKey: ObjectIdentifier(reply)) }
      return queue(response, on: connection, close: false)
    }

    /// A resumed request: its answer came.
    fileprivate func answerResumed(_ connection: OpaquePointer, _ state: RequestState) -> MHD_Result
    {
      guard let reply = state.reply, let response = reply.response else { return .NO }
      self.state.withLock { _ = $0.waiting.removeValue(forKey: ObjectIdentifier(reply)) }
      return queue(response, on: connection, close: false)
    }
  }

  /// A 400 (or other refusal) found while reading a head.
  package struct HTTPResponseRefusal: Error {
    package var response: HTTPResponse
  }

  /// One request's progress: its head, its body as it arrives, and its reply.
  private final class RequestState {
    var head: HTTPRequestHead
    var body = Data()
    var tooLarge = false
    /// The answer already chosen (a refusal), sent once the body was read and dropped.
    var refusal: HTTPResponse?
    var reply: HTTPReply?

    init(head: HTTPRequestHead) { self.head = head }
  }

  /// The fields of a head as libmicrohttpd iterates them, with their lengths (a NUL in a value
  /// makes its length longer than its C string).
  private final class HeadCollector {
    var headers: [String: String] = [:]
    var query: [String: String] = [:]
    var contentLengths: [String] = []
    var problem: String?

    static func hasControlCharacter(_ bytes: UnsafeBufferPointer<UInt8>, allowTab: Bool) -> Bool {
      bytes.contains { $0 == 0x7F || ($0 < 0x20 && !(allowTab && $0 == 0x09)) }
    }
  }

  private func buffer(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> UnsafeBufferPointer<UInt8>
  {
    guard let pointer else { return UnsafeBufferPointer(start: nil, count: 0) }
    return UnsafeBufferPointer(
      start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: count)
  }

  private let collectHeader: MHD_KeyValueIteratorN = {
    context, _, key, keySize, value, valueSize in
    guard let context else { return .NO }
    let collected = Unmanaged<HeadCollector>.fromOpaque(context).takeUnretainedValue()
    let name = buffer(key, keySize)
    let content = buffer(value, valueSize)
    if HeadCollector.hasControlCharacter(name, allowTab: false)
      || HeadCollector.hasControlCharacter(content, allowTab: true)
    {
      let shown = String(decoding: name.prefix(60), as: UTF8.self).filter {
        !$0.isASCII || !($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false)
      }
      collected.problem =
        "The request's header field `\(shown)` has a control character (such as NUL): "
        + "send printable text."
      return .NO
    }
    let lowered = String(decoding: name, as: UTF8.self).lowercased()
    let text = String(decoding: content, as: UTF8.self)
    if lowered == "content-length" { collected.contentLengths.append(text) }
    if let earlier = collected.headers[lowered] {
      collected.headers[lowered] = earlier + ", " + text
    } else {
      collected.headers[lowered] = text
    }
    return .YES
  }

  private let collectArgument: MHD_KeyValueIteratorN = {
    context, _, key, keySize, value, valueSize in
    guard let context else { return .NO }
    let collected = Unmanaged<HeadCollector>.fromOpaque(context).takeUnretainedValue()
    let name = String(decoding: buffer(key, keySize), as: UTF8.self)
    collected.query[name] = String(decoding: buffer(value, valueSize), as: UTF8.self)
    return .YES
  }

  private let accessHandler: MHD_AccessHandlerCallback = {
    context, connection, url, method, _, uploadData, uploadSize, requestContext in
    guard let context, let connection, let url, let method, let uploadSize, let requestContext
    else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    guard let stateHandle = requestContext.pointee else {
      // The head arrived; the body (if any) comes in the next calls.
      let head: HTTPRequestHead
      var refusal: HTTPResponse?
      var malformed = false
      switch server.readHead(connection, method: String(cString: method), url: String(cString: url))
      {
      case .success(let read):
        head = read
        refusal = server.headCheck(head)
      case .failure(let refused):
        head = HTTPRequestHead(method: String(cString: method), path: "", query: [:], headers: [:])
        refusal = refused.response
        malformed = true
      }
      let state = RequestState(head: head)
      requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
      let declared = head.contentLength
      let chunked = head.header("Transfer-Encoding") != nil
      if refusal == nil, let declared, declared > server.limits.maximumBodyBytes {
        refusal = .error(
          413, "tooLarge",
          "The request body is over \(server.limits.maximumBodyBytes) bytes: send less at a time.")
      }
      server.setDeadline(connection, after: server.limits.bodyDeadline)
      guard let refusal else { return .YES }
      // A refused request's body is read and dropped before the answer when it is short
      // enough and the client is sending it now (without `Expect: 100-continue`): a client
      // still sending when the server answers and closes gets a reset connection, not the
      // answer. Otherwise it is answered now, and the connection closed after.
      let waits = head.header("Expect")?.lowercased() == "100-continue"
      let hasBody = chunked || (declared ?? 0) > 0
      // A malformed head's framing can't be trusted: answered now, and the connection closed
      // (what follows could be read as another request).
      if malformed {
        server.setDeadline(connection, after: nil)
        return server.queue(refusal, on: connection, close: true)
      }
      if hasBody, !waits, !chunked, let declared, declared <= server.limits.drainedBodyBytes {
        state.refusal = refusal
        return .YES
      }
      server.setDeadline(connection, after: nil)
      return server.queue(refusal, on: connection, close: hasBody)
    }
    let state = Unmanaged<RequestState>.fromOpaque(stateHandle).takeUnretainedValue()
    if state.reply != nil {
      return server.answerResumed(connection, state)
    }
    let size = uploadSize.pointee
    if size > 0 {
      if state.refusal == nil, !state.tooLarge, let uploadData {
        if state.body.count + size > server.limits.maximumBodyBytes {
          state.tooLarge = true
          state.body = Data()
        } else {
          uploadData.withMemoryRebound(to: UInt8.self, capacity: size) {
            state.body.append($0, count: size)
          }
        }
      }
      uploadSize.pointee = 0
      return .YES
    }
    server.setDeadline(connection, after: nil)
    if let refusal = state.refusal {
      return server.queue(refusal, on: connection, close: false)
    }
    return server.dispatch(
      HTTPRequest(head: state.head, body: state.body, bodyTooLarge: state.tooLarge), connection,
      state)
  }

  private let completedHandler: MHD_RequestCompletedCallback = {
    context, connection, requestContext, _ in
    if let context, let connection {
      let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
      // The connection may carry another request: its head has the idle time, then the
      // head deadline.
      server.setDeadline(connection, after: server.limits.idleTimeout + server.limits.headDeadline)
    }
    guard let requestContext, let stateHandle = requestContext.pointee else { return }
    let state = Unmanaged<RequestState>.fromOpaque(stateHandle).takeRetainedValue()
    if let context {
      Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().completed(state.reply)
    }
    requestContext.pointee = nil
  }

  private let connectionHandler: MHD_NotifyConnectionCallback = {
    context, connection, _, notice in
    guard let context, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    if notice.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
      server.connectionStarted(connection)
    } else {
      server.connectionClosed(connection)
    }
  }

  private let readStream: MHD_ContentReaderCallback = { context, _, buffer, count in
    guard let context, let buffer else { return kura_mhd_end_with_error }
    let stream = Unmanaged<HTTPEventStream>.fromOpaque(context).takeUnretainedValue()
    return stream.read(into: buffer, count: count)
  }

  private let freeStream: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    let stream = Unmanaged<HTTPEventStream>.fromOpaque(context).takeRetainedValue()
    stream.close()
  }
#endif
