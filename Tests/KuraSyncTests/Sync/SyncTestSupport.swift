#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraSync

  import KuraSyncCore

  import KuraSyncServer

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// A `kura sync serve` process on a port of its own, for the sync tests.
  final class SyncTestServer: Sendable {
    let process: ChildProcess
    /// The server's base URL, such as `http://127.0.0.1:40123`.
    let url: URL

    /// Starts `kura sync serve` on `store` (a PostgreSQL URL) with `tokens` as its tokens file,
    /// on `port` (0: one the system picks; a stopped server's port: the same server again),
    /// with `arguments` after the others.
    init(
      store: String, tokens: URL, directory: TemporaryDirectory, port: Int = 0,
      arguments: [String] = []
    ) throws {
      _ = Self.ignoringBrokenPipes
      process = try ChildProcess(
        try executable("kura"),
        [
          "sync", "serve", "--store", store, "--listen", "127.0.0.1:\(port)", "--tokens",
          tokens.path,
        ] + arguments,
        environment: directory.environment)
      let line = try #require(
        process.waitForLine(timeout: 60) { $0.hasPrefix("Serving sync on http://") })
      let address = try #require(
        line.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init))
      url = try #require(URL(string: address))
    }

    deinit { process.send(SIGKILL) }

    /// The sync tests kill servers and replicas that sockets and pipes of this process still
    /// talk to: a write to one then fails with EPIPE instead of ending the whole test process
    /// with SIGPIPE (seen once in a full `swift test` under load, source not pinned down).
    private static let ignoringBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()
  }

  /// A token and its tokens-file line.
  func makeToken(space: String, expires: String? = nil) throws -> SyncToken {
    try SyncToken(space: space, expires: expires)
  }

  /// A request to a sync server: `method`, the bearer `token` (if any) and `body`.
  func syncRequest(
    _ method: String, _ url: URL, token: String?, body: Data?, timeout: TimeInterval
  ) -> URLRequest {
    var request = URLRequest(url: url, timeoutInterval: timeout)
    request.httpMethod = method
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    request.httpBody = body
    return request
  }

  /// Sends one request; returns the status and the body.
  func send(
    _ method: String, _ url: URL, token: String?, body: Data? = nil,
    headers: [String: String] = [:]
  ) async throws -> (status: Int, body: Data) {
    var request = syncRequest(method, url, token: token, body: body, timeout: 30)
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    // A session of its own: in a full run, other suites' requests and waiting pulls share
    // `URLSession.shared`, and a request queued behind them can miss a long poll's window.
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(for: request)
    let status = try #require(response as? HTTPURLResponse).statusCode
    return (status, data)
  }

  /// A request started at once on a session of its own, whose answer a thread waits for
  /// (``wait(timeout:)``) — for tests whose timing must not depend on the cooperative threads,
  /// which other suites' blocking work can hold for seconds in a full run.
  ///
  /// For example: `let answer = try PendingRequest("GET", url, token: nil).wait(timeout: 30)`.
  final class PendingRequest: @unchecked Sendable {
    private let condition = NSCondition()
    private var answer: Result<(status: Int, body: Data), any Error>?
    private let session = URLSession(configuration: .ephemeral)

    /// Sends the request now; `done` (if given) is signalled when its answer came.
    init(
      _ method: String, _ url: URL, token: String?, body: Data? = nil,
      done: DispatchSemaphore? = nil
    ) {
      let request = syncRequest(method, url, token: token, body: body, timeout: 60)
      let task = session.dataTask(with: request) { [self] data, response, error in
        condition.lock()
        if let response = response as? HTTPURLResponse {
          answer = .success((response.statusCode, data ?? Data()))
        } else {
          answer = .failure(error ?? URLError(.badServerResponse))
        }
        condition.broadcast()
        condition.unlock()
        done?.signal()
      }
      task.resume()
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Whether the answer came.
    var isAnswered: Bool {
      condition.lock()
      defer { condition.unlock() }
      return answer != nil
    }

    /// Blocks until the answer came (at most `timeout` seconds) and returns it.
    func wait(timeout: TimeInterval) throws -> (status: Int, body: Data) {
      let deadline = Date(timeIntervalSinceNow: timeout)
      condition.lock()
      defer { condition.unlock() }
      while answer == nil { if !condition.wait(until: deadline) { break } }
      guard let answer else { throw URLError(.timedOut) }
      return try answer.get()
    }
  }

  /// Runs `body` on a thread of its own (not a cooperative one) and returns what it returned.
  func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      let thread = Thread { continuation.resume(with: Result { try body() }) }
      thread.start()
    }
  }

  /// The error code of an error answer's body (`nil` when it is not one).
  func errorCode(_ body: Data) -> String? {
    (try? JSONDecoder().decode(SyncErrorResponse.self, from: body))?.error
  }
#endif
