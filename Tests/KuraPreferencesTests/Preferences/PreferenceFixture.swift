import Foundation
import KuraTestSupport
import Testing

@testable import Kura

// The every-type fixture, identical to kura-testhelper's PreferencesHelpers.swift, so a value
// written by one process is checked by the other.

enum FixtureSort: String, Codable, Sendable { case title, date, completion }
enum FixtureLevel: Int, Sendable { case low = 1, high = 2 }
struct FixturePoint: Codable, Sendable, Equatable {
  var x: Double
  var label: String
  var when: Date
}

enum Fixture {
  static let date = Date(timeIntervalSince1970: 1_700_000_000.25)
  static let uuid = UUID(uuidString: "3F4D8393-8D86-4C81-AFB9-1854A5E38BDC") ?? UUID()
  static let point = FixturePoint(x: 1.5, label: "港", when: date)
  static let url = URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/")
  static let dictionary: [String: PreferenceValue] = [
    "FirstView": "FirstView", "count": 3, "ratio": 0.5, "on": true, "when": .date(date),
    "bytes": .data(Data([0, 1, 2])), "list": [1, "two", ["nested": 3.0]],
  ]

  static let bool = Preferences.Key<Bool>("bool", default: false)
  static let int = Preferences.Key<Int>("int", default: 0)
  static let double = Preferences.Key<Double>("double", default: 0)
  static let string = Preferences.Key<String>("string", default: "")
  static let urlKey = Preferences.Key<URL>("url", default: URL(fileURLWithPath: "/"))
  static let data = Preferences.Key<Data>("data", default: Data())
  static let dateKey = Preferences.Key<Date>("date", default: .distantPast)
  static let uuidKey = Preferences.Key<UUID>("uuid", default: UUID())
  static let float = Preferences.Key<Float>("float", default: 0)
  static let int8 = Preferences.Key<Int8>("int8", default: 0)
  static let uint16 = Preferences.Key<UInt16>("uint16", default: 0)
  static let int32 = Preferences.Key<Int32>("int32", default: 0)
  static let uint64 = Preferences.Key<UInt64>("uint64", default: 0)
  static let sort = Preferences.Key<FixtureSort>("sort", default: .title)
  static let level = Preferences.Key<FixtureLevel>("level", default: .low)
  static let optional = Preferences.Key<String?>("optional")
  static let ints = Preferences.Key<[Int]>("ints", default: [])
  static let set = Preferences.Key<Set<String>>("set", default: [])
  static let doubles = Preferences.Key<[String: Double]>("doubles", default: [:])
  static let pointKey = Preferences.Key<FixturePoint>(
    "point", default: FixturePoint(x: 0, label: "", when: .distantPast))
  static let points = Preferences.Key<[FixturePoint]>("points", default: [])
  static let dictionaryKey = Preferences.Key<[String: PreferenceValue]>("dictionary", default: [:])

  static func write(_ preferences: Preferences) throws {
    try preferences.batch { batch in
      batch[bool] = true
      batch[int] = -42
      batch[double] = 2.5
      batch[string] = "高速代金"
      batch[urlKey] = url
      batch[data] = Data([0, 1, 255])
      batch[dateKey] = date
      batch[uuidKey] = uuid
      batch[float] = 1.5
      batch[int8] = -8
      batch[uint16] = 65535
      batch[int32] = -2_000_000_000
      batch[uint64] = .max
      batch[sort] = .completion
      batch[level] = .high
      batch[optional] = "present"
      batch[ints] = [3, 1, 2]
      batch[set] = ["a", "b"]
      batch[doubles] = ["pi": 3.14, "e": 2.71]
      batch[pointKey] = point
      batch[points] = [point, point]
      batch[dictionaryKey] = dictionary
    }
  }

  static func expectAll(
    _ preferences: Preferences, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(preferences[bool] == true, sourceLocation: sourceLocation)
    #expect(preferences[int] == -42, sourceLocation: sourceLocation)
    #expect(preferences[double] == 2.5, sourceLocation: sourceLocation)
    #expect(preferences[string] == "高速代金", sourceLocation: sourceLocation)
    #expect(preferences[urlKey] == url, sourceLocation: sourceLocation)
    #expect(preferences[data] == Data([0, 1, 255]), sourceLocation: sourceLocation)
    #expect(preferences[dateKey] == date, sourceLocation: sourceLocation)
    #expect(preferences[uuidKey] == uuid, sourceLocation: sourceLocation)
    #expect(preferences[float] == 1.5, sourceLocation: sourceLocation)
    #expect(preferences[int8] == -8, sourceLocation: sourceLocation)
    #expect(preferences[uint16] == 65535, sourceLocation: sourceLocation)
    #expect(preferences[int32] == -2_000_000_000, sourceLocation: sourceLocation)
    #expect(preferences[uint64] == .max, sourceLocation: sourceLocation)
    #expect(preferences[sort] == .completion, sourceLocation: sourceLocation)
    #expect(preferences[level] == .high, sourceLocation: sourceLocation)
    #expect(preferences[optional] == "present", sourceLocation: sourceLocation)
    #expect(preferences[ints] == [3, 1, 2], sourceLocation: sourceLocation)
    #expect(preferences[set] == ["a", "b"], sourceLocation: sourceLocation)
    #expect(preferences[doubles] == ["pi": 3.14, "e": 2.71], sourceLocation: sourceLocation)
    #expect(preferences[pointKey] == point, sourceLocation: sourceLocation)
    #expect(preferences[points] == [point, point], sourceLocation: sourceLocation)
    #expect(preferences[dictionaryKey] == dictionary, sourceLocation: sourceLocation)
  }
}

/// Runs kura-testhelper to completion.
func helper(_ arguments: [String], in folder: TemporaryDirectory) throws -> ProcessResult {
  try run(try executable("kura-testhelper"), arguments, environment: folder.environment)
}
