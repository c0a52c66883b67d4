import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CMicroHTTPD)
  import Foundation

  /// An HTTP request's head — its method, path, query and header fields — as ``HTTPServer``
  /// hands it to its head check before the body is read.
  ///
  /// For example:
  ///
  /// ```swift
  /// let head = HTTPRequestHead(method: "GET", path: "/", query: [:], headers: [:])
  /// print(head.header("Authorization") ?? "no token")
  /// ```
  package struct HTTPRequestHead: Sendable {
    /// The method, such as `GET`.
    package var method: String
    /// The path without the query, percent-decoded, such as `/v1/spaces/family/changes`.
    package var path: String
    /// The query's arguments (an argument without `=` has the empty value).
    package var query: [String: String]
    /// The header fields by lowercased name; a repeated field's values are joined with `, `.
    package var headers: [String: String]

    /// Makes a head (the server makes them; tests and handlers may too).
    package init(
      method: String, path: String, query: [String: String], headers: [String: String]
    ) {
      self.method = method
      self.path = path
      self.query = query
      self.headers = Dictionary(
        headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $0 + ", " + $1 })
    }

    /// The header field `name` (in any case), if the request has it.
    package func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body's length the request declares (`Content-Length`), if it declares one.
    package var contentLength: Int? { header("Content-Length").flatMap { Int($0) } }
  }

  /// A whole HTTP request: its head and its body, as ``HTTPServer`` hands it to its handler.
  ///
  /// For example:
  ///
  /// ```swift
  /// let handler: HTTPServer.Handler = { request, reply in
  ///   reply.send(.text(200, "\(request.body.count) bytes to \(request.path)"))
  /// }
  /// ```
  package struct HTTPRequest: Sendable {
    /// The method, path, query and header fields.
    package var head: HTTPRequestHead
    /// The body (empty when it was too large: see ``bodyTooLarge``).
    package var body: Data
    /// Whether the body was longer than the server's ``HTTPServerLimits/maximumBodyBytes``
    /// (it was read and dropped, not kept).
    package var bodyTooLarge: Bool

    /// Makes a request (the server makes them; tests may too).
    package init(head: HTTPRequestHead, body: Data, bodyTooLarge: Bool = false) {
      self.head = head
      self.body = body
      self.bodyTooLarge = bodyTooLarge
    }

    /// The method, such as `POST`.
    package var method: String { head.method }
    /// The path without the query.
    package var path: String { head.path }
    /// The query's arguments.
    package var query: [String: String] { head.query }
    /// The header field `name` (in any case), if the request has it.
    package func header(_ name: String) -> String? { head.header(name) }
  }
#endif
