import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import Observation

// Child-process commands for the preferences tests. Every command takes the suite's file first.

/// Enums and a struct covering the key kinds (kept identical to the tests' fixture).
enum HelperSort: String, Codable, Sendable { case title, date, completion }
enum HelperLevel: Int, Sendable { case low = 1, high = 2 }
struct HelperPoint: Codable, Sendable, Equatable {
  var x: Double
  var label: String
  var when: Date
}

/// The fixture: one key per supported value type and its expected value.
struct HelperFixture {
  let preferences: Preferences
  var mismatches: [String] = []

  mutating func check<Value: Equatable>(_ key: Preferences.Key<Value>, _ expected: Value) {
    let value = preferences[key]
    if value != expected { mismatches.append("\(key.name): \(value) != \(expected)") }
  }

  static let date = Date(timeIntervalSince1970: 1_700_000_000.25)
  static let uuid = UUID(uuidString: "3F4D8393-8D86-4C81-AFB9-1854A5E38BDC") ?? UUID()
  static let point = HelperPoint(x: 1.5, label: "港", when: date)
  static let dictionary: [String: PreferenceValue] = [
    "FirstView": "FirstView", "count": 3, "ratio": 0.5, "on": true, "when": .date(date),
    "bytes": .data(Data([0, 1, 2])), "list": [1, "two", ["nested": 3.0]],
  ]

  func write() throws {
    try preferences.batch { batch in
      batch[Preferences.Key<Bool>("bool", default: false)] = true
      batch[Preferences.Key<Int>("int", default: 0)] = -42
      batch[Preferences.Key<Double>("double", default: 0)] = 2.5
      batch[Preferences.Key<String>("string", default: "")] = "高速代金"
      batch[Preferences.Key<URL>("url", default: URL(fileURLWithPath: "/"))] =
        URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/")
      batch[Preferences.Key<Data>("data", default: Data())] = Data([0, 1, 255])
      batch[Preferences.Key<Date>("date", default: .distantPast)] = Self.date
      batch[Preferences.Key<UUID>("uuid", default: UUID())] = Self.uuid
      batch[Preferences.Key<Float>("float", default: 0)] = 1.5
      batch[Preferences.Key<Int8>("int8", default: 0)] = -8
      batch[Preferences.Key<UInt16>("uint16", default: 0)] = 65535
      batch[Preferences.Key<Int32>("int32", default: 0)] = -2_000_000_000
      batch[Preferences.Key<UInt64>("uint64", default: 0)] = .max
      batch[Preferences.Key<HelperSort>("sort", default: .title)] = .completion
      batch[Preferences.Key<HelperLevel>("level", default: .low)] = .high
      batch[Preferences.Key<String?>("optional")] = "present"
      batch[Preferences.Key<[Int]>("ints", default: [])] = [3, 1, 2]
      batch[Preferences.Key<Set<String>>("set", default: [])] = ["a", "b"]
      batch[Preferences.Key<[String: Double]>("doubles", default: [:])] = ["pi": 3.14, "e": 2.71]
      batch[
        Preferences.Key<HelperPoint>("point", default: HelperPoint(x: 0, label: "", when: .now))] =
        Self.point
      batch[Preferences.Key<[HelperPoint]>("points", default: [])] = [Self.point, Self.point]
      batch[Preferences.Key<[String: PreferenceValue]>("dictionary", default: [:])] =
        Self.dictionary
    }
  }

  mutating func checkAll() {
    check(Preferences.Key<Bool>("bool", default: false), true)
    check(Preferences.Key<Int>("int", default: 0), -42)
    check(Preferences.Key<Double>("double", default: 0), 2.5)
    check(Preferences.Key<String>("string", default: ""), "高速代金")
    check(
      Preferences.Key<URL>("url", default: URL(fileURLWithPath: "/")),
      URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/"))
    check(Preferences.Key<Data>("data", default: Data()), Data([0, 1, 255]))
    check(Preferences.Key<Date>("date", default: .distantPast), Self.date)
    check(Preferences.Key<UUID>("uuid", default: UUID()), Self.uuid)
    check(Preferences.Key<Float>("float", default: 0), 1.5)
    check(Preferences.Key<Int8>("int8", default: 0), -8)
    check(Preferences.Key<UInt16>("uint16", default: 0), 65535)
    check(Preferences.Key<Int32>("int32", default: 0), -2_000_000_000)
    check(Preferences.Key<UInt64>("uint64", default: 0), .max)
    check(Preferences.Key<HelperSort>("sort", default: .title), .completion)
    check(Preferences.Key<HelperLevel>("level", default: .low), .high)
    check(Preferences.Key<String?>("optional"), "present")
    check(Preferences.Key<[Int]>("ints", default: []), [3, 1, 2])
    check(Preferences.Key<Set<String>>("set", default: []), ["a", "b"])
    check(Preferences.Key<[String: Double]>("doubles", default: [:]), ["pi": 3.14, "e": 2.71])
    check(
      Preferences.Key<HelperPoint>("point", default: HelperPoint(x: 0, label: "", when: .now)),
      Self.point)
    check(Preferences.Key<[HelperPoint]>("points", default: []), [Self.point, Self.point])
    check(Preferences.Key<[String: PreferenceValue]>("dictionary", default: [:]), Self.dictionary)
  }
}

private func open(_ path: String) throws -> Preferences {
  try Preferences(fileURL: URL(fileURLWithPath: path))
}

private func say(_ line: String) {
  print(line)
  fflush(nil)
}

/// Waits (bounded) for a semaphore; exits 2 when it times out.
private func wait(_ semaphore: DispatchSemaphore, what: String) {
  if semaphore.wait(timeout: .now() + 20) == .timedOut {
    FileHandle.standardError.write(Data("kura-testhelper: timed out waiting for \(what)\n".utf8))
    exit(2)
  }
}

let preferencesHelperCommands: [HelperCommand] = [
  // `prefs-increment <file> <key> <count>`: atomically adds 1 to an Int key <count> times.
  HelperCommand(name: "prefs-increment") { arguments in
    guard arguments.count == 3, let count = Int(arguments[2]) else {
      throw CocoaError(.featureUnsupported)
    }
    let preferences = try open(arguments[0])
    let key = Preferences.Key<Int>(arguments[1], default: 0)
    for _ in 0..<count { try preferences.update(key) { $0 + 1 } }
    say("done")
  },
  // `prefs-set-and-hang <file> <key> <int>`: sets the key, prints `set`, then waits to be killed.
  HelperCommand(name: "prefs-set-and-hang") { arguments in
    guard arguments.count == 3, let value = Int(arguments[2]) else {
      throw CocoaError(.featureUnsupported)
    }
    let preferences = try open(arguments[0])
    try preferences.set(value, for: Preferences.Key<Int>(arguments[1], default: 0))
    say("set")
    _ = FileHandle.standardInput.readDataToEndOfFile()
  },
  // `prefs-get-int <file> <key>`: prints an Int key's value.
  HelperCommand(name: "prefs-get-int") { arguments in
    guard arguments.count == 2 else { throw CocoaError(.featureUnsupported) }
    say(String(try open(arguments[0])[Preferences.Key<Int>(arguments[1], default: -1)]))
  },
  // `prefs-await <file> <key> <int>`: prints each value of `changes(of:)` (the first is `ready`
  // marker's cue) until the key holds <int>.
  HelperCommand(name: "prefs-await") { arguments in
    guard arguments.count == 3, let expected = Int(arguments[2]) else {
      throw CocoaError(.featureUnsupported)
    }
    let preferences = try open(arguments[0])
    let key = Preferences.Key<Int>(arguments[1], default: 0)
    let done = DispatchSemaphore(value: 0)
    let stream = preferences.changes(of: key)
    Task {
      for await value in stream {
        say("value \(value)")
        if value == expected { break }
      }
      done.signal()
    }
    wait(done, what: "\(arguments[1]) = \(expected)")
  },
  // `prefs-observe <file> <key> <other>`: reads <key> inside withObservationTracking, prints
  // `ready`, prints `other <value>` for each value of <other>, and when the tracking fires prints
  // `fired <value of key>` and exits.
  HelperCommand(name: "prefs-observe") { arguments in
    guard arguments.count == 3 else { throw CocoaError(.featureUnsupported) }
    let preferences = try open(arguments[0])
    let key = Preferences.Key<String>(arguments[1], default: "")
    let other = preferences.changes(of: Preferences.Key<String>(arguments[2], default: ""))
    let fired = DispatchSemaphore(value: 0)
    _ = withObservationTracking {
      preferences[key]
    } onChange: {
      fired.signal()
    }
    Task {
      for await value in other { say("other \(value)") }
    }
    say("ready")
    wait(fired, what: "an observation of \(arguments[1])")
    say("fired \(preferences[key])")
  },
  // `prefs-write-all <file>` and `prefs-check-all <file>`: the every-type fixture.
  HelperCommand(name: "prefs-write-all") { arguments in
    guard arguments.count == 1 else { throw CocoaError(.featureUnsupported) }
    try HelperFixture(preferences: try open(arguments[0])).write()
    say("written")
  },
  HelperCommand(name: "prefs-check-all") { arguments in
    guard arguments.count == 1 else { throw CocoaError(.featureUnsupported) }
    var fixture = HelperFixture(preferences: try open(arguments[0]))
    fixture.checkAll()
    say(fixture.mismatches.isEmpty ? "ok" : fixture.mismatches.joined(separator: "\n"))
  },
]
