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
let atomicWriteHelperCommands: [HelperCommand] = [
  HelperCommand(name: "store-increment") { arguments in
    guard arguments.count == 2, let times = Int(arguments[1]) else {
      throw HelperUsage("store-increment <store> <times>")
    }
    let container = try ModelContainer(
      for: SharedCounter.self, configurations: storeConfiguration(arguments[0]))
    print("ready")
    fflush(nil)
    _ = readLine()
    for _ in 0..<times {
      let value = try container.write { context in
        var counter =
          try context.model(for: "visits", as: SharedCounter.self)
          ?? SharedCounter(id: "visits", value: 0)
        counter.value += 1
        try context.insert(counter)
        return counter.value
      }
      print(value)
    }
    fflush(nil)
  }
]
