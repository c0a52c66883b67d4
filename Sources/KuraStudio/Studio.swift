import Foundation
import Kura
import KuraPostgreSQL
import KuraSyncServer
import Synchronization

/// Kura Studio: a local web page on a model store — its models, rows, relations and history,
/// live — served by `kura studio` through the HTTP transport of `kura sync serve`.
///
/// The studio answers requests (``respond(to:)``) and knows nothing of sockets: the transport
/// (`StudioServer`) hands it each request, after ``refusal(method:path:query:headers:)`` let
/// its head through. Every request needs the secret: once, in the URL the command printed
/// (exchanged for a `SameSite=Strict`, `HttpOnly` cookie), then the cookie; and the `Host`
/// header must name the loopback address the studio listens on (a page of another site that
/// rebinds its name to 127.0.0.1 is refused). The store is opened read-only for every request
/// and never written, unless the studio was made `writable` (`kura studio --write`): then a
/// batch of edits posted with the secret in the `X-Kura-Secret` header is saved through
/// ``ModelContainer/saveEdits(_:models:)``.
package final class Studio: Sendable {
  /// Where the store is; `nil` for an app without a model store (`--app`).
  package let store: ModelConfiguration?
  /// The app whose preferences, scenes and documents the page shows (`--app`), if any.
  package let app: StudioApp?
  /// The sync server's database the page shows (`--sync-server`), if any.
  package let syncServer: SyncServerSource?
  /// The secret of the printed URL and of the cookie.
  package let secret: String
  /// How the page names the store.
  package let storeName: String
  /// The port the transport listens on (for the `Host` check and the cookie's name).
  private let listeningPort = Atomic<UInt16>(0)
  /// How the studio is reached over HTTPS (`kura studio --listen … --tls-cert … --tls-key …`):
  /// the host name or address of its URL; `nil` for plain HTTP on 127.0.0.1.
  private let secureHost = Mutex<String?>(nil)
  /// The store's change feed (a container of no model types that never writes), opened when
  /// first needed.
  private let feed = Mutex<ModelContainer?>(nil)
  /// The store file, or `nil` on PostgreSQL.
  private let file: URL?
  /// The reader of the store and what the store was like when it was opened.
  private let reader = Mutex<(freshness: Freshness, inspector: StoreInspector)?>(nil)
  /// Serializes the requests' use of the reader (one connection).
  private let reading = NSLock()
  /// The container that saves edits, or `nil` for a read-only studio.
  let editor: ModelContainer?

  /// What says that the store changed since a reader opened it: the latest save's token, and on
  /// SQLite the size and time of the file and its log (a reader of a file without a log reads
  /// it as unchanging, so a change needs a new one).
  struct Freshness: Equatable {
    var token: Int64
    var files: [String]
  }

  /// A studio on the store `store` names, with a new random secret.
  ///
  /// - Throws: ``StoreError`` when the store can't be opened to read (a missing file is an
  ///   error: nothing is created).
  /// - Parameter writable: Whether the page may insert, edit and delete rows (`--write`).
  ///   A store that syncs can't be written here: its edits would not reach the sync server.
  package init(
    store: ModelConfiguration?, storeName: String, secret: String = Studio.newSecret(),
    writable: Bool = false, app: StudioApp? = nil, syncServer: SyncServerSource? = nil
  ) throws {
    self.store = store
    self.app = app
    self.syncServer = syncServer
    self.secret = secret
    self.storeName = storeName
    guard let store else {
      file = nil
      editor = nil
      return
    }
    // Opened once now, so that a missing or foreign store is reported before serving; closed
    // before the editor opens: SQLite shares one shared-memory index of a file among the
    // connections of a process, and a read-only reader's (of a store another process has open)
    // would leave the editor's writes failing with "attempt to write a readonly database".
    let syncs: Bool
    do {
      let inspector = try StoreInspector(configuration: store)
      _ = try inspector.info()
      file = inspector.url
      syncs = try inspector.tableExists("kura_sync_outbox")
    }
    if writable {
      if syncs {
        throw StoreError(
          .cannotOpen,
          message:
            "Can't edit \(storeName) in the studio: the store syncs, and an edit made here "
            + "would not reach the sync server (it bypasses the app's sync outbox). Browse it "
            + "read-only (without --write), and change its models through the app.")
      }
      editor = try ModelContainer.editing(store)
    } else {
      editor = nil
    }
  }

  /// A studio on one app's data (`kura studio --app`): its model store (`default.store` in its
  /// data folder) when it has one, its preference suites, scene states and documents, and the
  /// App Group's suite and documents when the app names one. Nothing is created or written
  /// (`writable` applies to the model store).
  ///
  /// - Throws: ``StoreError`` when the app's store can't be read.
  package convenience init(
    app: StudioApp, secret: String = Studio.newSecret(), writable: Bool = false
  ) throws {
    let url = app.locations.defaultStoreURL
    try self.init(
      store: FileManager.default.fileExists(atPath: url.path) ? .url(url) : nil,
      storeName: app.locations.appIdentifier, secret: secret, writable: writable, app: app)
  }

  /// A studio on a sync server's database (`kura studio --sync-server`): its spaces, their
  /// replicas with their last contact and positions, heads and compaction state. It reads on
  /// read-only transactions and changes nothing.
  ///
  /// - Throws: ``SyncServerOverviewError`` when the database holds no sync server, or the
  ///   driver's error when it can't be reached.
  package convenience init(syncServer: SyncServerSource, secret: String = Studio.newSecret())
    throws
  {
    _ = try syncServer.read()
    try self.init(
      store: nil, storeName: syncServer.name, secret: secret, syncServer: syncServer)
  }

  /// A random secret: 32 bytes from the system's secure generator, as hexadecimal.
  package static func newSecret() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator))
    }
    .joined()
  }

  /// The port the transport listens on; set once it is bound.
  package var port: UInt16 {
    get { listeningPort.load(ordering: .acquiring) }
    set { listeningPort.store(newValue, ordering: .releasing) }
  }

  /// The host of the URL when the studio is served over HTTPS, or `nil` (plain HTTP on
  /// 127.0.0.1). Set before serving.
  package var httpsHost: String? {
    get { secureHost.withLock { $0 } }
    set { secureHost.withLock { $0 = newValue } }
  }

  /// The URL to open: the loopback address (or the HTTPS host) and port, with the secret.
  package var url: String {
    guard let host = httpsHost else { return "http://127.0.0.1:\(port)/?secret=\(secret)" }
    let shown = host.contains(":") ? "[\(host)]" : host
    return "https://\(shown):\(port)/?secret=\(secret)"
  }

  /// The cookie carrying the secret, named after the port: studios on other ports of the same
  /// host don't overwrite each other's.
  var cookieName: String { "kura_studio_\(port)" }

  /// The refusal of a request by its head alone (before any body is read), or `nil` to let it
  /// through: a `Host` other than the loopback address and port, or no secret.
  package func refusal(
    method: String, path: String, query: [String: String], headers: [String: String]
  ) -> StudioResponse? {
    let request = StudioRequest(method: method, path: path, query: query, headers: headers)
    let allowedHosts = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
    // Over HTTPS any name is let through: a page of another site that points its own name at
    // this computer meets a certificate that is not for that name, and the browser refuses
    // to connect (the secret is still needed for everything).
    guard let host = request.header("Host"),
      httpsHost != nil || allowedHosts.contains(host.lowercased())
    else {
      return .text(
        421,
        "Kura Studio refused the request: its Host header is not 127.0.0.1:\(port) (a page "
          + "of another site that points its name at this computer can't read the store). Open "
          + "the URL `kura studio` printed.")
    }
    if method == "GET" && path == "/", let given = query["secret"], Self.same(given, secret) {
      return nil
    }
    guard let cookie = request.cookie(cookieName), Self.same(cookie, secret) else {
      return .text(
        403,
        "Kura Studio refused the request: it carries no secret. Open the URL `kura studio` "
          + "printed (with ?secret=…) in this browser.")
    }
    if method != "GET" {
      // A write needs the secret in a header too, which another site's page can't set.
      guard let header = request.header("X-Kura-Secret"), Self.same(header, secret) else {
        return .text(
          403, "Kura Studio refused the request: a change needs the secret in X-Kura-Secret.")
      }
    }
    return nil
  }

  /// Compares two secrets in time that depends on their lengths only.
  static func same(_ given: String, _ secret: String) -> Bool {
    let a = Array(given.utf8)
    let b = Array(secret.utf8)
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
  }

  /// The answer to a request (its head already let through by
  /// ``refusal(method:path:query:headers:)``, which this checks again).
  package func respond(to request: StudioRequest) -> StudioResponse {
    if let refusal = refusal(
      method: request.method, path: request.path, query: request.query, headers: request.headers)
    {
      return refusal
    }
    switch (request.method, request.path) {
    case ("GET", "/"):
      if request.query["secret"] != nil {
        // The secret leaves the address bar for a cookie scripts can't read.
        var response = StudioResponse.text(303, "See /")
        response.headers["Location"] = "/"
        response.headers["Set-Cookie"] =
          "\(cookieName)=\(secret); Path=/; HttpOnly; SameSite=Strict"
          + (httpsHost == nil ? "" : "; Secure")
        return response
      }
      // A writable studio's page carries the secret for the header of its changes: only a
      // page of this origin (holding the cookie) can read it.
      let page =
        editor == nil
        ? StudioAssets.page
        : StudioAssets.page.replacingOccurrences(
          of: "<meta charset=\"utf-8\">",
          with: "<meta charset=\"utf-8\">\n<meta name=\"kura-write-secret\" content=\"\(secret)\">")
      return .content(200, "text/html; charset=utf-8", Data(page.utf8))
    case ("GET", "/studio.js"):
      return .content(200, "text/javascript; charset=utf-8", Data(StudioAssets.script.utf8))
    case ("GET", "/studio.css"):
      return .content(200, "text/css; charset=utf-8", Data(StudioAssets.style.utf8))
    case ("GET", "/api/models"): return answer { try models() }
    case ("GET", "/api/check"): return answer { try check() }
    case ("GET", "/api/rows"): return answer { try rows(request.query) }
    case ("GET", "/api/row"): return answer { try row(request.query) }
    case ("GET", "/api/delete-preview"): return answer { try deletePreview(request.query) }
    case ("GET", "/api/history"): return answer { try history(request.query) }
    case ("GET", "/api/export"): return answer { try export(request.query) }
    case ("GET", "/api/events"): return events()
    case ("GET", "/api/sync"): return answer { try syncStatus() }
    case ("GET", "/api/sync-server"):
      guard let syncServer else {
        return .error(404, "This studio shows a store, not a sync server (--sync-server).")
      }
      do {
        return .json(try syncServer.read())
      } catch {
        return .error(500, "Can't read the sync server's database: \(error)")
      }
    case ("GET", "/api/app"):
      guard let app else { return .error(404, "This studio shows a store, not an app (--app).") }
      return .json(appAnswer(app))
    case ("GET", "/api/app-events"): return appEvents()
    case ("GET", "/api/sync-server-events"): return syncServerEvents()
    case ("POST", "/api/edits"): return answer { try edits(request) }
    case (_, let path) where path.hasPrefix("/api/"):
      if request.method != "GET" {
        guard editor != nil else {
          return .error(
            403,
            "This studio is read-only: it opened the store read-only and writes nothing. Start "
              + "it with `kura studio --write` to change rows.")
        }
        return .error(404, "Kura Studio changes rows only through POST /api/edits.")
      }
      return .error(404, "Kura Studio has no `\(path)`.")
    default:
      return .text(404, "Kura Studio has no page `\(request.path)`.")
    }
  }

  /// Runs `body` (one request at a time: they share the reader), turning a store's error into
  /// an answer that says it.
  private func answer(_ body: () throws -> StudioResponse) -> StudioResponse {
    reading.lock()
    defer { reading.unlock() }
    do {
      return try body()
    } catch let error as StoreError {
      return .error(error.code == .unsupportedQuery ? 400 : 500, error.message)
    } catch let error as StudioRequestError {
      return .error(400, error.message)
    } catch let error as RowEditError {
      return .json(
        EditErrorAnswer(
          error: error.message, edit: error.edit, model: error.model, property: error.property),
        status: 409)
    } catch {
      return .error(500, "\(error)")
    }
  }

  /// A reader of the store as it is now: the one opened before while the store is unchanged
  /// (opening a large store's log costs more than a page), else a new one.
  func inspector() throws -> StoreInspector {
    var files: [String] = []
    if let file {
      for path in [file.path, file.path + "-wal"] {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
        let time = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        files.append("\(size) \(time)")
      }
    }
    let freshness = Freshness(
      token: try changeFeed().currentHistoryToken().rawValue, files: files)
    return try reader.withLock { reader in
      if let reader, reader.freshness == freshness { return reader.inspector }
      let opened = try StoreInspector(configuration: try configuration())
      reader = (freshness, opened)
      return opened
    }
  }

  /// The store's configuration, or the error saying there is none.
  func configuration() throws -> ModelConfiguration {
    guard let store else {
      throw StudioRequestError(
        message: "The app \(storeName) has no model store (no default.store in its data folder).")
    }
    return store
  }

  /// The change feed, opened once.
  func changeFeed() throws -> ModelContainer {
    try feed.withLock { container in
      if let container { return container }
      let opened = try ModelContainer.watching(try configuration())
      container = opened
      return opened
    }
  }
}

/// A request the studio can't answer as asked (a missing parameter).
struct StudioRequestError: Error {
  var message: String
}
