import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CMicroHTTPD)
  import Foundation

  /// An HTTP response ``HTTPServer`` sends: a status, header fields and a body — or an event
  /// stream (server-sent events), sent as it is written.
  ///
  /// For example:
  ///
  /// ```swift
  /// reply.send(.json(200, Data(#"{"ok":true}"#.utf8)))
  /// reply.send(.error(404, "notFound", "No such page: `/x`."))
  /// ```
  package struct HTTPResponse: Sendable {
    /// The status code, such as 200.
    package var status: Int
    /// Header fields to send (the server adds `Content-Length` or chunked framing itself).
    package var headers: [String: String]
    /// The body (unused for an event stream).
    package var body: Data
    /// The event stream whose writes make the body, sent chunked until it finishes.
    package var stream: HTTPEventStream?

    /// A response with `body`.
    package init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
      self.status = status
      self.headers = headers
      self.body = body
    }

    /// A JSON response.
    package static func json(_ status: Int, _ body: Data) -> HTTPResponse {
      HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// A plain text (UTF-8) response.
    package static func text(_ status: Int, _ text: String) -> HTTPResponse {
      HTTPResponse(
        status: status, headers: ["Content-Type": "text/plain; charset=utf-8"],
        body: Data(text.utf8))
    }

    /// An error as JSON, `{"error": code, "message": message}` — the shape of the sync
    /// server's errors.
    package static func error(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
      var object = Data(#"{"error":"#.utf8)
      object += Self.jsonString(code) + Data(#","message":"#.utf8) + Self.jsonString(message)
      object += Data("}".utf8)
      return .json(status, object)
    }

    /// A `200` answered with `stream`'s events (`text/event-stream`, not cached), open until
    /// the stream finishes, the client goes or the server stops.
    package static func eventStream(_ stream: HTTPEventStream) -> HTTPResponse {
      var response = HTTPResponse(
        status: 200,
        headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"])
      response.stream = stream
      return response
    }

    private static func jsonString(_ text: String) -> Data {
      (try? JSONEncoder().encode(text)) ?? Data(#""""#.utf8)
    }
  }
#endif
