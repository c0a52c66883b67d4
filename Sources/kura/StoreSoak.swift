#if canImport(KuraSyncServer) && canImport(Glibc)
  import Foundation
  import Glibc
  import Kura
  import KuraPostgreSQL
  import KuraPostgresCluster

  /// `kura store soak` (StoreSoakCommand.swift): writer and reader processes on a throwaway
  /// PostgreSQL server crashed again and again, then the checks.
  struct StoreSoak {
    var writers: Int
    /// The writers' history retention count (`--history-count`); no readers run with one.
    var historyCount: Int?

    /// What the writers reported.
    struct Reports {
      var acknowledged: [String: Int64] = [:]
      var failed: Set<String> = []
      var unknown: Set<String> = []
      var writeBlocks = 0
    }

    /// What a reader delivered, in order.
    struct Delivery {
      var kind: String
      var start: Int64 = 0
      var sets: [(token: Int64, ids: [String])] = []
      var error: String?
    }

    func run(crashes: Int, seconds: Int, seed: UInt64) throws {
      let clock = ContinuousClock()
      let start = clock.now
      var random = SoakRandom(state: seed)
      let cluster = try PostgresCluster.start(fsync: false)
      let folder = URL(fileURLWithPath: NSTemporaryDirectory())
        .appendingPathComponent("kura-store-soak-\(getpid())")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let url = try cluster.freshDatabaseURL("store soak")
      guard let location = URL(string: url) else {
        throw SoakError("The soak's database URL `\(url)` is not valid.")
      }
      // The store exists before the processes open it.
      let container = try ModelContainer(
        for: SoakMemo.self, SoakCounter.self, configurations: .postgres(location))
      let kura = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()

      let readerKinds = historyCount == nil ? ["feed", "feed", "history"] : []
      let readers = try readerKinds.enumerated().map { index, kind in
        try SoakProcess(
          kura, ["store", "soak-reader", url, kind],
          log: folder.appendingPathComponent("reader-\(index).log"))
      }
      var deliveries = readerKinds.map { Delivery(kind: $0) }
      for (index, reader) in readers.enumerated() {
        guard let line = reader.nextLine(where: { $0.hasPrefix("ready ") }),
          let token = Int64(line.dropFirst("ready ".count))
        else { throw SoakError("Reader \(index) did not start (see \(folder.path)).") }
        deliveries[index].start = token
      }
      let writing = try (0..<writers).map { writer in
        try SoakProcess(
          kura,
          ["store", "soak-writer", url, "\(writer)"]
            + (historyCount.map { ["--history-count", "\($0)"] } ?? []),
          log: folder.appendingPathComponent("writer-\(writer).log"))
      }
      for (index, writer) in writing.enumerated() {
        guard writer.nextLine(where: { $0 == "ready" }) != nil else {
          throw SoakError("Writer \(index) did not start (see \(folder.path)).")
        }
      }

      // The crashes, at seeded moments: 0.2–1.2 s of saves, the server down 0–0.3 s.
      var stops = 0
      var kills = 0
      while stops + kills < crashes, clock.now - start < .seconds(seconds) {
        usleep(UInt32(200_000 + random.next() % 1_000_000))
        if random.next().isMultiple(of: 2) {
          try cluster.crash()
          stops += 1
        } else {
          try cluster.killPostmaster()
          kills += 1
        }
        usleep(UInt32(random.next() % 300_000))
        try cluster.restart()
        if (stops + kills).isMultiple(of: 10) {
          FileHandle.standardError.write(
            Data("store soak: \(stops + kills) crashes\n".utf8))
        }
      }
      // Saves after the last restart too; without crashes, for the whole time.
      usleep(crashes == 0 ? UInt32(min(seconds, 3_600)) * 1_000_000 : 1_000_000)
      let crashTime = clock.now - start

      var reports = Reports()
      for writer in writing { writer.send("stop") }
      for (index, writer) in writing.enumerated() {
        var done = false
        while let line = writer.nextLine(timeout: 120, where: { _ in true }) {
          let words = line.split(separator: " ").map(String.init)
          switch (words.first, words.count) {
          case ("ok", 3):
            reports.acknowledged[words[1]] = Int64(words[2]) ?? -1
          case ("failed", 3):
            reports.failed.insert(words[1])
          case ("unknown", 2):
            reports.unknown.insert(words[1])
          case ("done", 2):
            done = true
          default:
            throw SoakError("Writer \(index) printed `\(line)` (see \(folder.path)).")
          }
          if done { break }
        }
        guard done else {
          throw SoakError("Writer \(index) did not stop within 120 s (see \(folder.path)).")
        }
      }

      // What is stored.
      let context = ModelContext(container)
      let memos = try context.fetch(FetchDescriptor<SoakMemo>())
      let stored = Set(memos.map(\.id))
      let counters = try context.fetch(FetchDescriptor<SoakCounter>())

      // Each reader, until it delivered every stored memo or passed the last acknowledged
      // token (or 120 s passed).
      let lastToken = reports.acknowledged.values.max() ?? 0
      for (index, reader) in readers.enumerated() {
        var seen = Set<String>()
        let deadline = clock.now + .seconds(120)
        while !seen.isSuperset(of: stored), deliveries[index].error == nil, clock.now < deadline,
          (deliveries[index].sets.last?.token ?? 0) < lastToken
        {
          guard let line = reader.nextLine(timeout: 5, where: { _ in true }) else { continue }
          let words = line.split(separator: " ").map(String.init)
          if words.first == "set", words.count == 3, let token = Int64(words[1]) {
            let ids = words[2] == "-" ? [] : words[2].split(separator: ",").map(String.init)
            deliveries[index].sets.append((token, ids))
            seen.formUnion(ids)
          } else {
            deliveries[index].error = line
          }
        }
        reader.kill()
      }

      // The checks.
      let acknowledged = Set(reports.acknowledged.keys)
      let lost = acknowledged.subtracting(stored)
      let failedButCommitted = reports.failed.intersection(stored)
      let unreported = stored.subtracting(acknowledged).subtracting(reports.failed)
        .subtracting(reports.unknown)
      let acknowledgedTokens = Array(reports.acknowledged.values)
      var duplicatedTokens = acknowledgedTokens.count - Set(acknowledgedTokens).count
      var skipped = 0
      var twice = 0
      var outOfOrder = 0
      var wrongTokens = 0
      var readerErrors: [String] = []
      for delivery in deliveries {
        var delivered: [String: Int64] = [:]
        var previous = delivery.start
        for set in delivery.sets {
          if set.token <= previous { outOfOrder += 1 }
          previous = set.token
          // Every save of the soak inserts one memo: two in one change set share a token.
          if set.ids.count > 1 { duplicatedTokens += set.ids.count - 1 }
          for id in set.ids {
            if delivered[id] != nil { twice += 1 }
            delivered[id] = set.token
            if let token = reports.acknowledged[id], token != set.token { wrongTokens += 1 }
          }
        }
        let missing = stored.subtracting(delivered.keys).sorted()
        skipped += missing.count
        for id in missing.prefix(5) {
          let token = reports.acknowledged[id]
          let before = delivery.sets.last { $0.token < (token ?? .max) }?.token
          let after = delivery.sets.first { $0.token > (token ?? .max) }?.token
          readerErrors.append(
            "\(delivery.kind) skipped \(id) (token \(token.map(String.init) ?? "none"), "
              + "delivered \(before.map(String.init) ?? "none") before it and "
              + "\(after.map(String.init) ?? "none") after it)")
        }
        if let error = delivery.error { readerErrors.append("\(delivery.kind): \(error)") }
      }
      var counterErrors: [String] = []
      for writer in 0..<writers {
        let committed = memos.filter { $0.writer == writer && $0.kind == "write" }.count
        let value = counters.first { $0.id == "w\(writer)" }?.value ?? 0
        if value != committed {
          counterErrors.append("writer \(writer)'s counter is \(value), \(committed) committed")
        }
      }
      let unknownCommitted = reports.unknown.intersection(stored).count

      let seconds = Double(crashTime.components.seconds)
      print(
        "crashes: \(stops + kills) (\(stops) `pg_ctl stop -m immediate`, \(kills) SIGKILL of "
          + "the postmaster) in \(Int(seconds)) s, seed \(seed)")
      print(
        "saves: \(writers) writers, \(acknowledged.count) acknowledged "
          + "(\(reports.acknowledged.keys.filter { isWriteBlock($0) }.count) in write blocks), "
          + "\(reports.failed.count) reported failed, \(reports.unknown.count) outcome unknown "
          + "(\(unknownCommitted) of them committed)")
      print(
        "table: \(stored.count) saves; \(lost.count) lost, \(failedButCommitted.count) reported "
          + "failed but committed, \(unreported.count) committed but never reported")
      if let historyCount {
        print(
          "feeds: not read (history kept: \(historyCount) saves); \(duplicatedTokens) "
            + "duplicated tokens among the acknowledged saves")
      } else {
        print(
          "feeds: "
            + deliveries.map { "\($0.kind) \($0.sets.count)" }.joined(separator: ", ")
            + " change sets; \(duplicatedTokens) duplicated tokens, \(skipped) skipped, "
            + "\(twice) delivered twice, \(outOfOrder) out of order, \(wrongTokens) with "
            + "another token than their save's")
      }
      print(
        "counters: \(writers - counterErrors.count) of \(writers) equal their committed write "
          + "blocks")
      let violations =
        lost.count + failedButCommitted.count + unreported.count + duplicatedTokens + skipped
        + twice + outOfOrder + wrongTokens + counterErrors.count
        + deliveries.filter { $0.error != nil }.count
      fflush(nil)
      guard violations == 0 else {
        throw SoakError(
          "The soak found \(violations) violations (seed \(seed); logs in \(folder.path)): "
            + (counterErrors + readerErrors + lost.sorted().prefix(5).map { "lost \($0)" }
            + failedButCommitted.sorted().prefix(5).map { "failed but committed \($0)" })
            .joined(separator: "; "))
      }
      try? FileManager.default.removeItem(at: folder)
      print("soak: nothing lost, doubled or skipped")
    }

    /// Whether a writer's save `id` (`w<writer>-<number>`) was a `write` block (every third).
    private func isWriteBlock(_ id: String) -> Bool {
      guard let number = id.split(separator: "-").last.flatMap({ Int($0) }) else { return false }
      return (number + 1).isMultiple(of: 3)
    }
  }
#endif
