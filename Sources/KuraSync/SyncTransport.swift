import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A sync engine's requests to its server (`URLSession`), apart from the engine itself, so a
/// pull waiting on the server (``SyncPullWaiting``) doesn't keep an engine no one holds alive.
package struct SyncTransport: Sendable {
  package let container: ModelContainer
  package let settings: SyncSettings
  private let session: URLSession
  /// The session of requests with a body (pushes), on Linux: see ``send(_:path:query:body:)``.
  private let bodySession: URLSession

  /// The body size over which a request asks for `100 Continue` before sending its body.
  package static let continueBodyBytes = 1 << 20

  package init(container: ModelContainer, settings: SyncSettings) {
    self.container = container
    self.settings = settings
    let configuration = URLSessionConfiguration.ephemeral
    // Over the longest wait a server grants a pull (25 seconds).
    configuration.timeoutIntervalForRequest = 30
    session = URLSession(configuration: configuration)
    #if canImport(FoundationNetworking)
      bodySession = URLSession(configuration: configuration)
    #else
      bodySession = session
    #endif
  }

  /// Sends `method …/v1/spaces/<space>/<path>?<query>` and returns the body of a 200 answer.
  ///
  /// - Throws: ``SyncError`` for any other answer (a 410 first begins a rebase) or when the
  ///   server can't be reached.
  package func send(_ method: String, path: String, query: String? = nil, body: Data? = nil)
    async throws -> Data
  {
    let space =
      settings.space.addingPercentEncoding(withAllowedCharacters: .alphanumerics)
      ?? settings.space
    let text =
      settings.server.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
      + "/v1/spaces/\(space)/\(path)" + (query.map { "?\($0)" } ?? "")
    guard let url = URL(string: text) else {
      throw SyncError(
        .serverError, message: "`\(settings.server)` is not a sync server URL: fix the settings.")
    }
    var request = URLRequest(url: url)
    request.httpMethod = method
    request.setValue("Bearer \(settings.token)", forHTTPHeaderField: "Authorization")
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = body
    #if canImport(FoundationNetworking)
      // A request with a body never goes on a kept-alive connection. When a reused connection
      // turns out to be dead (cut by the network, or the server restarted), curl sends the
      // request again on a new one, rewinding the body first; Foundation on Linux can't rewind
      // an in-memory body, so the retry sent the headers and then nothing, and the push waited
      // for the 30-second timeout (seen in `kura sync soak`: a run's cut connections cost 30 s
      // each). Its own session, whose every request closes its connection, leaves no idle
      // connection for a push to reuse: a push on a connection that dies fails at once, and
      // the engine sends it again (the server applies it once).
      if body != nil { request.setValue("close", forHTTPHeaderField: "Connection") }
      // A large body waits for the server's go-ahead (curl sends it after `100 Continue`), so
      // a refusal (413: over the server's body limit) arrives before the body is sent rather
      // than while it is, which could end in a reset connection instead of the answer.
      // Foundation on Linux turns curl's own `Expect` off.
      if let body, body.count > Self.continueBodyBytes {
        request.setValue("100-continue", forHTTPHeaderField: "Expect")
      }
    #endif
    let data: Data
    let response: URLResponse
    do {
      (data, response) = try await (body == nil ? session : bodySession).data(for: request)
    } catch {
      throw SyncError.transport(error, server: settings.server)
    }
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard status != 200 else { return data }
    if status == 410 { try container.pool.write { try SyncRebase.begin($0) } }
    let answer = try? JSONDecoder().decode(SyncErrorResponse.self, from: data)
    let detail = answer?.message ?? "HTTP \(status)"
    switch status {
    case 401, 403:
      throw SyncError(
        .unauthorized,
        message: "The sync server refused the token for space `\(settings.space)`: \(detail)",
        status: status)
    case 400..<500:
      var error = SyncError(
        .rejected,
        message: "The sync server refused the changes: \(detail) They stay in the outbox.",
        status: status)
      error.serverCode = answer?.error
      throw error
    default:
      throw SyncError(.serverError, message: "The sync server failed: \(detail)", status: status)
    }
  }
}
