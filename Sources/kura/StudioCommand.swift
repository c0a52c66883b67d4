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
      help: "The address to listen on: 127.0.0.1 or localhost, with an optional :port. The "
        + "studio serves plain HTTP, so it refuses any other address.", valueName: "address"),
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
    if let listen: String = try invocation.option("listen") {
      // Only the loopback address passes (it is the one the studio listens on).
      if let listenPort = try studioListenAddress(listen, command: command).1 {
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
      let transport = try StudioServer(studio: studio, port: UInt16(port))
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

/// The host and port of `kura studio --listen`: a loopback name (`127.0.0.1`, `localhost`)
/// with an optional port; any other address is refused, since the studio serves plain HTTP.
func studioListenAddress(_ text: String, command: String) throws -> (String, Int?) {
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
  guard ["127.0.0.1", "localhost"].contains(host.lowercased()) else {
    throw UsageError(
      "Won't listen on \(host.isEmpty ? text : host) (--listen \(text)): Kura Studio serves plain "
        + "HTTP, without TLS, so its secret, its cookie and the store's data would cross the "
        + "network in clear text. It listens on 127.0.0.1 only: give --listen 127.0.0.1[:port], "
        + "and reach it from another computer through an SSH tunnel "
        + "(ssh -L 8080:127.0.0.1:<port> <this computer>).", command: command)
  }
  guard let portText else { return ("127.0.0.1", nil) }
  guard let port = Int(portText), (0...Int(UInt16.max)).contains(port) else {
    throw UsageError(
      "`\(text)` is not a valid value for --listen: give 127.0.0.1 or 127.0.0.1:<port> (a port "
        + "from 0 to 65535).", command: command)
  }
  return ("127.0.0.1", port)
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
