import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CMicroHTTPD)
  /// What an ``HTTPServer`` allows a client: how many connections, how long it may take to
  /// send a request, how large a body is read. A client over a limit is answered (413) or
  /// disconnected; the others are served on.
  ///
  /// For example:
  ///
  /// ```swift
  /// var limits = HTTPServerLimits()
  /// limits.maximumBodyBytes = 64 << 10
  /// let server = try HTTPServer(address: .tcp(host: "127.0.0.1", port: 0), limits: limits) {
  ///   request, reply in reply.send(.text(200, "hello"))
  /// }
  /// ```
  package struct HTTPServerLimits: Sendable {
    /// The polling threads. Handlers should not block them: hand slow work to a thread of
    /// your own and send the response from there (see ``HTTPReply``).
    package var threads = 4
    /// The most connections at once; one more waits in the listening queue.
    package var connections = 4_000
    /// The most connections at once from one IP address (0: no limit — behind a proxy every
    /// client has the proxy's address).
    package var connectionsPerAddress = 0
    /// How long a connection may take from its first byte (or the end of its previous
    /// request) to the end of its request's head; then it is closed, however slowly it
    /// still sends.
    package var headDeadline: Duration = .seconds(8)
    /// How long a request's body may take to arrive once its head did; then the connection
    /// is closed.
    package var bodyDeadline: Duration = .seconds(60)
    /// How long an open connection may stay silent (between requests) before it is closed.
    package var idleTimeout: Duration = .seconds(30)
    /// The largest body kept; a longer one is read and dropped (``HTTPRequest/bodyTooLarge``),
    /// or answered 413 at once when it declares a length over ``drainedBodyBytes``.
    package var maximumBodyBytes = 4 << 20
    /// The longest declared body that is read and dropped before a refusal (401, 413, ...) is
    /// sent: a client still sending when the server answers and closes would get a reset
    /// connection, not the answer. A longer one is answered as soon as its head arrived.
    package var drainedBodyBytes = 16 << 20
    /// Bytes of memory per connection: its head (header fields longer than about half of it
    /// are answered 431 by libmicrohttpd).
    package var connectionMemoryBytes = 64 << 10

    /// The defaults: 4 threads, 4,000 connections, an 8 s head and 60 s body deadline, a 30 s
    /// idle timeout, 4 MiB bodies.
    package init() {}
  }
#endif
