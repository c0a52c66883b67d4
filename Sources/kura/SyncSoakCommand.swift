import Foundation
import Kura
import KuraCLI
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraSyncServer

/// `kura sync soak`: sync's guarantee of no silent loss under faults, run outside the tests.
let syncSoakCommand = Command(
  name: "soak",
  abstract: "Runs replicas and servers under kill -9, cut connections and PostgreSQL restarts.",
  discussion: """
    Each run starts a fresh database on a throwaway PostgreSQL cluster (one for all runs), two \
    `kura sync serve` processes behind a relay, and replica processes with store files of \
    their own; then, in seeded random order, replicas save and sync, replicas and servers are \
    killed with SIGKILL and started again (a replica started meanwhile is waited for when it is \
    next spoken to, a server when it is next killed), the relay cuts every connection under \
    way (mid-request), and, in every fourth run, PostgreSQL restarts. After each run every \
    replica syncs (all at once) until the server has everything, \
    and the run checks that every acknowledged local save is on the server once and on every \
    replica, that no replica has a save pending, and that the replicas hold the same trips; \
    it prints what it checked. A hostile replica with a device token of its own pushes \
    well-formed lies meanwhile (wrong kinds, required properties missing or null, NaN and \
    infinite dates, pushes and settles as an honest replica): each must be refused (400, or \
    403 for an impersonation) or, when the server logs it, quarantined by every replica, and \
    no lie may reach the honest replicas' trips. It stops after --runs runs or --seconds seconds, whichever \
    comes first, and exits 1 at the first run that breaks a guarantee.
    """,
  options: [
    Option("runs", help: "How many runs at most (10 by default).", valueName: "n"),
    Option(
      "seconds", help: "Start no run after this many seconds (300 by default).",
      valueName: "s"),
    Option("steps", help: "Actions per run (40 by default).", valueName: "n"),
    Option("replicas", help: "Replica processes per run (3 by default).", valueName: "n"),
    Option("seed", help: "The first run's seed (the time by default).", valueName: "n"),
  ],
  run: { invocation in
    let runs = try invocation.option("runs", in: 1...) ?? 10
    let seconds = try invocation.option("seconds", in: 1...) ?? 300
    let steps = try invocation.option("steps", in: 1...) ?? 40
    let replicas = try invocation.option("replicas", in: 2...) ?? 3
    let seed: Int = try invocation.option("seed") ?? Int(Date().timeIntervalSince1970)
    #if canImport(KuraSyncServer) && canImport(Glibc)
      try SyncSoak(steps: steps, replicas: replicas).run(
        runs: runs, seconds: seconds, seed: UInt64(truncatingIfNeeded: seed))
    #else
      throw UsageError(
        "`kura sync soak` is not available on this platform (it needs libmicrohttpd and libpq, "
          + "on Linux).", command: invocation.commandPath)
    #endif
  })

/// `kura sync soak-replica <store> <url> <space> <token>`: one replica of a soak, driven by
/// lines on standard input: `save <id>` → `saved <id>` once the save committed; `sync` →
/// `synced` or `failed <code>`; `ids` → `ids <id>,<id>,…`; `pending` → `pending <n>`;
/// `quarantined` → `quarantined <n>` (pulled changes its admission refused).
let syncSoakReplicaCommand = Command(
  name: "soak-replica",
  abstract: "One replica process of `kura sync soak` (driven by lines on standard input).",
  arguments: [
    Argument("store", help: "The store file."), Argument("url", help: "The server's URL."),
    Argument("space", help: "The space."), Argument("token", help: "The space's token."),
  ],
  run: { invocation in
    let url: String = try invocation.argument("url")
    guard let server = URL(string: url) else {
      throw UsageError("`\(url)` is not a valid value for <url>.", command: invocation.commandPath)
    }
    var configuration = ModelConfiguration.url(
      URL(fileURLWithPath: try invocation.argument("store")))
    var settings = SyncSettings(
      server: server, space: try invocation.argument("space"),
      token: try invocation.argument("token"))
    settings.pollInterval = .milliseconds(200)
    configuration.sync = settings
    let container = try ModelContainer(for: SoakTrip.self, configurations: configuration)
    let sync = try SyncEngine(container: container)
    let context = ModelContext(container)
    func answer(_ line: String) {
      FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
    answer("ready")
    while let line = readLine() {
      let words = line.split(separator: " ").map(String.init)
      switch words.first {
      case "save" where words.count == 2:
        try context.insert(SoakTrip(id: words[1], replica: words[1], savedAt: Date()))
        try context.save()
        answer("saved \(words[1])")
      case "sync":
        let outcome = syncNowAndWait(sync)
        answer(outcome.map { "failed \($0.code.rawValue)" } ?? "synced")
      case "ids":
        let ids = try context.fetch(FetchDescriptor<SoakTrip>(sortBy: [SortDescriptor(\.id)]))
        answer("ids " + ids.map(\.id).joined(separator: ","))
      case "pending":
        answer("pending \(sync.status.pending)")
      case "quarantined":
        answer("quarantined \(sync.status.quarantined)")
      default:
        answer("bad \(line)")
      }
    }
    sync.stop()
  })

/// The model a soak's replicas save: one trip per acknowledged save.
struct SoakTrip: PersistentModel, Equatable {
  var id: String
  var replica: String
  var savedAt: Date
}
