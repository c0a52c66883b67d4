#if canImport(CLibPQ) && canImport(Glibc)
  import Dispatch
  import Foundation
  import Glibc
  import KuraPostgreSQL
  import KuraPostgresCluster
  import KuraSyncServer
  import Synchronization

  // `kura-bench sync --devices N`: N simulated devices, each a raw HTTP client with a token of
  // its own (`kura sync token --device`) and a replica id of its own, in N/10 spaces, pushing
  // one-change saves as fast as they are answered against two `kura sync serve` processes on
  // one throwaway PostgreSQL cluster (fsync on), on loopback, for a bounded time. It prints
  // saves/s, push latency p50/p99 and each server's memory (RSS from /proc).

  /// `--devices <n>` (nil: the usual suite), `--seconds <s>` of pushing.
  nonisolated(unsafe) var syncBenchmarkDevices: Int?
  nonisolated(unsafe) var syncBenchmarkDeviceSeconds = 10
  /// `--servers <n>`: the `kura sync serve` processes (2 by default).
  nonisolated(unsafe) var syncBenchmarkDeviceServers = 2

  /// One simulated device: its token, replica, space and the server it talks to.
  private struct SimulatedDevice: Sendable {
    let token: String
    let replica: UUID
    let space: String
    let server: Int
  }

  /// A `kura sync serve` child process and its port.
  private final class ServeProcess {
    let process = Process()
    private(set) var port: UInt16 = 0

    init(kura: URL, database: String, tokens: URL, log: URL) throws {
      process.executableURL = kura
      process.arguments = [
        "sync", "serve", "--store", database, "--listen", "127.0.0.1:0", "--tokens", tokens.path,
        "--waiting-pulls", "2000",
      ]
      let output = Pipe()
      process.standardOutput = output
      _ = FileManager.default.createFile(atPath: log.path, contents: nil)
      process.standardError = try FileHandle(forWritingTo: log)
      try process.run()
      // The first line says where it serves: "Serving sync on http://127.0.0.1:<port> …".
      var line: [UInt8] = []
      let reader = output.fileHandleForReading
      while !line.contains(UInt8(ascii: "\n")) {
        let chunk = reader.availableData
        if chunk.isEmpty { break }
        line += chunk
      }
      let text = String(decoding: line, as: UTF8.self)
      guard
        let address = text.split(separator: " ").first(where: { $0.hasPrefix("http://") }),
        let port = address.split(separator: ":").last.flatMap({ UInt16($0) })
      else {
        process.terminate()
        throw SyncAbuseBenchmarkError(
          description: "`kura sync serve` did not start (\(text); see \(log.path))")
      }
      self.port = port
    }

    /// The process's resident memory now and at its peak, in MiB (`/proc/<pid>/status`).
    func memory() -> (resident: Double, peak: Double) {
      let status =
        (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8))
        ?? ""
      func field(_ name: String) -> Double {
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
          let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
          return (kilobytes ?? 0) / 1024
        }
        return 0
      }
      return (field("VmRSS"), field("VmHWM"))
    }

    func stop() {
      process.terminate()
      process.waitUntilExit()
    }
  }

  /// Runs the simulated devices (see above).
  func runSyncDevicesBenchmark(devices: Int, servers serverCount: Int, for pushing: Int) throws {
    let kura = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
      .deletingLastPathComponent().appendingPathComponent("kura")
    guard FileManager.default.isExecutableFile(atPath: kura.path) else {
      throw SyncAbuseBenchmarkError(
        description:
          "`kura-bench sync --devices` runs the `kura` executable next to it (\(kura.path)), "
          + "which is not there: build it with `swift build -c release --product kura`")
    }
    let directory = benchmarkDirectory("sync-devices")
    let cluster = try PostgresCluster.start(fsync: true)
    let database = try cluster.freshDatabaseURL("devices")
    let spaces = max(1, devices / 10)
    var lines: [String] = []
    var simulated: [SimulatedDevice] = []
    for index in 0..<devices {
      let space = "space\(index % spaces)"
      let token = try SyncToken(space: space, device: "device\(index)", expires: nil)
      lines.append(token.line)
      simulated.append(
        SimulatedDevice(
          token: token.token, replica: UUID(), space: space, server: index % serverCount))
    }
    let tokens = directory.appendingPathComponent("tokens")
    try (lines.joined(separator: "\n") + "\n").write(to: tokens, atomically: true, encoding: .utf8)
    let servers = try (0..<serverCount).map {
      try ServeProcess(
        kura: kura, database: database, tokens: tokens,
        log: directory.appendingPathComponent("server-\($0).log"))
    }
    defer { for server in servers { server.stop() } }
    let ports = servers.map(\.port)
    let idle = servers.map { $0.memory().resident }
    // Clients at once: enough to keep both servers and PostgreSQL busy on this machine; each
    // goes round its share of the devices, one push each in turn.
    let clients = min(devices, 32)
    let clock = ContinuousClock()
    let stop = Atomic(false)
    let latencies = Mutex<[Duration]>([])
    let acknowledged = Atomic(0)
    let failed = Atomic(0)
    let pushedDevices = Atomic(0)
    let group = DispatchGroup()
    let start = clock.now
    for client in 0..<clients {
      let mine = stride(from: client, to: devices, by: clients).map { simulated[$0] }
      group.enter()
      Thread {
        defer { group.leave() }
        var sequences = [Int64](repeating: 1, count: mine.count)
        var samples: [Duration] = []
        var turn = 0
        while !stop.load(ordering: .relaxed) {
          let index = turn % mine.count
          let device = mine[index]
          turn += 1
          guard
            let request = try? rawPushRequest(
              space: device.space, token: device.token, replica: device.replica,
              firstSequence: sequences[index], changesPerSave: 1, nameLength: 20)
          else { continue }
          let began = clock.now
          let status = rawHTTPRequest(port: ports[device.server], request)
          samples.append(clock.now - began)
          if status == 200 {
            if sequences[index] == 1 { pushedDevices.add(1, ordering: .relaxed) }
            sequences[index] += 1
            acknowledged.add(1, ordering: .relaxed)
          } else {
            failed.add(1, ordering: .relaxed)
          }
        }
        latencies.withLock { $0 += samples }
      }.start()
    }
    // Bounded: the pushing stops after `seconds`, the memory read meanwhile.
    var peakResident = idle
    let deadline = start + .seconds(pushing)
    while clock.now < deadline {
      usleep(250_000)
      for (index, server) in servers.enumerated() {
        peakResident[index] = max(peakResident[index], server.memory().resident)
      }
    }
    stop.store(true, ordering: .relaxed)
    group.wait()
    let elapsed = clock.now - start
    let samples = latencies.withLock { $0 }.sorted()
    guard !samples.isEmpty else {
      throw SyncAbuseBenchmarkError(description: "no push was answered")
    }
    let saves = acknowledged.load(ordering: .relaxed)
    let logged = try PostgresConnectionCount.loggedSaves(database)
    guard logged == Int64(saves) else {
      throw SyncAbuseBenchmarkError(
        description: "the servers acknowledged \(saves) saves and logged \(logged)")
    }
    let rate = Double(saves) / max(seconds(elapsed), 1e-9)
    let p50 = samples[samples.count / 2]
    let p99 = samples[min(samples.count - 1, samples.count * 99 / 100)]
    func mebibytes(_ value: Double) -> String { String(format: "%.0f MiB", value) }
    print(
      "\(devices) devices in \(spaces) spaces, \(serverCount) server\(serverCount == 1 ? "" : "s")"
        .padding(
          toLength: 44, withPad: " ", startingAt: 0)
        + String(format: " %.0f saves/s", rate)
        + "  push p50 \(milliseconds(p50))  p99 \(milliseconds(p99))  (\(saves) saves in "
        + "\(milliseconds(elapsed)), \(clients) pushing at once, \(failed.load(ordering: .relaxed)) "
        + "refused or failed, \(pushedDevices.load(ordering: .relaxed)) devices pushed)")
    for (index, server) in servers.enumerated() {
      let memory = server.memory()
      print(
        "  server \(index + 1) memory: \(mebibytes(idle[index])) idle, "
          + "\(mebibytes(peakResident[index])) peak while pushing, \(mebibytes(memory.peak)) "
          + "highest resident (VmHWM)")
    }
    fflush(nil)
    if outputsJSON {
      emitJSON([
        "workload": .string("simulated devices"), "devices": .integer(devices),
        "spaces": .integer(spaces), "saves_per_second": .number(rate),
        "p50_ns": .integer(nanoseconds(p50)), "p99_ns": .integer(nanoseconds(p99)),
      ])
    }
  }

  /// The saves the servers logged.
  private enum PostgresConnectionCount {
    static func loggedSaves(_ database: String) throws -> Int64 {
      try PostgresConnection(database).queryFirst("SELECT count(*) FROM kura_sync_log") {
        $0.int64(at: 0)
      } ?? -1
    }
  }
#endif
