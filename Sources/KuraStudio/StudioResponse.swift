import Foundation

/// The studio's answer to a request: a status, headers and a body, or a stream of server-sent
/// events.
package struct StudioResponse: Sendable {
  /// The HTTP status.
  package var status: Int
  /// The headers.
  package var headers: [String: String]
  /// The body.
  package var body: Data
  /// For a stream of server-sent events: what starts writing them, given a function that sends
  /// one event (its name and data) and returns `false` once the client is gone; it returns what
  /// stops the writing, which the transport calls when the client is gone.
  package var events: EventWriter?

  /// Starts writing a stream of events; returns what stops it.
  package typealias EventWriter =
    @Sendable (_ send: @escaping @Sendable (String, String) -> Bool) -> (@Sendable () -> Void)

  package init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
    self.status = status
    self.headers = headers
    self.body = body
    self.events = nil
  }

  /// Every answer's headers: nothing is cached, framed or sniffed, and the page runs only its
  /// own scripts and styles.
  static let safetyHeaders = [
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy":
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
      + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  ]

  /// A body of `type`.
  static func content(_ status: Int, _ type: String, _ body: Data) -> StudioResponse {
    StudioResponse(
      status: status,
      headers: safetyHeaders.merging(["Content-Type": type], uniquingKeysWith: { $1 }), body: body)
  }

  /// Plain text.
  static func text(_ status: Int, _ text: String) -> StudioResponse {
    content(status, "text/plain; charset=utf-8", Data(text.utf8))
  }

  /// JSON of an encodable value.
  static func json(_ value: some Encodable, status: Int = 200) -> StudioResponse {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    do {
      return content(status, "application/json", try encoder.encode(value))
    } catch {
      return text(500, "Can't encode the answer: \(error)")
    }
  }

  /// An error as JSON: `{"error": message}`.
  static func error(_ status: Int, _ message: String) -> StudioResponse {
    json(["error": message], status: status)
  }

  /// A stream of server-sent events.
  static func eventStream(_ write: @escaping EventWriter) -> StudioResponse {
    var response = content(200, "text/event-stream", Data())
    response.events = write
    return response
  }
}
