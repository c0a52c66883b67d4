import Foundation
import Kura
import KuraCLI
import KuraPostgreSQL
import KuraStoreCLI
import KuraStudio
import KuraSync
import KuraSyncCore
import KuraSyncServer

/// `kura studio <store>`: a local web page on a model store, read-only unless `--write`.
let studioCommand = Command(
  name: "studio",
  abstract:
    "Opens a local web page on a model store (its models, rows, relations and history), an "
    + "app's data or a sync server.",
  discussion: """
    Serves the page on 127.0.0.1 and prints its URL, which holds a random secret: open it in a \
    browser on this computer (the secret becomes a cookie; a request without it is refused). \
    Another address (--listen) is served only over HTTPS, with --tls-cert and --tls-key. \
    The store is opened read-only and nothing is written or created, unless --write: then \
    the page inserts, edits and deletes rows, in batches previewed before one save (the \
    delete rules, references and unique attributes apply, as in a save of the app). The page \
    updates live when any process saves. With --app, the page shows an app's model store, \
    preference suites, scene states and documents; with --sync-server, a sync server's spaces \
    and replicas. Stop it with Ctrl-C.
    """,
  arguments: [
    Argument(
      "store",
      help: "The store: a file such as default.store, or a PostgreSQL URL such as "
        + "postgresql://host/app (or --app).", isOptional: true)
  ],
  options: [
    Option(
      "app",
      help: "An app's data instead of a store: its model store, preferences, scenes and "
        + "documents.", valueName: "name"),
    Option("group", help: "With --app: the App Group it shares (group.…).", valueName: "group"),
    Option(
      "sync-server",
      help: "A sync server's database instead of a store (postgresql://…): its spaces, "
        + "replicas, heads and compaction.", valueName: "url"),
    Option(
      "port", help: "The port on 127.0.0.1 (default: one the system picks).", valueName: "port"),
    Option(
      "listen",
      help: "The address to listen on, with an optional :port: 127.0.0.1 or localhost over "
        + "plain HTTP; any other (such as 0.0.0.0:8443) only over HTTPS, with --tls-cert and "
        + "--tls-key.", valueName: "address"),
    Option(
      "tls-cert",
      help: "Serve HTTPS with this certificate (PEM; a chain: the server's first).",
      valueName: "file"),
    Option("tls-key", help: "The certificate's private key (PEM).", valueName: "file"),
  ],
  flags: [
    Flag("open", help: "Open the page in the default browser, where there is one."),
    Flag("write", help: "Let the page insert, edit and delete rows (default: read-only)."),
  ],
  run: { invocation in
    let command = invocation.commandPath
    let appName: String? = try invocation.option("app")
    let group: String? = try invocation.option("group")
    let given: String? = try invocation.optionalArgument("store")
    let server: String? = try invocation.option("sync-server")
    if [appName, given, server].compactMap({ $0 }).count > 1 {
      throw UsageError("Give one of <store>, --app and --sync-server.", command: command)
    }
    if appName == nil, given == nil, server == nil {
      throw UsageError(
        "Give a <store> (a file or a PostgreSQL URL), --app NAME or --sync-server URL.",
        command: command)
    }
    if server != nil, invocation.flag("write") {
      throw UsageError(
        "--sync-server shows a sync server read-only: leave out --write.", command: command)
    }
    if group != nil, appName == nil {
      throw UsageError("--group goes with --app.", command: command)
    }
    let givenPort: Int? = try invocation.option("port", in: 0...)
    var port = givenPort ?? 0
    guard port <= Int(UInt16.max) else {
      throw UsageError(
        "`\(port)` is not a valid value for --port: give a port from 0 to 65535.", command: command)
    }
    let certificatePath: String? = try invocation.option("tls-cert")
    let keyPath: String? = try invocation.option("tls-key")
    if (certificatePath == nil) != (keyPath == nil) {
      throw UsageError(
        "Give both --tls-cert and --tls-key (the certificate and its private key), or "
          + "neither.", command: command)
    }
    var host = "127.0.0.1"
    if let listen: String = try invocation.option("listen") {
      let address = try studioListenAddress(
        listen, secure: certificatePath != nil, command: command)
      host = address.0
      if let listenPort = address.1 {
        if givenPort != nil {
          throw UsageError(
            "Give the port once: in --listen (\(listen)) or with --port.", command: command)
        }
        port = listenPort
      }
    }
    #if canImport(Glibc)
      let writable = invocation.flag("write")
      let studio: Studio
      let description: String
      if let server {
        let location: PostgresLocation
        do {
          location = try PostgresLocation(server)
        } catch {
          throw UsageError(
            "`\(server)` is not a PostgreSQL URL for --sync-server: \(error)", command: command)
        }
        studio = try Studio(syncServer: SyncServerSource(location))
        description = "the sync server \(location.description)"
      } else if let appName {
        let locations: Locations
        do {
          locations = try Locations.app(appName)
          if let group { _ = try Locations.groupContainer(group) }
        } catch let error as LocationError {
          throw UsageError("\(error)", command: command)
        }
        studio = try Studio(
          app: StudioApp(locations: locations, group: group), writable: writable)
        description = "the app \(appName)" + (group.map { " and \($0)" } ?? "")
      } else {
        let location = try storeLocation(invocation)
        studio = try Studio(
          store: location.configuration, storeName: location.description, writable: writable)
        description = location.description
      }
      let transport: StudioServer
      do {
        let tls = try certificatePath.map {
          try SyncTLSFiles(certificate: $0, key: keyPath ?? "")
        }
        if tls != nil {
          // The URL names this computer when the studio listens on every address.
          studio.httpsHost =
            ["0.0.0.0", "::"].contains(host) ? ProcessInfo.processInfo.hostName : host
        }
        transport = try StudioServer(studio: studio, host: host, port: UInt16(port), tls: tls)
      } catch let error as SyncHTTPServerError {
        throw UsageError(error.message, command: command)
      }
      // Written straight to the file descriptor: a test or script reading the URL waits for it.
      FileHandle.standardOutput.write(
        Data(
          ("Kura Studio on \(description) (\(writable ? "writable" : "read-only")): "
            + "\(studio.url)\n").utf8))
      if invocation.flag("open") { openInBrowser(studio.url) }
      _ = transport
      // Ctrl-C and SIGTERM end the process (their default action).
      while true { pause() }
    #else
      throw UsageError(
        "`kura studio` is not available on this platform (it needs libmicrohttpd, on Linux).",
        command: command)
    #endif
  })

/// The host and port of `kura studio --listen`: over plain HTTP a loopback name (`127.0.0.1`,
/// `localhost`) with an optional port, any other address refused; over HTTPS (`secure`) any
/// IPv4 address, or IPv6 address in brackets.
func studioListenAddress(_ text: String, secure: Bool, command: String) throws -> (String, Int?) {
  var host = text
  var portText: Substring?
  if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
    host = String(text[text.index(after: text.startIndex)..<close])
    let rest = text[text.index(after: close)...]
    if rest.hasPrefix(":") { portText = rest.dropFirst() }
  } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
    host = String(text[..<colon])
    portText = text[text.index(after: colon)...]
  }
  if host.lowercased() == "localhost" { host = "127.0.0.1" }
  if !secure && host != "127.0.0.1" {
    throw UsageError(
      "Won't listen on \(host.isEmpty ? text : host) (--listen \(text)) without TLS: the studio's "
        + "secret, its cookie and the store's data would cross the network in clear text. "
        + "Give --tls-cert and --tls-key to serve HTTPS there, or listen on 127.0.0.1 (the "
        + "default) and reach it from another computer through an SSH tunnel "
        + "(ssh -L 8080:127.0.0.1:<port> <this computer>).", command: command)
  }
  guard !host.isEmpty, !host.contains(where: \.isWhitespace) else {
    throw UsageError(
      "`\(text)` is not a valid value for --listen: give an address and an optional port, such "
        + "as 127.0.0.1:8080 or [::1]:8080.", command: command)
  }
  guard let portText else { return (host, nil) }
  guard let port = Int(portText), (0...Int(UInt16.max)).contains(port) else {
    throw UsageError(
      "`\(text)` is not a valid value for --listen: give an address and an optional port from 0 "
        + "to 65535, such as 127.0.0.1:8080.", command: command)
  }
  return (host, port)
}

/// Opens `url` with the desktop's opener (`xdg-open`, `open`), or says there is none.
private func openInBrowser(_ url: String) {
  let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
  for opener in ["xdg-open", "open"] {
    for folder in path.split(separator: ":") {
      let candidate = "\(folder)/\(opener)"
      guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
      let process = Process()
      process.executableURL = URL(fileURLWithPath: candidate)
      process.arguments = [url]
      if (try? process.run()) != nil { return }
    }
  }
  FileHandle.standardError.write(
    Data("No browser to open here (no xdg-open): open the URL above in a browser.\n".utf8))
}
