import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore

/// One entry of the signal tests' journaled document.
struct SignalEntry: Codable, Sendable, Identifiable {
  var id: Int
}

/// Commands for the change-signal tests (a writer killed at random moments, a watching reader):
///
/// - `signal-prefs-loop <file>`: adds 1 to the `counter` key forever, printing `ack <value>`
///   once each durable update has returned.
/// - `signal-prefs-watch <file>`: prints `ready <value>`, then `seen <value>` for each value of
///   the `counter` key's change sequence.
/// - `signal-document-loop <file>`: appends entries forever (every eighth save also compacts the
///   journal into the file), printing `ack <count>` once each save has returned.
/// - `signal-trips-insert <store> <prefix> <count>`: saves `count` trips named `<prefix>-<n>`,
///   one save each, then prints `done`.
/// - `signal-document-watch <file>`: prints `ready <count>`, then `seen <count>` for each value of
///   the document's change sequence.
let signalHelperCommands: [HelperCommand] = [
  HelperCommand(name: "signal-prefs-loop") { arguments in
    guard arguments.count == 1 else { throw CocoaError(.featureUnsupported) }
    let preferences = try Preferences(fileURL: URL(fileURLWithPath: arguments[0]))
    let key = Preferences.Key<Int>("counter", default: 0)
    while true {
      let value = try preferences.update(key) { $0 + 1 }
      print("ack \(value)")
      fflush(nil)
    }
  },
  HelperCommand(name: "signal-prefs-watch") { arguments in
    guard arguments.count == 1 else { throw CocoaError(.featureUnsupported) }
    let preferences = try Preferences(fileURL: URL(fileURLWithPath: arguments[0]))
    let key = Preferences.Key<Int>("counter", default: 0)
    let stream = preferences.changes(of: key)
    print("ready \(preferences[key])")
    printEachValue(of: stream) { "seen \($0)" }
  },
  HelperCommand(name: "signal-document-loop") { arguments in
    guard arguments.count == 1 else { throw CocoaError(.featureUnsupported) }
    let store = try DocumentStore<[SignalEntry]>(
      .url(URL(fileURLWithPath: arguments[0])),
      options: DocumentOptions(observesOtherProcesses: false))
    while true {
      let count = store.value.count
      try store.append(SignalEntry(id: count))
      if count % 8 == 7 { try store.compact() }
      print("ack \(count + 1)")
      fflush(nil)
    }
  },
  HelperCommand(name: "signal-document-watch") { arguments in
    guard arguments.count == 1 else { throw CocoaError(.featureUnsupported) }
    let store = try DocumentStore<[SignalEntry]>(.url(URL(fileURLWithPath: arguments[0])))
    let stream = store.changes
    print("ready \(store.value.count)")
    printEachValue(of: stream) { "seen \($0.count)" }
  },
  HelperCommand(name: "signal-trips-insert") { arguments in
    guard arguments.count == 3, let count = Int(arguments[2]) else {
      throw CocoaError(.featureUnsupported)
    }
    let container = try ModelContainer(
      for: RTrip.self, RNote.self, configurations: storeConfiguration(arguments[0]))
    let context = ModelContext(container)
    for number in 0..<count {
      try context.insert(RTrip(name: "\(arguments[1])-\(number)"))
      try context.save()
    }
    print("done")
  },
]

/// Prints a line for each value of `stream` as it comes (flushed, for the test reading it) and
/// returns when the stream ends.
func printEachValue<Element: Sendable>(
  of stream: AsyncStream<Element>, _ line: @escaping @Sendable (Element) -> String
) {
  fflush(nil)
  let done = DispatchSemaphore(value: 0)
  Task {
    for await value in stream {
      print(line(value))
      fflush(nil)
    }
    done.signal()
  }
  done.wait()
}
