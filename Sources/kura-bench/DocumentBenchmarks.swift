import Foundation
import Kura
import Synchronization
import WarikanKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `kura-bench documents`: durable appends (Kura's journal against the seed's load, append and
/// rewrite of the whole file, on the same entries), loading a 10,000-entry document, the delay
/// before another process sees a change, and peak memory.
func runDocumentBenchmarks() throws {
  let count = 10_000
  let entries = (0..<count).map { index in
    CashData(memo: "高速代金 \(index)", cash: 100 + index, time: "\(index % 24):\(index % 50 + 10)")
  }
  let clock = ContinuousClock()

  // 1. 10,000 single appends, each saved when it returns (survives kill -9); median of 3 runs,
  // each on a fresh file (the last one is kept for the load workloads).
  let kuraFolder = benchmarkDirectory("documents-append")
  defer { try? FileManager.default.removeItem(at: kuraFolder) }
  let kuraURL = kuraFolder.appendingPathComponent("cashData.json")
  let kuraTime = try median(runs: 3) {
    for name in ["cashData.json", ".cashData.json.journal"] {
      try? FileManager.default.removeItem(at: kuraFolder.appendingPathComponent(name))
    }
    let store = try DocumentStore<[CashData]>(
      .url(kuraURL), options: DocumentOptions(observesOtherProcesses: false))
    for entry in entries { try store.append(entry) }
    try store.close()
  }
  print(
    "10,000 appends (durable against kill -9)".padding(toLength: 44, withPad: " ", startingAt: 0)
      + " kura \(milliseconds(kuraTime)) in total, "
      + "\(String(format: "%.1f", seconds(kuraTime) / Double(count) * 1e6)) µs each"
      + "  (target < 1 s: \(seconds(kuraTime) < 1 ? "met" : "MISSED"))")

  // The seed's approach on the same entries: load the whole file, append, rewrite the whole file.
  // It is quadratic, so it runs on the first `seedCount` entries; Kura runs the same prefix too.
  let seedCount = 1_000
  let seedFolder = benchmarkDirectory("documents-seed")
  defer { try? FileManager.default.removeItem(at: seedFolder) }
  let seedURL = seedFolder.appendingPathComponent("cashData.json")
  let seedTime = try clock.measure {
    for entry in entries.prefix(seedCount) {
      var all: [CashData] = []
      if let data = try? Data(contentsOf: seedURL) {
        all = try JSONDecoder().decode([CashData].self, from: data)
      }
      all.append(entry)
      try JSONEncoder().encode(all).write(to: seedURL)
    }
  }
  let prefixFolder = benchmarkDirectory("documents-prefix")
  defer { try? FileManager.default.removeItem(at: prefixFolder) }
  let prefixStore = try DocumentStore<[CashData]>(
    .url(prefixFolder.appendingPathComponent("cashData.json")),
    options: DocumentOptions(observesOtherProcesses: false))
  let prefixTime = try clock.measure {
    for entry in entries.prefix(seedCount) { try prefixStore.append(entry) }
  }
  try prefixStore.close()
  print(
    "1,000 appends: journal vs seed's rewrite".padding(toLength: 44, withPad: " ", startingAt: 0)
      + " kura \(milliseconds(prefixTime))  seed \(milliseconds(seedTime))  ratio"
      + " \(String(format: "%.4f", seconds(prefixTime) / seconds(seedTime)))×"
      + " (kura \(String(format: "%.0f", seconds(seedTime) / seconds(prefixTime)))× faster)")

  // 2. Appends that also survive a power cut (fdatasync per append); the disk's flush latency
  // dominates, so this runs fewer appends and reports the time per append.
  let syncCount = 200
  let syncFolder = benchmarkDirectory("documents-sync")
  defer { try? FileManager.default.removeItem(at: syncFolder) }
  let syncStore = try DocumentStore<[CashData]>(
    .url(syncFolder.appendingPathComponent("cashData.json")),
    options: DocumentOptions(durability: .powerLoss, observesOtherProcesses: false))
  try syncStore.append(entries[0])
  let syncTime = try clock.measure {
    for entry in entries[1...syncCount] { try syncStore.append(entry) }
  }
  try syncStore.close()
  let perSync = seconds(syncTime) / Double(syncCount)
  print(
    "\(syncCount) appends (durable against power loss)".padding(
      toLength: 44, withPad: " ", startingAt: 0)
      + " kura \(milliseconds(syncTime)) in total, \(String(format: "%.3f", perSync * 1000)) ms each"
      + " (10,000 would take \(String(format: "%.1f", perSync * Double(count))) s: one fdatasync each)"
  )

  // 3. Loading a 10,000-entry document: the compacted file, and the worst case of a file plus a
  // 10,000-record journal; the baseline is the seed's plain JSONDecoder load.
  let compacted = try Data(contentsOf: kuraURL)
  let loadTime = try median {
    let loaded = try DocumentStore<[CashData]>(
      .url(kuraURL), options: DocumentOptions(observesOtherProcesses: false))
    precondition(loaded.value.count == count)
  }
  let decodeTime = try median {
    let decoded = try JSONDecoder().decode([CashData].self, from: Data(contentsOf: kuraURL))
    precondition(decoded.count == count)
  }
  report(
    "load 10,000 entries (\(compacted.count / 1024) KiB)", kura: loadTime, baseline: decodeTime,
    baselineName: "JSONDecoder", target: nil)
  let journalFolder = benchmarkDirectory("documents-journal")
  defer { try? FileManager.default.removeItem(at: journalFolder) }
  let journalURL = journalFolder.appendingPathComponent("cashData.json")
  let journaled = try DocumentStore<[CashData]>(
    .url(journalURL),
    options: DocumentOptions(observesOtherProcesses: false, compactionThreshold: Int.max))
  for entry in entries { try journaled.append(entry) }
  let replayTime = try median {
    let loaded = try DocumentStore<[CashData]>(
      .url(journalURL),
      options: DocumentOptions(observesOtherProcesses: false, compactionThreshold: Int.max))
    precondition(loaded.value.count == count)
  }
  report(
    "load 10,000 entries from the journal", kura: replayTime, baseline: decodeTime,
    baselineName: "JSONDecoder", target: nil)

  // 4. Another process's change: the time from one store's append to another store (its own
  // file descriptors, lock and watch, as a second process has) having loaded it.
  let watchFolder = benchmarkDirectory("documents-watch")
  defer { try? FileManager.default.removeItem(at: watchFolder) }
  let watchURL = watchFolder.appendingPathComponent("cashData.json")
  let writer = try DocumentStore<[CashData]>(
    .url(watchURL), options: DocumentOptions(observesOtherProcesses: false))
  let reader = try DocumentStore<[CashData]>(.url(watchURL))
  var delays: [Duration] = []
  for entry in entries.prefix(20) {
    let seen = DispatchSemaphore(value: 0)
    let stream = reader.changes
    let task = Task {
      for await value in stream where value.last?.id == entry.id {
        seen.signal()
        return
      }
    }
    let start = clock.now
    try writer.append(entry)
    if seen.wait(timeout: .now() + 2) == .timedOut {
      print("kura-bench: another store did not see a change within 2 s")
    }
    delays.append(clock.now - start)
    task.cancel()
  }
  delays.sort()
  print(
    "change seen by another store (median of 20)".padding(toLength: 44, withPad: " ", startingAt: 0)
      + " kura \(milliseconds(delays[delays.count / 2])), slowest \(milliseconds(delays[delays.count - 1]))"
      + "  (target < 100 ms: \(delays[delays.count - 1] < .milliseconds(100) ? "met" : "MISSED"))")
  print(
    "peak memory after the document workloads".padding(toLength: 44, withPad: " ", startingAt: 0)
      + " \(peakResidentBytes() / 1_048_576) MiB")
}
