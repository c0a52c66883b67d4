import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CMicroHTTPD)
  import CMicroHTTPD
  import Foundation

  #if canImport(Glibc)
    import Glibc
  #endif

  /// The sync server's HTTP/1.1 transport: an ``HTTPServer`` that hands each request to a
  /// `SyncService` and sends back its answer, and parks the pulls that wait for a push.
  ///
  /// For example:
  ///
  /// ```swift
  /// let server = try SyncHTTPServer(service: service, host: "127.0.0.1", port: 0)
  /// print(server.port)
  /// ```
  package final class SyncHTTPServer: Sendable {
    private let service: SyncService
    private let maximumWaiting: Int
    private let server: HTTPServer
    private let scheduler: SyncWorkScheduler

    /// The port the server listens on.
    package var port: UInt16 { server.port }

    /// Whether this libmicrohttpd serves HTTPS (it was built with GnuTLS), checked at run time.
    package static var supportsTLS: Bool { HTTPServer.supportsTLS }

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
    ///
    /// The token is checked when a request's head arrives, before its body is read. The
    /// database work runs on `workers` threads of its own (see ``SyncWorkScheduler``), at most
    /// a quarter of them (and at least one) on one space at once.
    package init(
      service: SyncService, host: String, port: UInt16, threads: UInt32 = 4,
      tls: SyncTLSFiles? = nil, maximumWaiting: Int = 200, workers: Int = 8,
      limits: HTTPServerLimits = HTTPServerLimits()
    ) throws {
      self.service = service
      self.maximumWaiting = maximumWaiting
      let scheduler = SyncWorkScheduler(workers: workers, perSpace: max(1, workers / 4))
      self.scheduler = scheduler
      var limits = limits
      limits.threads = Int(threads)
      limits.maximumBodyBytes = SyncService.maximumBodyBytes
      limits.drainedBodyBytes = 4 * SyncService.maximumBodyBytes
      do {
        server = try HTTPServer(
          address: .tcp(host: host, port: port), tls: tls, limits: limits,
          headCheck: { [service] head in
            service.check(
              method: head.method, path: head.path, authorization: head.header("Authorization"),
              declaredLength: head.contentLength
            ).map { HTTPResponse.json($0.status, $0.body) }
          },
          handler: { [service, maximumWaiting, scheduler] request, reply in
            Self.schedule(
              request, reply, service: service, maximumWaiting: maximumWaiting,
              scheduler: scheduler, parked: false)
          })
      } catch {
        scheduler.stop()
        throw error
      }
      // Without the listener pulls don't wait (they are answered at once, as before).
      try? service.changeSignal.start()
    }

    /// Stops listening and waits for the requests under way (the parked pulls are answered
    /// first), then for a compaction under way (60 s at most), so it is not cut off when the
    /// process or the database goes.
    package func stop() {
      service.changeSignal.stop()
      server.stop()
      scheduler.stop()
      // A compaction a pull started runs on after the last request.
      service.waitForCompactions(upTo: .seconds(60))
    }

    deinit { stop() }

    /// The space a request's path names (`/v1/spaces/{space}/...`), its scheduling key.
    private static func space(of path: String) -> String {
      let parts = path.split(separator: "/", omittingEmptySubsequences: false)
      return parts.count > 3 ? String(parts[3].prefix(100)) : ""
    }

    private static func schedule(
      _ request: HTTPRequest, _ reply: HTTPReply, service: SyncService, maximumWaiting: Int,
      scheduler: SyncWorkScheduler, parked: Bool
    ) {
      let space = space(of: request.path)
      let queued = scheduler.submit(space: space) {
        answer(
          request, reply, service: service, maximumWaiting: maximumWaiting, scheduler: scheduler,
          parked: parked)
      }
      if !queued {
        let error = SyncService.error(
          503, "busy",
          "Space `\(space)` has \(scheduler.maximumQueued) requests waiting on this server "
            + "already: try again in a moment.")
        reply.send(.json(error.status, error.body))
      }
    }

    private static func answer(
      _ request: HTTPRequest, _ reply: HTTPReply, service: SyncService, maximumWaiting: Int,
      scheduler: SyncWorkScheduler, parked: Bool
    ) {
      var query = request.query
      // A pull parked once is answered when resumed, whatever its page.
      if parked { query["wait"] = nil }
      let syncRequest = SyncHTTPRequest(
        method: request.method, path: request.path, query: query,
        authorization: request.header("Authorization"), body: request.body,
        bodyTooLarge: request.bodyTooLarge)
      var answer = service.handle(syncRequest)
      if let wait = answer.wait, !parked {
        switch service.changeSignal.park(
          wait, limit: maximumWaiting, suspend: {},
          resume: {
            schedule(
              request, reply, service: service, maximumWaiting: maximumWaiting,
              scheduler: scheduler, parked: true)
          })
        {
        case .parked:
          return
        case .changed:
          return Self.answer(
            request, reply, service: service, maximumWaiting: maximumWaiting,
            scheduler: scheduler, parked: true)
        case .full:
          answer = SyncService.error(
            503, "busy",
            "This server holds \(maximumWaiting) pulls waiting for changes already (its "
              + "limit): ask again without `wait` (poll), or through another server.")
        }
      }
      reply.send(.json(answer.status, answer.body))
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

#endif
