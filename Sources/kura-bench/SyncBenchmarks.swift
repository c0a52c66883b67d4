import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import KuraSyncServer

// `kura-bench sync`: what sync costs and how fast it moves changes. The local part (a save with
// sync on against the same save with sync off) needs no server; the rest runs a real sync
// server (SyncServerBenchmarks.swift) on a throwaway PostgreSQL cluster, fsync on.

/// The model the sync suite saves.
struct SyncBenchTrip: PersistentModel, Equatable {
  var id: Int
  var name: String
  var budget: Int
  var score: Double
  static var schemaName: String { "Trip" }
}

/// `count` trips numbered from `start`.
func makeSyncTrips(_ count: Int, from start: Int = 0) -> [SyncBenchTrip] {
  (start..<(start + count)).map {
    SyncBenchTrip(id: $0, name: "trip-\($0)", budget: $0 % 1_000, score: Double($0) * 0.25)
  }
}

/// A store file of the sync suite, with sync settings when `server` is given (saves then also
/// write the outbox; no engine runs unless the caller makes one).
func syncBenchContainer(_ file: URL, server: URL?, token: String = "unused") throws
  -> ModelContainer
{
  var configuration = ModelConfiguration.url(file)
  if let server {
    var settings = SyncSettings(server: server, space: "bench", token: token)
    settings.pollInterval = .seconds(3600)
    configuration.sync = settings
  }
  return try ModelContainer(for: SyncBenchTrip.self, configurations: configuration)
}

func runSyncBenchmarks() throws {
  #if canImport(CLibPQ) && canImport(Glibc)
    if let devices = syncBenchmarkDevices {
      print(
        "Sync: \(devices) simulated devices against \(syncBenchmarkDeviceServers) `kura sync serve` "
          + "on one PostgreSQL, loopback, \(syncBenchmarkDeviceSeconds) s")
      try runSyncDevicesBenchmark(
        devices: devices, servers: syncBenchmarkDeviceServers, for: syncBenchmarkDeviceSeconds)
      return
    }
  #endif
  print(
    "Sync: a local save with sync on against sync off, then (where PostgreSQL is) a real "
      + "sync server on loopback")
  try runLocalSyncSaveBenchmark()
  #if canImport(CLibPQ)
    try runSyncServerBenchmarks()
  #endif
}

/// 1,000 single-model saves, each its own transaction, on a store with sync settings (each save
/// also stamps the changed properties and writes an outbox row) against a store without.
func runLocalSyncSaveBenchmark() throws {
  let directory = benchmarkDirectory("sync-saves")
  let synced = try syncBenchContainer(
    directory.appendingPathComponent("on.store"),
    server: URL(string: "http://127.0.0.1:9"))
  let plain = try syncBenchContainer(directory.appendingPathComponent("off.store"), server: nil)
  let syncedContext = ModelContext(synced)
  let plainContext = ModelContext(plain)
  // Each side inserts new ids each run (its own count of runs).
  var runs = (synced: 0, plain: 0)
  func saves(_ context: ModelContext, run: Int) throws {
    for trip in makeSyncTrips(1_000, from: run * 1_000) {
      try context.insert(trip)
      try context.save()
    }
  }
  let times = try medians(
    runs: 7,
    kura: {
      runs.synced += 1
      try saves(syncedContext, run: runs.synced)
    },
    baseline: {
      runs.plain += 1
      try saves(plainContext, run: runs.plain)
    })
  report(
    "1,000 single saves, sync on", kura: times.kura, baseline: times.baseline,
    baselineName: "sync off", target: 1.3, kuraName: "sync on")
}

/// `kura-bench sync --profile <workload> kura|c`: the local save's workloads with sync on
/// (`kura`) against the same saves with sync off (`c`: Kura without sync is the baseline), each
/// store warmed up by a few saves outside the region (its statements prepared, its tables made).
/// `saves` inserts a new model per save; `edits` changes one property of a stored model per
/// save (sync compares the row with its registers and stamps the one that changed).
func profileSync(_ workload: String, kura: Bool) throws -> Int {
  if workload == "pull" { return try profileSyncPull(kura: kura) }
  let directory = benchmarkDirectory("sync-profile")
  let container = try syncBenchContainer(
    directory.appendingPathComponent("store"),
    server: kura ? URL(string: "http://127.0.0.1:9") : nil)
  let context = ModelContext(container)
  let count = 1_000
  var trips = makeSyncTrips(count + 10)
  for trip in trips[0..<10] {
    try context.insert(trip)
    try context.save()
  }
  if workload == "edits" {
    try context.transaction { for trip in trips[10...] { try context.insert(trip) } }
    for index in 0..<10 {
      trips[index].budget += 1
      try context.insert(trips[index])
      try context.save()
    }
  }
  try profiledRegion {
    for index in 10..<(count + 10) {
      if workload == "edits" { trips[index].budget += 1 }
      try context.insert(trips[index])
      try context.save()
    }
  }
  return count
}

/// `kura-bench sync --profile pull kura|c`: an initial sync's last step, 3,000 rows pulled from
/// another replica (10 to a save, staged as the engine stages a server's pages, outside the
/// region) applied in one transaction (`kura`), against the same rows inserted with sync off in
/// one transaction (`c`). One operation is one row. The rows fill one page (9,000 changes, under
/// a page's 10,000): several pages are decoded on threads at once, and how many of them the
/// calling thread takes varies from run to run, which would move the count checked.
func profileSyncPull(kura: Bool) throws -> Int {
  let directory = benchmarkDirectory("sync-profile-pull")
  let count = 3_000
  let trips = makeSyncTrips(count)
  let container = try syncBenchContainer(
    directory.appendingPathComponent("store"),
    server: kura ? URL(string: "http://127.0.0.1:9") : nil)
  if kura {
    let rows = trips.map { trip -> (id: String, values: [(String, DatabaseValue)]) in
      (
        String(trip.id),
        [
          ("name", .text(trip.name)), ("budget", .integer(Int64(trip.budget))),
          ("score", .real(trip.score)),
        ]
      )
    }
    try SyncPullBenchmark.stage(model: "Trip", rows: rows, rowsPerSave: 10, in: container)
    try profiledRegion { try SyncPullBenchmark.applyStaged(in: container) }
    let applied = try ModelContext(container).fetchCount(FetchDescriptor<SyncBenchTrip>())
    guard applied == count else {
      throw SyncPullCountError(description: "the pull applied \(applied) of \(count) rows")
    }
  } else {
    let context = ModelContext(container)
    try profiledRegion {
      try context.transaction { for trip in trips { try context.insert(trip) } }
    }
  }
  return count
}

/// The pull profile applied another number of rows than it staged.
struct SyncPullCountError: Error, CustomStringConvertible {
  var description: String
}
