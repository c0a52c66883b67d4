import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import WarikanKit

/// A small document for the sharing tests: a counter changed by whole-value updates.
struct CounterDocument: Codable, Sendable {
  var count = 0
}

/// Commands for the document crash and sharing tests:
///
/// - `document-append-loop <file> <compaction-threshold>`: appends entries forever, printing
///   each entry's id once its append has returned (acknowledged); every fourth append is
///   followed by a compaction (a whole-file replacement).
/// - `document-append <file> <count> <memo>`: appends `count` entries, then prints `done`.
/// - `document-increment <file> <count>`: adds 1 to a counter document `count` times with
///   whole-file updates, then prints `done`.
/// - `document-remove-first <file>`: removes the first entry, then prints its id.
/// - `document-increment-loop <file>`: adds 1 to a counter document forever with whole-file
///   updates, printing each new count once its update has returned (acknowledged).
/// - `document-durable-changes <file> <powerLoss|processCrash> <count> <marker-file>`: appends
///   `count` notes, updates the last, then compacts, appending a line naming each change
///   (`append`, `update`, `compact`) to the marker file after it returned; prints `done`.
let documentHelperCommands: [HelperCommand] = [
  HelperCommand(name: "document-append-loop") { arguments in
    guard arguments.count == 2, let threshold = Int(arguments[1]) else {
      throw CocoaError(.featureUnsupported)
    }
    let store = try DocumentStore<[CashData]>(
      .url(URL(fileURLWithPath: arguments[0])),
      options: DocumentOptions(observesOtherProcesses: false, compactionThreshold: threshold))
    var number = 0
    while true {
      number += 1
      let entry = CashData(memo: "loop \(number)", cash: number, time: "12:00")
      try store.append(entry)
      print(entry.id.uuidString)
      fflush(nil)
      // Every fourth append also rewrites the whole file, so kills land in replacements too.
      if number % 4 == 0 { try store.compact() }
    }
  },
  HelperCommand(name: "document-append") { arguments in
    guard arguments.count == 3, let count = Int(arguments[1]) else {
      throw CocoaError(.featureUnsupported)
    }
    let store = try DocumentStore<[CashData]>(
      .url(URL(fileURLWithPath: arguments[0])),
      options: DocumentOptions(observesOtherProcesses: false))
    for number in 0..<count {
      try store.append(CashData(memo: "\(arguments[2]) \(number)", cash: number, time: "9:00"))
    }
    try store.close()
    print("done")
  },
  HelperCommand(name: "document-increment") { arguments in
    guard arguments.count == 2, let count = Int(arguments[1]) else {
      throw CocoaError(.featureUnsupported)
    }
    let store = try DocumentStore(
      .url(URL(fileURLWithPath: arguments[0])), defaultValue: CounterDocument(),
      options: DocumentOptions(observesOtherProcesses: false))
    for _ in 0..<count { try store.update { $0.count += 1 } }
    print("done")
  },
  HelperCommand(name: "document-increment-loop") { arguments in
    guard arguments.count == 1 else { throw CocoaError(.featureUnsupported) }
    let store = try DocumentStore(
      .url(URL(fileURLWithPath: arguments[0])), defaultValue: CounterDocument(),
      options: DocumentOptions(observesOtherProcesses: false))
    while true {
      let count = try store.update { counter -> Int in
        counter.count += 1
        return counter.count
      }
      print(count)
      fflush(nil)
    }
  },
  HelperCommand(name: "document-remove-first") { arguments in
    guard arguments.count == 1 else { throw CocoaError(.featureUnsupported) }
    let store = try DocumentStore<[CashData]>(
      .url(URL(fileURLWithPath: arguments[0])),
      options: DocumentOptions(observesOtherProcesses: false))
    guard let first = store.value.first else { throw CocoaError(.fileNoSuchFile) }
    try store.remove(id: first.id)
    print(first.id.uuidString)
  },
  HelperCommand(name: "document-durable-changes") { arguments in
    guard arguments.count == 4, let count = Int(arguments[2]) else {
      throw CocoaError(.featureUnsupported)
    }
    let durability: DocumentOptions.Durability =
      arguments[1] == "powerLoss" ? .powerLoss : .processCrash
    let store = try DocumentStore<[CashData]>(
      .url(URL(fileURLWithPath: arguments[0])),
      options: DocumentOptions(durability: durability, observesOtherProcesses: false))
    let marker = arguments[3]
    func mark(_ change: String) throws {
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: marker))
      try handle.seekToEnd()
      try handle.write(contentsOf: Data("\(change)\n".utf8))
      try handle.close()
    }
    var last: CashData?
    for number in 0..<count {
      let entry = CashData(memo: "durable \(number)", cash: number, time: "9:00")
      try store.append(entry)
      last = entry
      try mark("append")
    }
    if var last {
      last.memo = "updated"
      try store.update(last)
      try mark("update")
    }
    try store.compact()
    try mark("compact")
    try store.close()
    print("done")
  },
]
