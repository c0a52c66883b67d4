import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CMicroHTTPD)
  import CMicroHTTPD
  import Foundation
  import Synchronization

  /// A stream of server-sent events (`text/event-stream`) that ``HTTPServer`` sends, chunked,
  /// as they are written: answer a request with ``HTTPResponse/eventStream(_:)``, then write
  /// events from any thread until ``finish()``.
  ///
  /// The stream closes when it finishes, when the client goes (seen at the next write: the
  /// server writes a comment line every 15 s to find out) or when the server stops; a write
  /// after that returns `false`, and `onClose` (if given) is called once.
  ///
  /// For example:
  ///
  /// ```swift
  /// let stream = HTTPEventStream(onClose: { print("client gone") })
  /// reply.send(.eventStream(stream))
  /// stream.send(event: "saved", data: #"{"id":1}"#)
  /// ```
  // Safety: all state is behind `state`'s lock; the connection pointer is used under it only
  // while libmicrohttpd keeps the response (until its free callback clears it).
  package final class HTTPEventStream: Sendable {
    package struct State {
      package var pending: [UInt8] = []
      package var finished = false
      package var closed = false
      /// The connection sending the stream (once it is queued).
      package var connection: HTTPConnectionHandle?
      /// The connection, while it is suspended waiting for a write.
      package var suspended: HTTPConnectionHandle?
      package var lastWrite = ContinuousClock.now
      /// Tells the server the stream closed.
      package var closedNotice: (@Sendable () -> Void)?
    }
    package let state = Mutex(State())
    private let onClose: @Sendable () -> Void

    /// Makes a stream; `onClose` is called once when it closes, for whatever reason.
    package init(onClose: @escaping @Sendable () -> Void = {}) {
      self.onClose = onClose
    }

    /// Sends one event: an optional `event:` name, then `data` (one `data:` line per line).
    ///
    /// - Returns: Whether the stream is still open (`false`: nothing was sent).
    @discardableResult
    package func send(event: String? = nil, data: String) -> Bool {
      var text = event.map { "event: \($0)\n" } ?? ""
      for line in data.split(separator: "\n", omittingEmptySubsequences: false) {
        text += "data: \(line)\n"
      }
      return write(Array((text + "\n").utf8))
    }

    /// Sends raw bytes of the event stream (such as a `: comment` line).
    ///
    /// - Returns: Whether the stream is still open (`false`: nothing was sent).
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
      state.withLock { state in
        guard !state.finished, !state.closed else { return false }
        state.pending += bytes
        state.lastWrite = .now
        wake(&state)
        return true
      }
    }

    /// Ends the stream once what was written is sent.
    package func finish() {
      state.withLock { state in
        state.finished = true
        wake(&state)
      }
    }

    /// Whether the stream closed (finished and sent, the client went, or the server stopped).
    package var isClosed: Bool { state.withLock { $0.closed } }

    private func wake(_ state: inout State) {
      if let connection = state.suspended {
        state.suspended = nil
        connection.resume()
      }
    }

    /// Writes a comment when nothing was written for `interval`: a client that went is found.
    package func keepAlive(after interval: Duration) {
      let idle = state.withLock { state in
        !state.finished && !state.closed && ContinuousClock.now - state.lastWrite >= interval
      }
      if idle { write(Array(":\n\n".utf8)) }
    }

    /// Binds the stream to the connection that sends it (before its response is queued).
    package func attach(_ connection: OpaquePointer, closedNotice: @escaping @Sendable () -> Void) {
      state.withLock {
        $0.connection = HTTPConnectionHandle(connection)
        $0.closedNotice = closedNotice
      }
    }

    /// Copies what is pending into `buffer`; suspends the connection when nothing is (0).
    package func read(into buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int {
      state.withLock { state in
        if state.pending.isEmpty {
          if state.finished || state.closed { return kura_mhd_end_of_stream }
          guard let connection = state.connection else {
            return kura_mhd_end_with_error
          }
          state.suspended = connection
          MHD_suspend_connection(connection.pointer)
          return 0
        }
        let taken = min(count, state.pending.count)
        state.pending.withUnsafeBufferPointer { pending in
          if let base = pending.baseAddress {
            UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: taken)
          }
        }
        state.pending.removeFirst(taken)
        return taken
      }
    }

    /// The response is gone (sent to its end, the client went, or the server stopped).
    package func close() {
      let (first, notice) = state.withLock { state in
        defer {
          state.closed = true
          state.suspended = nil
          state.connection = nil
          state.closedNotice = nil
        }
        return (!state.closed, state.closedNotice)
      }
      if first { onClose() }
      notice?()
    }
  }
#endif
