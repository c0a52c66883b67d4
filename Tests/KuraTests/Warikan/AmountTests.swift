import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing
import WarikanKit

@Suite("Amount")
struct AmountTests {
  @Test(arguments: [
    ("2800", 2800), ("¥2,800", 2800), ("￥10,000", 10_000), ("２８００", 2800), (" 2800 ", 2800),
    ("2800円", 2800), ("0", 0), ("1,234,567", 1_234_567), ("1000000000000", 1_000_000_000_000),
  ])
  func parsesWholeYen(text: String, yen: Int) throws {
    #expect(try Amount.parse(text) == yen)
  }

  @Test(arguments: [
    ("12.5", "it has a decimal point; yen have no fractions"),
    ("-5", "it is negative"),
    ("abc", "`a` is not a digit"),
    ("", "it has no digits"),
    ("¥", "it has no digits"),
    ("2 800", "` ` is not a digit"),
    ("1,00", "its `,` separators are not between groups of three digits"),
    ("1000,000", "its `,` separators are not between groups of three digits"),
    ("1000000000001", "it is above the largest amount, ¥1,000,000,000,000"),
    ("99999999999999999999", "it is above the largest amount, ¥1,000,000,000,000"),
    ("0x10", "`x` is not a digit"),
  ])
  func rejectsAnythingElseQuotingIt(text: String, reason: String) {
    #expect(throws: WarikanError.invalidAmount(input: text, reason: reason)) {
      try Amount.parse(text)
    }
  }

  @Test func errorMessageQuotesTheInputAndSaysTheFix() {
    #expect(
      "\(WarikanError.invalidAmount(input: "12.5", reason: "it has a decimal point; yen have no fractions"))"
        == "`12.5` is not an amount in yen: it has a decimal point; yen have no fractions. Write a"
        + " whole number of yen such as 2800, 2,800 or ¥2,800.")
  }

  @Test func formatsWithSeparators() {
    #expect(Amount.format(0) == "¥0")
    #expect(Amount.format(999) == "¥999")
    #expect(Amount.format(2800) == "¥2,800")
    #expect(Amount.format(1_234_567) == "¥1,234,567")
    #expect(Amount.format(-500) == "-¥500")
    #expect(Amount.grouped(-10_000) == "-10,000")
  }
}

@Suite("BillSplit")
struct BillSplitTests {
  @Test func spreadsTheRemainderOneYenEach() throws {
    let split = try BillSplit(total: 10_000, people: 3)
    #expect(split.shares == [3334, 3333, 3333])
    #expect(split.baseShare == 3333 && split.remainder == 1)
    #expect(split.groups.map(\.yen) == [3334, 3333])
    #expect(split.groups.map(\.people) == [1, 2])
    #expect(try BillSplit(total: 10, people: 4).shares == [3, 3, 2, 2])
    #expect(try BillSplit(total: 2800, people: 4).shares == [700, 700, 700, 700])
    #expect(try BillSplit(total: 0, people: 2).shares == [0, 0])
    #expect(try BillSplit(total: 1, people: 3).shares == [1, 0, 0])
    #expect(try BillSplit(total: 2800, people: 1).shares == [2800])
  }

  @Test func everyYenIsPaid() throws {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<500 {
      let total = Int.random(in: 0...10_000_000, using: &generator)
      let people = Int.random(in: 1...50, using: &generator)
      let shares = try BillSplit(total: total, people: people).shares
      #expect(shares.reduce(0, +) == total)
      #expect(shares.count == people)
      #expect((shares.max() ?? 0) - (shares.min() ?? 0) <= 1)
    }
  }

  @Test func needsAtLeastOnePersonAndANonNegativeTotal() {
    #expect(throws: WarikanError.invalidPeople(0)) { try BillSplit(total: 100, people: 0) }
    #expect(throws: WarikanError.invalidPeople(-2)) { try BillSplit(total: 100, people: -2) }
    #expect(throws: WarikanError.negativeTotal(-5)) { try BillSplit(total: -5, people: 2) }
    #expect(
      "\(WarikanError.invalidPeople(0))" == "`0` is not a number of people: use 1 to 100,000.")
  }
}

@Suite("ShortTime")
struct ShortTimeTests {
  @Test func writesHourWithoutLeadingZeroAndTwoDigitMinutes() throws {
    let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
    let utc = try #require(TimeZone(identifier: "UTC"))
    // 2026-11-30 13:38:00 UTC
    let date = Date(timeIntervalSince1970: 1_796_045_880)
    #expect(ShortTime.string(from: date, in: utc) == "13:38")
    #expect(ShortTime.string(from: date, in: tokyo) == "22:38")
    let early = Date(timeIntervalSince1970: 1_796_045_880 - 7 * 3600 - 32 * 60)  // 6:06 UTC
    #expect(ShortTime.string(from: early, in: utc) == "6:06")
    #expect(ShortTime.string(from: Date(timeIntervalSince1970: 0), in: utc) == "0:00")
  }

  @Test func honoursTZ() throws {
    let paris = try #require(TimeZone(identifier: "Europe/Paris"))
    #expect(ShortTime.userTimeZone(environment: ["TZ": "Europe/Paris"]) == paris)
    #expect(ShortTime.userTimeZone(environment: ["TZ": ":Europe/Paris"]) == paris)
    #expect(
      ShortTime.userTimeZone(environment: ["TZ": "/usr/share/zoneinfo/Europe/Paris"]) == paris)
    #expect(ShortTime.userTimeZone(environment: ["TZ": "Not/AZone"]) == TimeZone.current)
    #expect(ShortTime.userTimeZone(environment: [:]) == TimeZone.current)
  }

  @Test func readsPOSIXRulesWithTheirWestwardSign() {
    func offset(_ tz: String) -> Int {
      ShortTime.userTimeZone(environment: ["TZ": tz]).secondsFromGMT()
    }
    #expect(offset("JST-9") == 9 * 3600)
    #expect(offset("EST5") == -5 * 3600)
    // As the C library (and `date`) read them: `GMT+5` is five hours behind UTC.
    #expect(offset("GMT+5") == -5 * 3600)
    #expect(offset("UTC-3") == 3 * 3600)
    #expect(offset("<+0530>-5:30") == 5 * 3600 + 30 * 60)
    #expect(offset("UTC0") == 0)
    // From an environment other than the process's own, summer time is not applied.
    #expect(offset("CET-1CEST,M3.5.0,M10.5.0/3") == 3600)
  }
}
