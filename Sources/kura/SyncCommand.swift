import Foundation
import Kura
import KuraCLI
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore

#if canImport(KuraSyncServer) && canImport(Glibc)
  import Glibc
  import KuraSyncServer
#endif

/// `kura sync serve|token|soak`: runs a sync server on a PostgreSQL database, makes tokens for
/// its tokens file, and soaks servers and replicas under faults (SyncSoakCommand.swift).
let syncCommand = Command(
  name: "sync",
  abstract:
    "Runs a sync server that devices' local stores sync through, makes its tokens, and soaks it.",
  subcommands: [syncServeCommand, syncTokenCommand, syncSoakCommand, syncSoakReplicaCommand])

let syncServeCommand = Command(
  name: "serve",
  abstract: "Serves sync over HTTP, keeping the shared data in a PostgreSQL database.",
  discussion: """
    The server keeps nothing but what is in the database, so several servers can serve one \
    database. With --tls-cert and --tls-key (PEM files) it speaks HTTPS; without them, plain \
    HTTP on a loopback address (127.0.0.1) only, unless --insecure-public is given (put a TLS \
    proxy in front of it then). Clients trust the certificate through their system's trust \
    store (on Linux, add it with update-ca-certificates). The tokens file has one \
    line per token, `<space> <sha-256 of the token> [device=<name>] [expires=<ISO 8601 \
    time>]` (CRLF line ends are read as LF); the server reads it again when it changes, so \
    removing a line revokes its token, and while it can't be read or parsed every token is \
    refused (the reason is logged). Each request's token is checked before its body is read; \
    a request's head must arrive within 8 s and its body within 60 s. The log is folded and \
    tombstones dropped once every replica seen within --tombstone-retention has them; a replica \
    not seen for that long is retired, and rebased from a snapshot when it comes back. Stop the \
    server with Ctrl-C or SIGTERM.
    """,
  options: [
    Option(
      "store", help: "The PostgreSQL database, such as postgresql://host/app.",
      valueName: "url"),
    Option(
      "listen",
      help: "The IPv4 or IPv6 address and port to listen on, such as 127.0.0.1:8080 or "
        + "[::1]:8080 (port 0: any free port; the one chosen is printed).",
      valueName: "address:port"),
    Option("tokens", help: "The tokens file.", valueName: "file"),
    Option(
      "tls-cert", help: "Serve HTTPS with this certificate (PEM; a chain: the server's first).",
      valueName: "file"),
    Option("tls-key", help: "The certificate's private key (PEM).", valueName: "file"),
    Option(
      "waiting-pulls",
      help: "The most pulls held waiting for a push at once (200 by default); one more is "
        + "answered 503 busy at once, and its device polls.", valueName: "count"),
    Option(
      "connections-per-address",
      help: "The most connections at once from one IP address (none by default: behind a "
        + "proxy every client has its address).", valueName: "count"),
    Option(
      "tombstone-retention",
      help: "How long a replica may go unseen and still hold back the dropping of tombstones, "
        + "such as 30d, 12h, 90m or 3600s (30d by default).", valueName: "duration"),
  ],
  flags: [
    Flag(
      "insecure-public",
      help: "Listen on a non-loopback address without TLS (tokens then cross the network in "
        + "clear text).")
  ],
  run: { invocation in
    let command = invocation.commandPath
    guard let storeText: String = try invocation.option("store") else {
      throw UsageError(
        "Missing --store: give the PostgreSQL database, such as postgresql://host/app.",
        command: command)
    }
    let store = try StoreLocation(storeText, what: "--store", command: command)
    guard case .postgres(let location, _) = store else {
      throw UsageError(
        "`\(storeText)` is not a valid value for --store: the sync server keeps its data in "
          + "PostgreSQL; give a postgresql:// URL or a connection string.", command: command)
    }
    let listen: String = try invocation.option("listen") ?? "127.0.0.1:0"
    let (host, port) = try listenAddress(listen, command: command)
    let certificatePath: String? = try invocation.option("tls-cert")
    let keyPath: String? = try invocation.option("tls-key")
    if (certificatePath == nil) != (keyPath == nil) {
      throw UsageError(
        "Give both --tls-cert and --tls-key (the certificate and its private key), or "
          + "neither.", command: command)
    }
    let retentionText: String = try invocation.option("tombstone-retention") ?? "30d"
    let retention = try retentionWindow(retentionText, command: command)
    let loopback = host.hasPrefix("127.") || host == "::1"
    if certificatePath == nil && !loopback && !invocation.flag("insecure-public") {
      throw UsageError(
        "Won't listen on \(host) without TLS: tokens would cross the network in clear text. "
          + "Give --tls-cert and --tls-key, listen on 127.0.0.1 behind a TLS proxy, or pass "
          + "--insecure-public to do it anyway.",
        command: command)
    }
    guard let tokensPath: String = try invocation.option("tokens") else {
      throw UsageError(
        "Missing --tokens: give the tokens file (`kura sync token --space <space>` makes a "
          + "token and its line).", command: command)
    }
    #if canImport(KuraSyncServer) && canImport(Glibc)
      // The files first: a bad one is refused before the database is touched.
      let tls: SyncTLSFiles?
      do {
        tls = try certificatePath.map { try SyncTLSFiles(certificate: $0, key: keyPath ?? "") }
      } catch let error as SyncHTTPServerError {
        throw UsageError(error.message, command: command)
      }
      let service: SyncService
      do {
        service = try SyncService(
          store: location, tokens: URL(fileURLWithPath: tokensPath), retireAfter: retention)
      } catch let error as SyncTokensError {
        throw UsageError(error.message, command: command)
      }
      let waiting: Int = try invocation.option("waiting-pulls") ?? 200
      guard waiting >= 0 else {
        throw UsageError(
          "--waiting-pulls is a count of pulls: 0 or more (0: none waits).", command: command)
      }
      // Room for the server's 4,000 connections: a soft limit of 1,024 descriptors (a common
      // default) would make it refuse connections long before.
      var descriptors = rlimit()
      if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptors) == 0,
        descriptors.rlim_cur < 8_192, descriptors.rlim_max > descriptors.rlim_cur
      {
        descriptors.rlim_cur = min(descriptors.rlim_max, 8_192)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptors)
      }
      var limits = HTTPServerLimits()
      let perAddress: Int = try invocation.option("connections-per-address") ?? 0
      guard perAddress >= 0 else {
        throw UsageError(
          "--connections-per-address is a count of connections: 1 or more (0: no limit).",
          command: command)
      }
      limits.connectionsPerAddress = perAddress
      let server = try SyncHTTPServer(
        service: service, host: host, port: port, tls: tls, maximumWaiting: waiting,
        limits: limits)
      let scheme = certificatePath == nil ? "http" : "https"
      let shownHost = host.contains(":") ? "[\(host)]" : host
      // Written straight to the file descriptor: a test or script reading the port waits for it.
      FileHandle.standardOutput.write(
        Data(
          ("Serving sync on \(scheme)://\(shownHost):\(server.port) for "
            + "\(location.description) (tombstone retention \(retentionText))\n").utf8))
      // Ctrl-C and SIGTERM end the process (their default action); requests under way are
      // cut, which a client sees as a lost answer and resends.
      while true { pause() }
    #else
      throw UsageError(
        "`kura sync serve` is not available on this platform (it needs libmicrohttpd and "
          + "libpq, on Linux).", command: command)
    #endif
  })

/// The host and port of `--listen`: `127.0.0.1:8080`, or an IPv6 address in brackets,
/// `[::1]:8080`.
private func listenAddress(_ text: String, command: String) throws -> (String, UInt16) {
  let bad = UsageError(
    "`\(text)` is not a valid value for --listen: give an IPv4 address and a port, such as "
      + "127.0.0.1:8080, or an IPv6 address in brackets and a port, such as [::1]:8080.",
    command: command)
  if text.hasPrefix("[") {
    guard let close = text.firstIndex(of: "]"),
      text[close...].hasPrefix("]:"),
      let port = UInt16(text[text.index(close, offsetBy: 2)...])
    else { throw bad }
    let host = String(text[text.index(after: text.startIndex)..<close])
    guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." })
    else { throw bad }
    return (host, port)
  }
  let parts = text.split(separator: ":", omittingEmptySubsequences: false)
  guard parts.count == 2, let port = UInt16(parts[1]), !parts[0].isEmpty,
    parts[0].split(separator: ".").count == 4
  else { throw bad }
  return (String(parts[0]), port)
}

/// The duration of `--tombstone-retention`: a positive whole number and a unit, `d`, `h`, `m`
/// or `s` (`30d`).
private func retentionWindow(_ text: String, command: String) throws -> Duration {
  let units: [Character: Int64] = ["d": 86_400, "h": 3_600, "m": 60, "s": 1]
  guard let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()),
    count > 0, count <= Int64.max / unit / 1_000
  else {
    throw UsageError(
      "`\(text)` is not a valid value for --tombstone-retention: give a positive whole number "
        + "of days, hours, minutes or seconds, such as 30d, 12h, 90m or 3600s.",
      command: command)
  }
  return .seconds(count * unit)
}

let syncTokenCommand = Command(
  name: "token",
  abstract: "Makes a new random token for a space and prints it with its tokens-file line.",
  discussion: """
    The token goes to the device (ModelConfiguration's sync settings); the line goes into the \
    server's tokens file, which keeps only the token's SHA-256. The token is printed once and \
    can't be recovered from the line. With --device the token is that device's alone: its \
    line carries device=<name>, removing the line revokes that device only, and the replicas \
    it registers are bound to the device's name (a new token for the same device name keeps \
    them). A replica pushes and pulls only with the credential that first registered it.
    """,
  options: [
    Option("space", help: "The space the token grants, such as family.", valueName: "space"),
    Option(
      "device",
      help: "The device the token is for, such as alice-phone (ASCII letters, digits, . _ -).",
      valueName: "name"),
    Option(
      "expires", help: "When the token stops working (ISO 8601, such as 2027-01-01T00:00:00Z).",
      valueName: "time"),
  ],
  supportsJSON: true,
  run: { invocation in
    let command = invocation.commandPath
    guard let space: String = try invocation.option("space") else {
      throw UsageError("Missing --space: give the space the token grants.", command: command)
    }
    var expires: String?
    if let text: String = try invocation.option("expires") {
      guard ISO8601DateFormatter().date(from: text) != nil else {
        throw UsageError(
          "`\(text)` is not a valid value for --expires: give an ISO 8601 time such as "
            + "2027-01-01T00:00:00Z.", command: command)
      }
      expires = text
    }
    let token: SyncToken
    do {
      token = try SyncToken(space: space, device: try invocation.option("device"), expires: expires)
    } catch let error as SyncTokensError {
      throw UsageError(error.message, command: command)
    }
    if invocation.json { return try invocation.printJSON(token) }
    print("token  \(token.token)")
    print("line   \(token.line)")
  })
