#if canImport(CLibPQ)
  import Foundation
  import Kura
  import KuraPostgreSQL
  import KuraSync
  import KuraSyncCore
  import KuraSyncServer

  /// `kura-bench postgres --profile WORKLOAD SIDE`: the client-side work of single saves or
  /// lookups by id on PostgreSQL (callgrind counts this process only; the server runs in
  /// processes of its own). Kura's saves write the change feed's row; libpq's do what Kura's
  /// save does (BEGIN with the writer lock, the upsert, the feed's row with its NOTIFY,
  /// COMMIT). One operation of each runs before the region (statements prepared). The server
  /// is `KURA_BENCH_POSTGRES_URL`'s, else a throwaway cluster. Returns the number of
  /// operations the region ran.
  func profilePostgres(_ workload: String, kura: Bool) throws -> Int {
    let server = try PostgresBenchmarkServer(
      url: ProcessInfo.processInfo.environment["KURA_BENCH_POSTGRES_URL"])
    defer { server.dropAll() }
    let rows = 2_000
    let trips = makeTrips(rows)
    let saves = makeTrips(201, from: 10_000_000)
    let ids = (0..<500).map { ($0 * 97) % rows }
    let bulk = makeTrips(10_100, from: 20_000_000)
    var found = 0
    var operations = 0
    let database = try server.freshDatabase(kura ? "kura" : "libpq")
    if kura {
      var configuration = try ModelConfiguration.postgres(
        connectionString: database.connectionString)
      if workload == "bulk" { configuration.historyRetention = .off }
      let context = ModelContext(
        try ModelContainer(for: BenchTrip.self, configurations: configuration))
      if workload == "bulk" {
        // One bulk save before the region (its statements prepared, its staging SQL made).
        try context.transaction { for trip in bulk.prefix(100) { try context.insert(trip) } }
        try profiledRegion {
          try context.transaction { for trip in bulk.dropFirst(100) { try context.insert(trip) } }
        }
        return bulk.count - 100
      }
      if workload == "fetch" {
        try context.transaction { for trip in bulk { try context.insert(trip) } }
        var fetched = 0
        _ = try context.fetch(FetchDescriptor<BenchTrip>())
        try profiledRegion { fetched = try context.fetch(FetchDescriptor<BenchTrip>()).count }
        return fetched
      }
      if workload == "lookups" {
        try context.transaction { for trip in trips { try context.insert(trip) } }
        // The reader connection, its prepared statement and the loop's one-time lookup of the
        // type metadata it uses: outside the region.
        _ = try lookUpAll(ids[0..<1], in: context)
      } else {
        try context.insert(saves[0])
        try context.save()
      }
      try profiledRegion {
        if workload == "lookups" {
          found = try lookUpAll(ids[...], in: context)
          operations = ids.count
        } else {
          for trip in saves.dropFirst() {
            try context.insert(trip)
            try context.save()
          }
          operations = saves.count - 1
        }
      }
    } else {
      let raw = try RawPostgres(
        database.connectionString, label: "database `\(database.name)`", table: .create)
      func save(_ trip: BenchTrip) throws {
        try raw.execute(RawPostgres.beginLockedSQL)
        try raw.upsert(trip)
        try raw.appendHistory(for: trip)
        try raw.execute(RawPostgres.commitAndNotifySQL)
      }
      if workload == "bulk" {
        try raw.execute("BEGIN")
        try raw.copy(Array(bulk.prefix(100)))
        try raw.execute("COMMIT")
        let rest = Array(bulk.dropFirst(100))
        try profiledRegion {
          try raw.execute("BEGIN")
          try raw.copy(rest)
          try raw.execute("COMMIT")
        }
        return bulk.count - 100
      }
      if workload == "fetch" {
        try raw.execute("BEGIN")
        try raw.copy(bulk)
        try raw.execute("COMMIT")
        var fetched = 0
        _ = try raw.fetchAll()
        try profiledRegion { fetched = try raw.fetchAll().count }
        return fetched
      }
      if workload == "lookups" {
        try raw.execute("BEGIN")
        for trip in trips { try raw.upsert(trip) }
        try raw.execute("COMMIT")
        _ = try raw.trip(id: ids[0])
      } else {
        try save(saves[0])
      }
      try profiledRegion {
        if workload == "lookups" {
          for id in ids where try raw.trip(id: id)?.id == id { found += 1 }
          operations = ids.count
        } else {
          for trip in saves.dropFirst() { try save(trip) }
          operations = saves.count - 1
        }
      }
    }
    keep(found)
    return operations
  }
#endif
