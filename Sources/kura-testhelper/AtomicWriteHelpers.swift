import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore

/// The counter several processes increment (the same model as
/// Tests/KuraTests/Store/AtomicWriteTests.swift).
struct SharedCounter: PersistentModel {
  var id: String
  var value: Int
}

/// Commands exercising `ModelContainer.write` across processes:
/// - `store-increment <store> <times>`: opens the store, prints `ready`, waits for a line on
///   standard input, then increments the counter `visits` `times` times, each in its own
///   `write`, printing each value it wrote.
/// - `store-increment-trimming <store> <times> <kept>`: the same with the history trimmed to its
///   last `kept` saves, a plain save of a counter of the process's own before each write (so
///   saves run beside the writes and trim each other's rows), and a `write` that fails with
///   ``StoreError/Code/writeConflict`` run again (printing `conflict` first).
let atomicWriteHelperCommands: [HelperCommand] = [
  HelperCommand(name: "store-increment") { arguments in
    guard arguments.count == 2, let times = Int(arguments[1]) else {
      throw HelperUsage("store-increment <store> <times>")
    }
    let container = try ModelContainer(
      for: SharedCounter.self, configurations: storeConfiguration(arguments[0]))
    try incrementCounter(container, times: times)
  },
  HelperCommand(name: "store-increment-trimming") { arguments in
    guard arguments.count == 3, let times = Int(arguments[1]), let kept = Int(arguments[2])
    else {
      throw HelperUsage("store-increment-trimming <store> <times> <kept>")
    }
    var configuration = storeConfiguration(arguments[0])
    configuration.historyRetention = HistoryRetention(maximumAge: nil, maximumCount: kept)
    let container = try ModelContainer(for: SharedCounter.self, configurations: configuration)
    try incrementCounter(container, times: times, plainSaves: true)
  },
]

/// Prints `ready`, waits for a line on standard input, then increments the counter `visits`
/// `times` times, each in its own `write`, printing each value written; a write that fails
/// with ``StoreError/Code/writeConflict`` is run again after printing `conflict`. With
/// `plainSaves`, each write is preceded by a plain save of a counter of this process's own,
/// which runs in parallel with the other processes' writes (and trims history as they do).
private func incrementCounter(_ container: ModelContainer, times: Int, plainSaves: Bool = false)
  throws
{
  print("ready")
  fflush(nil)
  _ = readLine()
  let context = ModelContext(container)
  let own = "process-\(getpid())"
  var done = 0
  while done < times {
    if plainSaves {
      try context.insert(SharedCounter(id: own, value: done))
      try context.save()
    }
    do {
      let value = try container.write { context in
        var counter =
          try context.model(for: "visits", as: SharedCounter.self)
          ?? SharedCounter(id: "visits", value: 0)
        counter.value += 1
        try context.insert(counter)
        return counter.value
      }
      print(value)
      done += 1
    } catch let error as StoreError where error.code == .writeConflict {
      print("conflict")
    }
  }
  fflush(nil)
}
