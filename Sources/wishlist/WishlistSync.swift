import Dispatch
import Foundation
import Kura
import KuraCLI
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import Synchronization

/// Syncing the wish list through a Kura sync server (`kura sync serve`): `--sync <url>` with
/// `--sync-token` (or `KURA_SYNC_URL` and `KURA_SYNC_TOKEN`), and the space the token grants
/// (`--sync-space`, `KURA_SYNC_SPACE`, `wishlist` by default).
///
/// A command that opens the store exchanges with the server first (so others' trips are there
/// before it reads) and again when it ends (so what it saved is sent); `recent --watch` keeps
/// exchanging while it runs. When the server can't be reached the command works on the local
/// store as usual, says so on standard error, and the saves are sent by a later command.
enum WishlistSync {
  /// The sync options of every command that opens the store.
  static let options: [Option] = [
    Option(
      "sync",
      help: "Sync the store through this Kura sync server, such as http://127.0.0.1:8080 "
        + "(else $KURA_SYNC_URL; without either, no sync).", valueName: "url"),
    Option(
      "sync-token", help: "The token of the server's space (else $KURA_SYNC_TOKEN).",
      valueName: "token"),
    Option(
      "sync-space",
      help: "The space the token grants (else $KURA_SYNC_SPACE, else wishlist).",
      valueName: "space"),
  ]

  /// The engine of this process's synced container (a command opens one store).
  private static let engine = Mutex<SyncEngine?>(nil)
  /// Whether this process already said that it could not sync.
  private static let warned = Mutex(false)

  /// The sync settings the command line or the environment give, or `nil` for no sync.
  static func settings(_ invocation: Invocation) throws -> SyncSettings? {
    let environment = ProcessInfo.processInfo.environment
    func given(_ option: String, _ variable: String) throws -> (value: String, what: String)? {
      if let value: String = try invocation.option(option) { return (value, "--\(option)") }
      if let value = environment[variable], !value.isEmpty {
        return (value, "the environment variable \(variable)")
      }
      return nil
    }
    guard let server = try given("sync", "KURA_SYNC_URL") else { return nil }
    guard let url = URL(string: server.value), ["http", "https"].contains(url.scheme ?? ""),
      url.host?.isEmpty == false
    else {
      throw UsageError(
        "`\(server.value)` is not a valid value for \(server.what): give the sync server's URL, "
          + "such as http://127.0.0.1:8080.", command: invocation.commandPath)
    }
    guard let token = try given("sync-token", "KURA_SYNC_TOKEN") else {
      throw UsageError(
        "Missing the sync token: give --sync-token or set KURA_SYNC_TOKEN (`kura sync token "
          + "--space wishlist` makes one for the server's tokens file).",
        command: invocation.commandPath)
    }
    guard !token.value.isEmpty else {
      throw UsageError(
        "The sync token given by \(token.what) is empty: give the token `kura sync token` "
          + "printed.", command: invocation.commandPath)
    }
    let space = try given("sync-space", "KURA_SYNC_SPACE")?.value ?? "wishlist"
    return SyncSettings(server: url, space: space, token: token.value)
  }

  /// Starts syncing the container a command opened, and exchanges once.
  static func start(_ container: ModelContainer) throws {
    let sync = try SyncEngine(container: container)
    engine.withLock { $0 = sync }
    let failure = syncNowAndWait(sync)
    firstFailure.withLock { $0 = failure }
    warnIfFailed(failure)
  }

  /// Why the exchange at the store's open failed (`nil` when the server then had everything).
  private static let firstFailure = Mutex<SyncError?>(nil)

  /// The exchange at open: its failure, if any.
  static var openingFailure: SyncError? { firstFailure.withLock { $0 } }

  /// At the end of a command: sends what it saved, then stops the engine.
  static func finish() {
    guard let sync = engine.withLock({ $0 }) else { return }
    warnIfFailed(syncNowAndWait(sync))
    sync.stop()
  }

  /// The engine of the store this command opened (`nil` without sync).
  static var current: SyncEngine? { engine.withLock { $0 } }

  /// Keeps this process from saying that it could not sync (a command that shows it).
  static func quiet() { warned.withLock { $0 = true } }

  private static func warnIfFailed(_ error: SyncError?) {
    guard let error, !warned.withLock({ $0 }) else { return }
    warned.withLock { $0 = true }
    FileHandle.standardError.write(
      Data(
        ("wishlist: not synced: \(visibleLines(error.message)) The store works as usual; "
          + "what is saved is sent by a later command.\n").utf8))
  }
}

/// `wishlist sync status`: where the store syncs, whether the server has everything, how many
/// saves are pending, and when it last synced.
let syncCommand = Command(
  name: "sync",
  abstract: "Shows how the store syncs through a Kura sync server.",
  subcommands: [
    Command(
      name: "status",
      abstract: "Exchanges with the sync server and shows pending saves and the last sync.",
      discussion: """
        Needs --sync (or KURA_SYNC_URL) and a token. Offline, it shows how many saves wait \
        and when the store last synced.
        """,
      options: WishlistStore.options,
      supportsJSON: true,
      run: { invocation in
        guard let settings = try WishlistSync.settings(invocation) else {
          throw UsageError(
            "Sync is off: give --sync <url> and --sync-token (or set KURA_SYNC_URL and "
              + "KURA_SYNC_TOKEN).", command: invocation.commandPath)
        }
        WishlistSync.quiet()  // the status says it
        // Opening the store exchanges with the server (WishlistStore.container).
        _ = try WishlistStore.container(invocation)
        guard let sync = WishlistSync.current else { return }
        // The state is the opening exchange's outcome (the engine may be exchanging again).
        let status = sync.status
        let failure = WishlistSync.openingFailure
        struct Quarantined: Encodable {
          var kind: String
          var model: String
          var id: String
          var property: String?
          var replica: String
          var reason: String
          var value: String?
          var date: Date
        }
        struct Report: Encodable {
          var server: String
          var space: String
          var state: String
          var reason: String?
          var pending: Int
          var lastSynced: Date?
          var quarantined: Int
          var quarantine: [Quarantined]
        }
        let quarantine = try sync.quarantine().map {
          Quarantined(
            kind: $0.kind.rawValue, model: $0.model, id: $0.id, property: $0.property,
            replica: $0.replica, reason: $0.reason, value: $0.value, date: $0.date)
        }
        var report = Report(
          server: settings.server.absoluteString, space: settings.space, state: "up to date",
          pending: status.pending, lastSynced: status.lastSuccess, quarantined: quarantine.count,
          quarantine: quarantine)
        if let failure {
          report.state = failure.code == .offline ? "offline" : "failing"
          report.reason = failure.message
        } else if status.pending > 0 {
          report.state = "syncing"
        }
        if invocation.json { return try invocation.printJSON(report) }
        print("server       \(report.server) (space \(visible(report.space)))")
        print("state        \(report.state)")
        if let reason = report.reason { print("reason       \(visibleLines(reason))") }
        print("pending      \(report.pending) \(report.pending == 1 ? "save" : "saves")")
        let formatter = ISO8601DateFormatter()
        print("last synced  \(report.lastSynced.map { formatter.string(from: $0) } ?? "never")")
        print(
          "quarantined  \(report.quarantined) \(report.quarantined == 1 ? "change" : "changes")"
            + (report.quarantined == 0 ? "" : " another device sent that this store can't hold:"))
        for entry in report.quarantine {
          let property = entry.property.map { ".\(visible($0))" } ?? ""
          print(
            "  \(entry.kind)  \(visible(entry.model)) \(visible(entry.id))\(property)  from "
              + "\(visible(entry.replica))  value \(visible(entry.value ?? "-"))")
          print("    \(visibleLines(entry.reason))")
        }
      })
  ])
