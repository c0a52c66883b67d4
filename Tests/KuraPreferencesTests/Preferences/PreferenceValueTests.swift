import Foundation
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Preference values")
struct PreferenceValueTests {
  @Test func everyTypeRoundTripsThroughAFile() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("values.sqlite")
    try Fixture.write(try Preferences(fileURL: url))
    Fixture.expectAll(try Preferences(fileURL: url))
  }

  @Test func everyTypeRoundTripsFromASecondProcess() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("values.sqlite")
    let written = try helper(["prefs-write-all", url.path], in: folder)
    #expect(written.status == 0)
    #expect(written.stdout == "written\n")
    Fixture.expectAll(try Preferences(fileURL: url))
  }

  @Test func everyTypeRoundTripsToASecondProcess() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("values.sqlite")
    try Fixture.write(try Preferences(fileURL: url))
    let checked = try helper(["prefs-check-all", url.path], in: folder)
    #expect(checked.stderr == "")
    #expect(checked.stdout == "ok\n")
  }

  @Test func codableValuesKeepTheirDatesAndBytesForTools() throws {
    struct Visit: Codable, Sendable, Equatable {
      var place: String
      var when: Date
      var photo: Data
      var rating: Double
    }
    let visit = Visit(place: "港", when: Fixture.date, photo: Data([1, 2]), rating: 4.5)
    let key = Preferences.Key<Visit?>("visit")
    let folder = TemporaryDirectory()
    let url = folder.file("visit.sqlite")
    try Preferences(fileURL: url).set(visit, for: key)
    let reopened = try Preferences(fileURL: url)
    #expect(reopened[key] == visit)
    #expect(reopened[key] == visit)  // the second read is served by the decoded-value cache
    #expect(
      reopened.value(forKey: "visit")
        == .dictionary([
          "place": "港", "when": .date(Fixture.date), "photo": .data(Data([1, 2])), "rating": 4.5,
        ]))
    // A tree written by a tool (plain base64 text, seconds since 2001) still decodes.
    try reopened.setValue(
      ["place": "x", "when": 0.0, "photo": "AQI=", "rating": 1], forKey: "visit")
    #expect(
      reopened[key]
        == Visit(
          place: "x", when: Date(timeIntervalSinceReferenceDate: 0), photo: Data([1, 2]), rating: 1)
    )
  }

  @Test func aValueOfAnotherTypeReadsAsTheDefaultAndIsKept() throws {
    let preferences = Preferences.inMemory
    try preferences.set("not a number", for: Preferences.Key<String>("count", default: ""))
    #expect(preferences[Preferences.Key<Int>("count", default: 7)] == 7)
    #expect(preferences[Preferences.Key<FixtureSort>("count", default: .date)] == .date)
    #expect(preferences[Preferences.Key<[Int]>("count", default: [1])] == [1])
    #expect(preferences[Preferences.Key<FixturePoint?>("count")] == nil)
    #expect(preferences.value(forKey: "count") == .string("not a number"))
    #expect(preferences.keys == ["count"])
  }

  @Test func anEnumWhoseRawValueIsUnknownReadsAsTheDefault() throws {
    let preferences = Preferences.inMemory
    try preferences.setValue("alphabetical", forKey: "sort")
    #expect(preferences[Fixture.sort] == .title)
    #expect(preferences.value(forKey: "sort") == "alphabetical")
  }

  @Test func settingNilRemovesTheKey() throws {
    let preferences = Preferences.inMemory
    preferences[Fixture.optional] = "x"
    #expect(preferences.contains(Fixture.optional))
    preferences[Fixture.optional] = nil
    #expect(!preferences.contains(Fixture.optional))
    #expect(preferences[Fixture.optional] == nil)
    #expect(preferences.keys == [])
  }

  @Test func numbersConvertOnlyWhereExact() throws {
    let preferences = Preferences.inMemory
    try preferences.setValue(.integer(300), forKey: "n")
    #expect(preferences[Preferences.Key<Int8>("n", default: 1)] == 1)
    #expect(preferences[Preferences.Key<Double>("n", default: 0)] == 300)
    try preferences.setValue(.double(2.5), forKey: "n")
    #expect(preferences[Preferences.Key<Int>("n", default: -1)] == -1)
    try preferences.setValue(.integer(1), forKey: "n")
    #expect(preferences[Preferences.Key<Bool>("n", default: false)] == true)
  }

  @Test func specialDoublesRoundTrip() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("doubles.sqlite")
    let key = Preferences.Key<[Double]>("special", default: [])
    let single = Preferences.Key<Double>("nan", default: 0)
    let preferences = try Preferences(fileURL: url)
    preferences[key] = [.infinity, -.infinity, 0.1]
    preferences[single] = .nan
    let reopened = try Preferences(fileURL: url)
    #expect(reopened[key] == [.infinity, -.infinity, 0.1])
    #expect(reopened[single].isNaN)
  }

  @Test func textParsesAsEachType() throws {
    #expect(try PreferenceValue(parsing: "42", as: .integer) == .integer(42))
    #expect(try PreferenceValue(parsing: "2.5", as: .double) == .double(2.5))
    #expect(try PreferenceValue(parsing: "YES", as: .bool) == .bool(true))
    #expect(
      try PreferenceValue(parsing: "2026-11-30T10:15:00Z", as: .date)
        == .date(Date(timeIntervalSince1970: 1_796_033_700)))
    #expect(
      try PreferenceValue(parsing: #"{"a": [1, 2.5, "x", true]}"#, as: .json)
        == .dictionary(["a": [1, 2.5, "x", true]]))
    #expect(try PreferenceValue(parsing: " 7 ", as: .string) == .string(" 7 "))
    #expect(throws: PreferencesError.invalidValue(text: "4x", type: "integer")) {
      try PreferenceValue(parsing: "4x", as: .integer)
    }
    #expect(
      PreferencesError.invalidValue(text: "4x", type: "integer").description
        == "Can't read `4x` as an integer: expected a whole number such as 42.")
    #expect(throws: PreferencesError.invalidValue(text: "null", type: "json")) {
      try PreferenceValue(parsing: "null", as: .json)
    }
  }

  @Test func descriptionsReadLikeDefaults() {
    let value: PreferenceValue = [
      "b": [1, "two", true], "a": .date(Date(timeIntervalSince1970: 0)),
      "c": .data(Data([10, 255])),
    ]
    #expect(
      value.description == #"{"a" = 1970-01-01T00:00:00Z; "b" = (1, "two", true); "c" = <0aff>}"#)
    #expect(PreferenceValue.string("plain").description == "plain")
    #expect(PreferenceValue.double(2.5).typeName == "double")
  }

  @Test func plainJSONEncodingOfValues() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let value: PreferenceValue = ["n": 1, "d": 1.5, "s": "x", "b": false, "l": [1]]
    let text = String(decoding: try encoder.encode(value), as: UTF8.self)
    #expect(text == #"{"b":false,"d":1.5,"l":[1],"n":1,"s":"x"}"#)
    #expect(try JSONDecoder().decode(PreferenceValue.self, from: Data(text.utf8)) == value)
  }
}
