#if canImport(KuraSyncServer) && canImport(Glibc)
  import Foundation
  import Glibc
  import Kura
  import KuraStoreCLI
  import KuraPostgreSQL
  import KuraSync
  import KuraSyncCore
  import KuraSyncServer
  import KuraPostgresCluster

  /// The runs of `kura sync soak` (SyncSoakCommand.swift): processes, faults and the checks.
  struct SyncSoak {
    var steps: Int
    var replicas: Int

    /// What one run did and found.
    struct Tally {
      var saves = 0
      var replicaKills = 0
      var serverKills = 0
      var cuts = 0
      var postgresRestarts = 0
      var checkedOnServer = 0
      var checkedOnReplicas = 0
      /// What the hostile replica's lies got.
      var hostile = SoakHostile.Tally()
      /// Where the run's time went: the database and the servers up, the steps, the final
      /// syncs until every replica has everything, the checks.
      var setup: Duration = .zero
      var stepping: Duration = .zero
      var quiet: Duration = .zero
      var checking: Duration = .zero
      /// Of all that, waiting for started servers and replicas to be ready.
      var starting: Duration = .zero
    }

    /// Runs until `runs` runs are done or `seconds` have passed; throws at the first run that
    /// breaks a guarantee.
    func run(runs: Int, seconds: Int, seed: UInt64) throws {
      let clock = ContinuousClock()
      let start = clock.now
      let cluster = try PostgresCluster.start(fsync: true)
      let folder = URL(fileURLWithPath: NSTemporaryDirectory())
        .appendingPathComponent("kura-soak-\(getpid())")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      var total = Tally()
      var done = 0
      func figure(_ duration: Duration) -> String {
        let value =
          Double(duration.components.seconds)
          + Double(duration.components.attoseconds) * 1e-18
        return String(format: "%.1f", value)
      }
      for run in 0..<runs where clock.now - start < .seconds(seconds) {
        let runSeed = seed &+ UInt64(run)
        let tally = try once(
          run: run, seed: runSeed, cluster: cluster,
          folder: folder.appendingPathComponent("run-\(run)"))
        done += 1
        total.saves += tally.saves
        total.replicaKills += tally.replicaKills
        total.serverKills += tally.serverKills
        total.cuts += tally.cuts
        total.postgresRestarts += tally.postgresRestarts
        total.checkedOnServer += tally.checkedOnServer
        total.checkedOnReplicas += tally.checkedOnReplicas
        total.hostile = total.hostile + tally.hostile
        total.setup += tally.setup
        total.stepping += tally.stepping
        total.quiet += tally.quiet
        total.checking += tally.checking
        total.starting += tally.starting
        print(
          "run \(run + 1) (seed \(runSeed)): \(tally.saves) saves acknowledged, "
            + "\(tally.replicaKills) replica kills, \(tally.serverKills) server kills, "
            + "\(tally.cuts) cuts, \(tally.postgresRestarts) PostgreSQL restarts; each save on "
            + "the server once (\(tally.checkedOnServer) checked) and on all \(replicas) "
            + "replicas (\(tally.checkedOnReplicas) checked), nothing pending, converged; "
            + "hostile replica: \(tally.hostile.refused) lies refused (400), "
            + "\(tally.hostile.forbidden) impersonations refused (403), \(tally.hostile.logged) "
            + "logged and quarantined on every replica, \(tally.hostile.unanswered) unanswered; "
            + "\(figure(tally.setup)) s setup, \(figure(tally.stepping)) s steps, "
            + "\(figure(tally.quiet)) s final syncs, \(figure(tally.checking)) s checks ("
            + "\(figure(tally.starting)) s of it waiting for processes to start)")
        fflush(nil)
      }
      let answeredLies = total.hostile.refused + total.hostile.forbidden + total.hostile.logged
      // Kept when a run failed (its logs are what the error points at).
      try? FileManager.default.removeItem(at: folder)
      print(
        "soak: \(done) runs in \(Int((clock.now - start).components.seconds)) s "
          + "(\(figure(total.setup)) s setup, \(figure(total.stepping)) s steps, "
          + "\(figure(total.quiet)) s final syncs, \(figure(total.checking)) s checks, "
          + "\(figure(total.starting)) s of it waiting for processes to start): "
          + "\(total.saves) saves acknowledged and checked, \(total.replicaKills) replica kills, "
          + "\(total.serverKills) server kills, \(total.cuts) cuts, \(total.postgresRestarts) "
          + "PostgreSQL restarts, \(answeredLies) hostile pushes refused or quarantined; "
          + "no save lost or applied twice")
    }

    /// One run: a database, two servers behind the relay, the replicas, the faults, the checks.
    private func once(run: Int, seed: UInt64, cluster: PostgresCluster, folder: URL) throws
      -> Tally
    {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      var random = SoakRandom(state: seed)
      var tally = Tally()
      let clock = ContinuousClock()
      var phaseStart = clock.now
      /// Adds the time since the last phase ended to `phase`.
      func endPhase(_ phase: WritableKeyPath<Tally, Duration>) {
        let now = clock.now
        tally[keyPath: phase] += now - phaseStart
        phaseStart = now
      }
      let kura = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
      let database = try cluster.freshDatabaseURL("soak run \(run)")
      let token = try SyncToken(space: "soak", expires: nil)
      // The hostile replica's own device token: valid for the space, bound to its replica.
      let hostileToken = try SyncToken(space: "soak", device: "hostile", expires: nil)
      let tokens = folder.appendingPathComponent("tokens")
      try "\(token.line)\n\(hostileToken.line)\n".write(
        to: tokens, atomically: true, encoding: .utf8)
      var hostile = SoakHostile(token: hostileToken.token)
      // Its own seeded choices, so the honest replicas' actions are those of the seed as before.
      var lies = SoakRandom(state: seed ^ 0x686F_7374_696C_65)
      var serverCount = 0
      // A server started is routed to once it prints its port; until then the relay sends
      // every connection to the servers that are up (none: connections are refused, a fault
      // like the others).
      func launchServer() throws -> SoakServer {
        serverCount += 1
        return SoakServer(
          process: try SoakProcess(
            kura,
            [
              "sync", "serve", "--store", database, "--listen", "127.0.0.1:0", "--tokens",
              tokens.path,
            ], log: folder.appendingPathComponent("server-\(serverCount).log")))
      }
      var servers = [try launchServer(), try launchServer()]
      let relay = try SoakRelay()
      /// Routes to the servers that printed their port, waiting for each when `wait`.
      func routeServers(wait: Bool) throws {
        let began = clock.now
        defer { if wait { tally.starting += clock.now - began } }
        for index in servers.indices where servers[index].port == nil {
          guard
            let line = servers[index].process.nextLine(
              timeout: wait ? 60 : 0, where: { $0.hasPrefix("Serving sync on http://") })
          else {
            if wait {
              throw SoakError("run \(run): a sync server did not start (see \(folder.path)).")
            }
            continue
          }
          servers[index].port =
            line.split(separator: " ").first(where: { $0.hasPrefix("http://") })
            .flatMap({ $0.split(separator: ":").last }).flatMap({ UInt16($0) })
        }
        relay.route(to: servers.compactMap(\.port))
      }
      try routeServers(wait: true)
      endPhase(\.setup)
      let url = "http://127.0.0.1:\(relay.port)"
      var starts = 0
      // A replica started is waited for (its `ready`) when it is next spoken to, so the other
      // replicas act meanwhile.
      func startReplica(_ index: Int) throws -> SoakProcess {
        starts += 1
        return try SoakProcess(
          kura,
          [
            "sync", "soak-replica", folder.appendingPathComponent("replica-\(index).store").path,
            url, "soak", token.token,
          ], log: folder.appendingPathComponent("replica-\(index)-\(starts).log"))
      }
      var processes = try (0..<replicas).map(startReplica)
      var ready = Array(repeating: false, count: replicas)
      func awaitReady(_ index: Int) throws {
        guard !ready[index] else { return }
        let began = clock.now
        defer { tally.starting += clock.now - began }
        guard processes[index].nextLine(where: { $0 == "ready" }) != nil else {
          throw SoakError("run \(run): replica \(index) did not start (see \(folder.path)).")
        }
        ready[index] = true
      }
      var acknowledged: [String] = []
      func ask(_ index: Int, _ request: String, expecting prefix: String) throws -> String {
        try awaitReady(index)
        processes[index].send(request)
        guard let line = processes[index].nextLine(where: { $0.hasPrefix(prefix) }) else {
          throw SoakError(
            "run \(run) (seed \(seed)): replica \(index) did not answer `\(request)`.")
        }
        return line
      }
      let restartAt = run.isMultiple(of: 4) ? steps / 2 : -1
      for step in 0..<steps {
        try routeServers(wait: false)
        // One step in three, the hostile replica lies first (through the relay, as the others).
        if lies.next() % 3 == 0 {
          let victims = (try? SoakHostile.replicas(database)) ?? []
          do {
            try hostile.lie(
              choice: lies.next(), acknowledged: acknowledged, replicas: victims,
              port: relay.port)
          } catch let error as SoakError {
            throw SoakError("run \(run) (seed \(seed)): \(error.description)")
          }
        }
        if step == restartAt {
          // Servers starting now are waited for first: one that can't reach PostgreSQL
          // while it starts exits, which is not what the run tests.
          try routeServers(wait: true)
          try cluster.restart()
          tally.postgresRestarts += 1
        }
        let index = Int(random.next() % UInt64(replicas))
        switch random.next() % 100 {
        case 0..<45:
          let id = "r\(index)-s\(step)-\(seed)"
          _ = try ask(index, "save \(id)", expecting: "saved ")
          acknowledged.append(id)
        case 45..<65:
          _ = try ask(index, "sync", expecting: "")
        case 65..<75:
          // Killed at once (once it runs): after a save it may not have sent.
          try awaitReady(index)
          processes[index].kill()
          processes[index] = try startReplica(index)
          ready[index] = false
          tally.replicaKills += 1
        case 75..<83:
          let victim = Int(random.next() % UInt64(servers.count))
          if servers[victim].port == nil { try routeServers(wait: true) }
          servers[victim].process.kill()
          servers[victim] = try launchServer()
          try routeServers(wait: false)
          tally.serverKills += 1
        default:
          // A sync under way, and every connection cut while it runs.
          try awaitReady(index)
          processes[index].send("sync")
          relay.cutAll()
          guard
            processes[index].nextLine(where: { $0 == "synced" || $0.hasPrefix("failed") })
              != nil
          else { throw SoakError("run \(run) (seed \(seed)): replica \(index) hung on a cut.") }
          tally.cuts += 1
        }
      }
      endPhase(\.stepping)
      try routeServers(wait: true)
      // Quiet: every replica syncs until it succeeds (bounded), all at once, twice around, so
      // each has what the others sent.
      for _ in 0..<2 {
        var unsynced = Set(0..<replicas)
        for _ in 0..<20 where !unsynced.isEmpty {
          for index in unsynced.sorted() {
            try awaitReady(index)
            processes[index].send("sync")
          }
          for index in unsynced.sorted() {
            guard
              let line = processes[index].nextLine(where: {
                $0 == "synced" || $0.hasPrefix("failed")
              })
            else {
              throw SoakError("run \(run) (seed \(seed)): replica \(index) did not answer.")
            }
            if line == "synced" { unsynced.remove(index) }
          }
        }
        if let index = unsynced.min() {
          throw SoakError("run \(run) (seed \(seed)): replica \(index) can't sync.")
        }
      }
      endPhase(\.quiet)
      tally.saves = acknowledged.count
      tally.hostile = hostile.tally
      try check(
        acknowledged, database: database, run: run, seed: seed, tally: &tally,
        hostile: hostile.replicaHex, ask: ask)
      endPhase(\.checking)
      for process in processes { process.kill() }
      for server in servers { server.process.kill() }
      try? FileManager.default.removeItem(at: folder)
      return tally
    }

    /// The checks after a run: each acknowledged save in exactly one save of the server's log
    /// (so none is lost or applied twice), on every replica, nothing pending, and the same ids
    /// everywhere.
    private func check(
      _ acknowledged: [String], database: String, run: Int, seed: UInt64, tally: inout Tally,
      hostile: String, ask: (Int, String, String) throws -> String
    ) throws {
      let failure = { (what: String) in SoakError("run \(run) (seed \(seed)): \(what)") }
      // The honest replicas' saves (a lie the server logged names an honest id too).
      let log = try PostgresConnection(database).query(
        "SELECT changes FROM kura_sync_log WHERE space = 'soak' AND replica <> ?", [.text(hostile)]
      ) { $0.string(at: 0) }
      let lies =
        try PostgresConnection(database).queryFirst(
          "SELECT count(*) FROM kura_sync_log WHERE space = 'soak' AND replica = ?",
          [.text(hostile)]
        ) { $0.int64(at: 0) } ?? 0
      // No impersonation got in: every save logged as an honest replica is one it made.
      let impostors =
        try PostgresConnection(database).queryFirst(
          "SELECT count(*) FROM kura_sync_log WHERE space = 'soak' AND changes LIKE '%hostile-%' "
            + "AND replica <> ?", [.text(hostile)]
        ) { $0.int64(at: 0) } ?? 0
      guard impostors == 0 else {
        throw failure("\(impostors) saves of the hostile replica were logged as honest ones")
      }
      var savesHolding: [String: Int] = [:]
      for changes in log {
        let decoded = try JSONSerialization.jsonObject(with: Data(changes.utf8)) as? [[String: Any]]
        let ids = Set((decoded ?? []).compactMap { $0["id"] as? String })
        for id in ids { savesHolding[id, default: 0] += 1 }
      }
      for id in acknowledged {
        guard savesHolding[id] == 1 else {
          throw failure("save `\(id)` is in \(savesHolding[id] ?? 0) saves of the server's log")
        }
      }
      tally.checkedOnServer = acknowledged.count
      var first: String?
      for index in 0..<replicas {
        let ids = try ask(index, "ids", "ids ")
        let held = Set(ids.dropFirst(4).split(separator: ",").map(String.init))
        if let missing = acknowledged.first(where: { !held.contains($0) }) {
          throw failure("replica \(index) lacks acknowledged save `\(missing)`")
        }
        tally.checkedOnReplicas += acknowledged.count
        if let first, first != ids { throw failure("replica \(index) differs from replica 0") }
        first = first ?? ids
        let pending = try ask(index, "pending", "pending ")
        guard pending == "pending 0" else { throw failure("replica \(index) has \(pending)") }
        // What the server logged of the lies is held in each replica's quarantine.
        let quarantined = try ask(index, "quarantined", "quarantined ")
        let holding = Int(quarantined.dropFirst("quarantined ".count)) ?? 0
        if lies > 0, holding == 0 {
          throw failure(
            "replica \(index) quarantined nothing of the \(lies) lies the server logged")
        }
      }
    }
  }

  /// A `kura sync serve` process of a soak run, and its port once it printed it.
  struct SoakServer {
    var process: SoakProcess
    var port: UInt16?
  }

  /// SplitMix64: the soak's seeded choices, so a failing seed replays the same actions.
  struct SoakRandom {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }
#endif
