import KuraBase
import KuraStore
import KuraPostgreSQL
import KuraSyncCore
#if canImport(CMicroHTTPD)
  import CMicroHTTPD
  import Foundation

  #if canImport(Glibc)
    import Glibc
  #endif

  /// The sync server's HTTP/1.1 transport on libmicrohttpd: reads each request (its body up to
  /// `SyncService.maximumBodyBytes`), hands it to a `SyncService` and sends back its answer.
  ///
  /// For example:
  ///
  /// ```swift
  /// let server = try SyncHTTPServer(service: service, host: "127.0.0.1", port: 0)
  /// print(server.port)
  /// ```
  // Safety: `daemon` is written in `init` and `stop()` only (stop is called once, after which
  // no request runs); libmicrohttpd runs the callbacks on its own threads, each with its own
  // request state.
  package final class SyncHTTPServer: @unchecked Sendable {
    private let service: SyncService
    private let maximumWaiting: Int
    private var daemon: OpaquePointer?
    /// The port the server listens on.
    package private(set) var port: UInt16 = 0

    /// Whether this libmicrohttpd serves HTTPS (it was built with GnuTLS), checked at run time.
    package static var supportsTLS: Bool { kura_mhd_supports_tls() != 0 }

    /// Listens on `host` (an IPv4 or IPv6 address, such as `127.0.0.1` or `::1`) and `port` (0:
    /// one the system picks), over HTTPS with `tls` (see ``SyncTLSFiles``) or plain HTTP
    /// without it.
    ///
    /// - Throws: ``SyncHTTPServerError`` when the address is not IPv4 or IPv6, or can't be
    ///   listened on, when this libmicrohttpd has no TLS, or when it refuses the certificate and
    ///   key.
    ///
    /// A pull that asks to wait (`wait=<seconds>`) and finds nothing is parked — its
    /// connection suspended, holding no thread — until the space's next push on any server of
    /// the database (``SyncChangeSignal``); at most `maximumWaiting` at once, a pull beyond is
    /// answered 503 `busy` at once (the client then polls).
    package init(
      service: SyncService, host: String, port: UInt16, threads: UInt32 = 4,
      tls: SyncTLSFiles? = nil, maximumWaiting: Int = 200
    ) throws {
      self.service = service
      self.maximumWaiting = maximumWaiting
      if tls != nil, !Self.supportsTLS {
        throw SyncHTTPServerError(
          message:
            "Can't serve HTTPS: this libmicrohttpd was built without TLS (GnuTLS). Install one "
            + "with HTTPS support (Debian's libmicrohttpd12 has it), or drop --tls-cert and "
            + "--tls-key and serve on 127.0.0.1 behind a TLS proxy.")
      }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = port.bigEndian
      var address6 = sockaddr_in6()
      address6.sin6_family = sa_family_t(AF_INET6)
      address6.sin6_port = port.bigEndian
      let ipv6 = host.contains(":")
      guard
        ipv6
          ? inet_pton(AF_INET6, host, &address6.sin6_addr) == 1
          : inet_pton(AF_INET, host, &address.sin_addr) == 1
      else {
        throw SyncHTTPServerError(
          message:
            "`\(host)` is not an IPv4 address such as 127.0.0.1 or an IPv6 address such as ::1: "
            + "give one.")
      }
      let context = Unmanaged.passUnretained(self).toOpaque()
      let started = { (certificate: UnsafePointer<CChar>?, key: UnsafePointer<CChar>?) in
        withUnsafePointer(to: &address) { ip4 in
          withUnsafePointer(to: &address6) { ip6 in
            let socketAddress = ipv6 ? UnsafeRawPointer(ip6) : UnsafeRawPointer(ip4)
            return kura_mhd_start(
              socketAddress.assumingMemoryBound(to: sockaddr.self), ipv6 ? 1 : 0, accessHandler,
              context, completedHandler, threads, 256, 30, certificate, key)
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
        if let tls {
          throw SyncHTTPServerError(
            message:
              "Can't serve HTTPS on \(host):\(port) with certificate `\(tls.certificatePath)` "
              + "and key `\(tls.keyPath)`: libmicrohttpd refused them or the port (errno "
              + "\(errno)). Check that the key belongs to the certificate (`openssl x509 -noout "
              + "-pubkey -in CERT` and `openssl pkey -pubout -in KEY` print the same key) and "
              + "that the port is free.")
        }
        throw SyncHTTPServerError(
          message:
            "Can't listen on \(host):\(port): the port is in use or not allowed (errno "
            + "\(errno)). Choose another port with --listen.")
      }
      self.daemon = daemon
      self.port = kura_mhd_port(daemon)
      // Without the listener pulls don't wait (they are answered at once, as before).
      try? service.changeSignal.start()
    }

    /// Stops listening and waits for the requests under way (the parked pulls are answered
    /// first: libmicrohttpd can't stop with suspended connections), then for a compaction
    /// under way (60 s at most), so it is not cut off when the process or the database goes.
    package func stop() {
      service.changeSignal.stop()
      if let daemon { MHD_stop_daemon(daemon) }
      daemon = nil
      // A compaction a pull started runs on after the last request.
      service.waitForCompactions(upTo: .seconds(60))
    }

    deinit { stop() }

    fileprivate func respond(
      _ connection: OpaquePointer, method: String, url: String, state: RequestState
    ) -> MHD_Result {
      func header(_ name: String, _ kind: MHD_ValueKind) -> String? {
        MHD_lookup_connection_value(connection, kind, name).map { String(cString: $0) }
      }
      var query: [String: String] = [:]
      for key in SyncService.queryArguments {
        if let value = header(key, .GET_ARGUMENT_KIND) { query[key] = value }
      }
      // A pull parked once is answered when resumed, whatever its page.
      if state.parked { query["wait"] = nil }
      let request = SyncHTTPRequest(
        method: method, path: url, query: query,
        authorization: header("Authorization", .HEADER_KIND), body: state.body,
        bodyTooLarge: state.tooLarge)
      var answer = service.handle(request)
      if let wait = answer.wait, !state.parked {
        state.parked = true
        let handle = SuspendedConnection(connection: connection)
        switch service.changeSignal.park(
          wait, limit: maximumWaiting, suspend: { MHD_suspend_connection(connection) },
          resume: { MHD_resume_connection(handle.connection) })
        {
        case .parked:
          return .YES
        case .changed:
          return respond(connection, method: method, url: url, state: state)
        case .full:
          answer = SyncService.error(
            503, "busy",
            "This server holds \(maximumWaiting) pulls waiting for changes already (its "
              + "limit): ask again without `wait` (poll), or through another server.")
        }
      }
      return answer.body.withUnsafeBytes { bytes in
        guard
          let response = MHD_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
            .RESPMEM_MUST_COPY)
        else { return .NO }
        defer { MHD_destroy_response(response) }
        _ = MHD_add_response_header(response, "Content-Type", "application/json")
        return MHD_queue_response(connection, UInt32(answer.status), response)
      }
    }
  }

  /// Why the server can't start.
  package struct SyncHTTPServerError: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }
  }

  /// The PEM certificate (chain) and private key of an HTTPS server, read from their files.
  package struct SyncTLSFiles: Sendable {
    package var certificatePath: String
    package var keyPath: String
    package var certificate: String
    package var key: String

    /// Reads both files and checks that each holds the PEM block it should.
    ///
    /// - Throws: ``SyncHTTPServerError`` naming the file that can't be read or is not PEM,
    ///   and the fix.
    package init(certificate certificatePath: String, key keyPath: String) throws {
      self.certificatePath = certificatePath
      self.keyPath = keyPath
      certificate = try Self.read(
        certificatePath, what: "certificate", option: "--tls-cert",
        marker: "-----BEGIN CERTIFICATE-----")
      key = try Self.read(
        keyPath, what: "private key", option: "--tls-key", marker: "PRIVATE KEY-----")
    }

    private static func read(_ path: String, what: String, option: String, marker: String)
      throws -> String
    {
      let data: Data
      do {
        data = try Data(contentsOf: URL(fileURLWithPath: path))
      } catch {
        throw SyncHTTPServerError(
          message:
            "Can't read the TLS \(what) `\(path)` (\(option)): "
            + "\((error as NSError).localizedDescription). Give a readable PEM file.")
      }
      guard let text = String(data: data, encoding: .utf8), text.contains(marker) else {
        throw SyncHTTPServerError(
          message:
            "The TLS \(what) `\(path)` (\(option)) is not a PEM \(what): it has no "
            + "`\(marker)` line. Give the \(what) in PEM form (`openssl x509 -outform PEM` "
            + "or `openssl pkey -outform PEM` converts one).")
      }
      return text
    }
  }

  /// The longest declared body over ``SyncService/maximumBodyBytes`` that is read (and
  /// dropped) before its 413 is sent; a longer one is answered as soon as its headers arrive.
  private let drainedBodyBytes = 4 * SyncService.maximumBodyBytes

  /// One request's body as it arrives, and whether it was parked (a waiting pull).
  private final class RequestState {
    var body = Data()
    var tooLarge = false
    var parked = false
  }

  /// A suspended connection, resumed from the signal's thread.
  // Safety: libmicrohttpd's MHD_resume_connection may be called from any thread.
  private struct SuspendedConnection: @unchecked Sendable {
    var connection: OpaquePointer
  }

  private let accessHandler: MHD_AccessHandlerCallback = {
    context, connection, url, method, _, uploadData, uploadSize, requestContext in
    guard let context, let connection, let url, let method, let uploadSize, let requestContext
    else { return .NO }
    guard let stateHandle = requestContext.pointee else {
      // The headers arrived; the body (if any) comes in the next calls.
      let state = RequestState()
      requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
      // A body declared longer than the largest one read is answered now (401 or 413) when the
      // client waits for that answer before sending it (`Expect: 100-continue`) or declares
      // more than `drainedBodyBytes`. Otherwise its bytes are read and dropped first: a client
      // still sending when the server answers and closes gets a reset connection (EPIPE), not
      // the answer, and would take the refusal for an unreachable server.
      let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length")
        .flatMap { Int(String(cString: $0)) }
      guard let declared, declared > SyncService.maximumBodyBytes else { return .YES }
      state.tooLarge = true
      let waits =
        MHD_lookup_connection_value(connection, .HEADER_KIND, "Expect").map {
          String(cString: $0).lowercased() == "100-continue"
        } ?? false
      guard waits || declared > drainedBodyBytes else { return .YES }
      let server = Unmanaged<SyncHTTPServer>.fromOpaque(context).takeUnretainedValue()
      return server.respond(
        connection, method: String(cString: method), url: String(cString: url), state: state)
    }
    let state = Unmanaged<RequestState>.fromOpaque(stateHandle).takeUnretainedValue()
    let size = uploadSize.pointee
    if size > 0 {
      if !state.tooLarge, let uploadData {
        if state.body.count + size > SyncService.maximumBodyBytes {
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
    let server = Unmanaged<SyncHTTPServer>.fromOpaque(context).takeUnretainedValue()
    return server.respond(
      connection, method: String(cString: method), url: String(cString: url), state: state)
  }

  private let completedHandler: MHD_RequestCompletedCallback = { _, _, requestContext, _ in
    guard let requestContext, let stateHandle = requestContext.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(stateHandle).release()
    requestContext.pointee = nil
  }
#endif
