#if canImport(CMicroHTTPD)
  import Dispatch
  import Foundation
  import KuraSyncServer
  import Synchronization

  /// Serves a ``Studio`` on 127.0.0.1 through the HTTP transport of `kura sync serve`
  /// (``HTTPServer``, libmicrohttpd): the studio's refusal runs on each request's head, before
  /// any body is read; its answers are made off the server's threads.
  package final class StudioServer: Sendable {
    /// The studio served.
    package let studio: Studio
    private let server: HTTPServer

    /// Listens on `host` and `port` (0: one the system picks): plain HTTP on a loopback
    /// address, or HTTPS with `tls` (on any address).
    ///
    /// - Throws: ``SyncHTTPServerError`` when the address can't be listened on, or this
    ///   libmicrohttpd has no TLS or refuses the certificate.
    package init(
      studio: Studio, host: String = "127.0.0.1", port: UInt16 = 0, tls: SyncTLSFiles? = nil
    ) throws {
      self.studio = studio
      var limits = HTTPServerLimits()
      limits.connectionsPerAddress = 0
      limits.maximumBodyBytes = 1 << 20
      server = try HTTPServer(
        address: .tcp(host: host, port: port), tls: tls, limits: limits,
        headCheck: { head in
          studio.refusal(
            method: head.method, path: head.path, query: head.query, headers: head.headers
          ).map(Self.response)
        },
        handler: { request, reply in
          // Queries of a large store take time: answered off the server's threads.
          DispatchQueue.global().async {
            let answer = studio.respond(
              to: StudioRequest(
                method: request.method, path: request.path, query: request.query,
                headers: request.head.headers, body: request.body))
            reply.send(Self.response(answer))
          }
        })
      studio.port = server.port
    }

    /// The port listened on.
    package var port: UInt16 { server.port }

    /// Stops serving: open event streams close, requests under way are answered 503.
    package func stop() { server.stop() }

    /// The transport's response for a studio's answer; a stream of events is written as they
    /// come, and stopped when the client goes.
    private static func response(_ answer: StudioResponse) -> HTTPResponse {
      guard let events = answer.events else {
        return HTTPResponse(status: answer.status, headers: answer.headers, body: answer.body)
      }
      let stop = Mutex<(@Sendable () -> Void)?>(nil)
      let closed = Mutex(false)
      let stream = HTTPEventStream(onClose: {
        closed.withLock { $0 = true }
        stop.withLock { $0 }?()
      })
      let stopping = events { name, data in stream.send(event: name, data: data) }
      stop.withLock { $0 = stopping }
      if closed.withLock({ $0 }) { stopping() }
      var response = HTTPResponse.eventStream(stream)
      for (name, value) in answer.headers where name != "Content-Type" {
        response.headers[name] = value
      }
      return response
    }
  }
#endif
