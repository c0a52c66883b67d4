#if canImport(CLibPQ) && canImport(KuraSyncServer)
  import Foundation
  import KuraSyncServer
  import Synchronization
  import Testing

  #if canImport(Glibc)
    import Glibc
  #endif

  /// The HTTP transport that `kura sync serve` and `kura studio` share, on its own: the head
  /// check, replies sent later from other threads, event streams, Unix sockets.
  @Suite("HTTP server")
  struct HTTPServerTests {
    /// Counts the requests a handler saw.
    final class Seen: Sendable {
      let requests = Mutex<[HTTPRequest]>([])
      var count: Int { requests.withLock { $0.count } }
    }

    @Test func aRequestRefusedByItsHeadIsAnsweredBeforeItsBodyAndNeverHandled() throws {
      let seen = Seen()
      let server = try HTTPServer(
        address: .tcp(host: "127.0.0.1", port: 0),
        headCheck: { head in
          head.header("Authorization") == "Bearer right"
            ? nil : .error(401, "unauthorized", "Send the right token.")
        },
        handler: { request, reply in
          seen.requests.withLock { $0.append(request) }
          reply.send(.text(200, "handled \(request.body.count)"))
        })
      defer { server.stop() }
      // 100 MB declared, none sent: the answer comes from the head alone.
      let refused = try RawHTTPConnection(port: server.port)
      refused.write(
        "POST /x HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer wrong\r\n"
          + "Content-Length: 100000000\r\n\r\n")
      let answer = refused.read(until: "}")
      #expect(RawHTTPConnection.status(answer) == 401)
      #expect(answer.contains(#""error":"unauthorized""#))
      let admitted = try RawHTTPConnection(port: server.port)
      admitted.write(
        "POST /x HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer right\r\nContent-Length: 5\r\n"
          + "Connection: close\r\n\r\nhello")
      let handled = admitted.read()
      #expect(RawHTTPConnection.status(handled) == 200)
      #expect(handled.hasSuffix("handled 5"))
      #expect(seen.count == 1)
    }

    @Test func aReplySentLaterFromAnotherThreadIsTheAnswer() throws {
      let server = try HTTPServer(address: .tcp(host: "127.0.0.1", port: 0)) { request, reply in
        let path = request.path
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
          reply.send(.text(200, "later \(path)"))
          reply.send(.text(500, "ignored"))
        }
      }
      defer { server.stop() }
      let connection = try RawHTTPConnection(port: server.port)
      connection.write("GET /a?b=c HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
      let answer = connection.read()
      #expect(RawHTTPConnection.status(answer) == 200)
      #expect(answer.hasSuffix("later /a"))
    }

    // A NUL is not among them: libmicrohttpd 0.9.75 ends a field at a NUL before Kura sees it.
    @Test func conflictingLengthsAndControlCharactersGet400AndAreNeverHandled() throws {
      let seen = Seen()
      let server = try HTTPServer(address: .tcp(host: "127.0.0.1", port: 0)) { request, reply in
        seen.requests.withLock { $0.append(request) }
        reply.send(.text(200, "handled"))
      }
      defer { server.stop() }
      let heads: [[UInt8]] = [
        Array(
          "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 4\r\n\r\nab".utf8),
        Array(
          "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\nab"
            .utf8),
        Array("GET /x HTTP/1.1\r\nHost: a\r\nX-Note: a\u{1}b\r\n\r\n".utf8),
      ]
      for head in heads {
        let connection = try RawHTTPConnection(port: server.port)
        connection.write(head)
        let answer = connection.read(until: "}")
        #expect(RawHTTPConnection.status(answer) == 400, "\(String(decoding: head, as: UTF8.self))")
        // Closed after: the rest can't be read as a second request.
        #expect(answer.contains("Connection: close"))
        #expect(connection.closesWithin(10))
      }
      #expect(seen.count == 0)
    }

    @Test func anEventStreamSendsEachEventAsWrittenUntilItFinishes() throws {
      let streams = Mutex<[HTTPEventStream]>([])
      let closed = DispatchSemaphore(value: 0)
      let server = try HTTPServer(address: .tcp(host: "127.0.0.1", port: 0)) { _, reply in
        let stream = HTTPEventStream(onClose: { closed.signal() })
        streams.withLock { $0.append(stream) }
        reply.send(.eventStream(stream))
      }
      defer { server.stop() }
      let connection = try RawHTTPConnection(port: server.port)
      connection.write("GET /events HTTP/1.1\r\nHost: a\r\n\r\n")
      let head = connection.read(until: "\r\n\r\n")
      #expect(RawHTTPConnection.status(head) == 200)
      #expect(head.contains("text/event-stream"))
      let stream = try #require(streams.withLock { $0.first })
      #expect(stream.send(event: "saved", data: "one\ntwo"))
      let first = connection.read(until: "data: two\n\n")
      #expect(first.contains("event: saved\ndata: one\ndata: two\n\n"))
      #expect(stream.send(data: "three"))
      #expect(connection.read(until: "three\n\n").contains("data: three\n\n"))
      stream.finish()
      // The chunked body's last chunk, then the stream is closed.
      #expect(connection.read(until: "0\r\n\r\n").contains("0\r\n\r\n"))
      #expect(closed.wait(timeout: .now() + 10) == .success)
      #expect(stream.isClosed)
      #expect(!stream.send(data: "late"))
    }

    @Test func stoppingTheServerClosesOpenStreamsAndAnswersWaitingRequests() throws {
      let closed = DispatchSemaphore(value: 0)
      let kept = Mutex<[HTTPReply]>([])
      let server = try HTTPServer(address: .tcp(host: "127.0.0.1", port: 0)) { request, reply in
        if request.path == "/events" {
          reply.send(.eventStream(HTTPEventStream(onClose: { closed.signal() })))
        } else {
          kept.withLock { $0.append(reply) }  // never answered by the handler
        }
      }
      let events = try RawHTTPConnection(port: server.port)
      events.write("GET /events HTTP/1.1\r\nHost: a\r\n\r\n")
      #expect(RawHTTPConnection.status(events.read(until: "\r\n\r\n")) == 200)
      let waiting = try RawHTTPConnection(port: server.port)
      waiting.write("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
      while kept.withLock({ $0.isEmpty }) { _ = closed.wait(timeout: .now() + .milliseconds(10)) }
      server.stop()
      #expect(closed.wait(timeout: .now() + 10) == .success)
      #expect(RawHTTPConnection.status(waiting.read(until: "}")) == 503)
      #expect(events.closesWithin(10))
    }

    @Test func aServerOnAUnixSocketAnswers() throws {
      let directory = TemporaryDirectory()
      let path = directory.url.appendingPathComponent("http.sock").path
      let server = try HTTPServer(address: .unix(path: path)) { request, reply in
        reply.send(.text(200, "unix \(request.method)"))
      }
      defer { server.stop() }
      let connection = try RawHTTPConnection(unixPath: path)
      connection.write("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
      #expect(connection.read().hasSuffix("unix GET"))
    }

    @Test func aClientDrippingItsHeadIsClosedAtTheDeadline() throws {
      var limits = HTTPServerLimits()
      limits.headDeadline = .seconds(1)
      let server = try HTTPServer(address: .tcp(host: "127.0.0.1", port: 0), limits: limits) {
        _, reply in reply.send(.text(200, "ok"))
      }
      defer { server.stop() }
      let dripping = try RawHTTPConnection(port: server.port)
      dripping.write("GET / HTTP/1.1\r\nX-Slow: ")
      // One byte every 200 ms keeps the idle timeout away; the head deadline still ends it.
      var closed = false
      for _ in 0..<50 where !closed {
        if !dripping.write("a") { closed = true }
        var readable = pollfd(fd: dripping.socket, events: Int16(POLLIN), revents: 0)
        if poll(&readable, 1, 200) > 0 { closed = true }
      }
      #expect(closed)
    }
  }
#endif
