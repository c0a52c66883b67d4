import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import KuraSyncServer

/// `kura-bench watchers`: the CPU an idle process spends while it observes 1,000 preference
/// suites and 1,000 documents (one shared file watcher; it should sleep without a timeout), and
/// how quickly a change to the last one reaches its observer.
func runWatcherBenchmarks() throws {
  let folder = benchmarkDirectory("watchers")
  defer { try? FileManager.default.removeItem(at: folder) }
  let key = Preferences.Key<Int>("count", default: 0)
  var suites: [Preferences] = []
  var observations: [AsyncStream<Set<String>>] = []
  for number in 0..<1000 {
    let suite = try Preferences(fileURL: folder.appendingPathComponent("suite-\(number).sqlite"))
    observations.append(suite.changedKeys)
    suites.append(suite)
  }
  var documents: [DocumentStore<[String: Int]>] = []
  for number in 0..<1000 {
    documents.append(
      try DocumentStore(
        .url(folder.appendingPathComponent("document-\(number).json")), defaultValue: [:]))
  }
  // Rechecks after the files' creation end 5 s after the last event; measure after them.
  Thread.sleep(forTimeInterval: 6)
  let idle = 3.0
  let before = processorTime()
  Thread.sleep(forTimeInterval: idle)
  let spent = processorTime() - before
  print(
    "idle with 1,000 observed suites + 1,000 observed documents".padding(
      toLength: 60, withPad: " ", startingAt: 0)
      + String(format: "CPU %.2f ms over %.0f s (%.3f%%)", spent * 1000, idle, spent / idle * 100))
  let changed = DispatchSemaphore(value: 0)
  let changes = suites[999].changedKeys
  let last = Task { for await _ in changes { changed.signal() } }
  let other = try Preferences(fileURL: folder.appendingPathComponent("suite-999.sqlite"))
  let start = ContinuousClock.now
  try other.set(1, for: key)
  _ = changed.wait(timeout: .now() + 10)
  print(
    "a change to the 1,000th suite reaches its observer".padding(
      toLength: 60, withPad: " ", startingAt: 0) + milliseconds(ContinuousClock.now - start))
  last.cancel()
  withExtendedLifetime((observations, documents)) {}
}

/// User plus system CPU time of this process so far, in seconds.
private func processorTime() -> Double {
  var usage = rusage()
  #if os(Linux)
    getrusage(RUSAGE_SELF.rawValue, &usage)
  #else
    getrusage(RUSAGE_SELF, &usage)
  #endif
  return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
    + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
