import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CMicroHTTPD)
  import CMicroHTTPD
  import Foundation
  import Synchronization

  /// Where a handler of ``HTTPServer`` sends its response — before it returns, or later from
  /// any thread (the connection waits, holding no thread).
  ///
  /// Only the first response sent counts; a later one is dropped. When the server stops before
  /// a response was sent, the request is answered `503` and a later `send` does nothing.
  ///
  /// For example:
  ///
  /// ```swift
  /// let handler: HTTPServer.Handler = { request, reply in
  ///   DispatchQueue.global().async { reply.send(.text(200, "done")) }
  /// }
  /// ```
  // Safety: the connection pointer is used under `state`'s lock only, and only while
  // libmicrohttpd keeps the connection (until the response is sent, or the server stops).
  package final class HTTPReply: Sendable {
    package struct State {
      package var response: HTTPResponse?
      /// The connection, while it is suspended waiting for `response`.
      package var suspended: HTTPConnectionHandle?
    }
    package let state = Mutex(State())

    package init() {}

    /// Sends `response` (the first call only).
    package func send(_ response: HTTPResponse) {
      state.withLock { state in
        guard state.response == nil else { return }
        state.response = response
        if let connection = state.suspended {
          state.suspended = nil
          connection.resume()
        }
      }
    }

    /// Whether a response was sent.
    package var isSent: Bool { state.withLock { $0.response != nil } }

    /// The response if one was sent already; otherwise suspends `connection` until one is
    /// (then `nil`). Called by the server once, after the handler returned.
    package func responseOrSuspend(_ connection: OpaquePointer) -> HTTPResponse? {
      state.withLock { state in
        if let response = state.response { return response }
        state.suspended = HTTPConnectionHandle(connection)
        MHD_suspend_connection(connection)
        return nil
      }
    }

    /// The response sent (after the connection was resumed).
    package var response: HTTPResponse? { state.withLock { $0.response } }
  }
#endif
