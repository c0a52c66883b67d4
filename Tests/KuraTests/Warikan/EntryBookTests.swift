import Foundation
import Kura
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Observation
import Synchronization
import Testing
import WarikanKit

/// A `cashData.json` exactly as the seed app writes it.
let seedJSON =
  #"[{"id":"3F4D8393-8D86-4C81-AFB9-1854A5E38BDC","memo":"高速代金","cash":2800,"time":"22:38"},"#
  + #"{"id":"0B7E21AA-1C0D-4E55-9F00-6A2B9C1D2E3F","memo":"ガソリン","cash":4500,"time":"6:06"}]"#

/// The seed's entries, decoded.
let seedEntries = [
  CashData(
    id: UUID(uuidString: "3F4D8393-8D86-4C81-AFB9-1854A5E38BDC") ?? UUID(), memo: "高速代金",
    cash: 2800, time: "22:38"),
  CashData(
    id: UUID(uuidString: "0B7E21AA-1C0D-4E55-9F00-6A2B9C1D2E3F") ?? UUID(), memo: "ガソリン",
    cash: 4500, time: "6:06"),
]

/// Opens a book in a test folder's warikan Documents folder.
func openBook(_ folder: TemporaryDirectory) throws -> EntryBook {
  try EntryBook(
    location: .documents(
      EntryBook.fileName, app: EntryBook.appIdentifier, environment: folder.environment),
    options: DocumentOptions(observesOtherProcesses: false))
}

/// Where warikan keeps `cashData.json` for a test folder.
func cashDataURL(_ folder: TemporaryDirectory) -> URL {
  folder.url.appendingPathComponent("kura-home/apps/warikan/Documents/cashData.json")
}

/// Places a seed-written file where warikan reads it.
func placeSeedFile(_ folder: TemporaryDirectory, _ text: String = seedJSON) throws {
  let url = cashDataURL(folder)
  try FileManager.default.createDirectory(
    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
  try Data(text.utf8).write(to: url)
}

@Suite("EntryBook")
struct EntryBookTests {
  @Test func readsASeedWrittenFileUnchanged() throws {
    let folder = TemporaryDirectory()
    try placeSeedFile(folder)
    let book = try openBook(folder)
    #expect(book.entries == seedEntries)
    #expect(book.newestFirst == seedEntries.reversed())
    #expect(try book.total == 7300)
    try book.close()
    #expect(String(decoding: try Data(contentsOf: cashDataURL(folder)), as: UTF8.self) == seedJSON)
  }

  @Test func writesTheSeedsFormat() throws {
    let folder = TemporaryDirectory()
    let book = try openBook(folder)
    let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
    let entry = try book.add(
      cash: 2800, memo: "高速代金", date: Date(timeIntervalSince1970: 1_796_045_880), timeZone: tokyo)
    try book.close()
    let data = try Data(contentsOf: cashDataURL(folder))
    let objects = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    #expect(objects.count == 1)
    let object = try #require(objects.first)
    #expect(Set(object.keys) == ["id", "memo", "cash", "time"])
    #expect(object["id"] as? String == entry.id.uuidString)
    #expect(entry.id.uuidString == entry.id.uuidString.uppercased())
    #expect(object["memo"] as? String == "高速代金")
    #expect(object["cash"] as? Int == 2800)
    #expect(object["time"] as? String == "22:38")
    #expect(String(decoding: data, as: UTF8.self).contains(#""memo":"高速代金""#))
  }

  @Test func addRejectsZeroAndNonNumbers() throws {
    let folder = TemporaryDirectory()
    let book = try openBook(folder)
    #expect(throws: WarikanError.zeroAmount(input: "¥0")) { try book.add(amount: "¥0", memo: "") }
    #expect(throws: WarikanError.invalidAmount(input: "abc", reason: "`a` is not a digit")) {
      try book.add(amount: "abc", memo: "")
    }
    #expect(throws: WarikanError.invalidAmount(input: "-3", reason: "it is negative")) {
      try book.add(cash: -3, memo: "")
    }
    #expect(book.entries.isEmpty)
  }

  @Test func findsEntriesByIndexNewestFirstOrByIdPrefix() throws {
    let folder = TemporaryDirectory()
    try placeSeedFile(folder)
    let book = try openBook(folder)
    #expect(try book.entry(matching: "1") == seedEntries[1])
    #expect(try book.entry(matching: "2") == seedEntries[0])
    #expect(try book.entry(matching: "3f4d") == seedEntries[0])
    #expect(try book.entry(matching: "0B7E21AA-") == seedEntries[1])
    #expect(throws: WarikanError.noSuchEntry(reference: "3", count: 2)) {
      try book.entry(matching: "3")
    }
    #expect(throws: WarikanError.noSuchEntry(reference: "0", count: 2)) {
      try book.entry(matching: "0")
    }
    #expect(throws: WarikanError.noSuchEntry(reference: "zz", count: 2)) {
      try book.entry(matching: "zz")
    }
    #expect(
      "\(WarikanError.noSuchEntry(reference: "3", count: 2))"
        == "There is no entry number `3`: there are 2 entries. Use a number shown by `warikan list`"
        + " (1 is the newest), or an id prefix with a letter or `-` in it.")
  }

  @Test func anAmbiguousPrefixNamesTheMatches() throws {
    let folder = TemporaryDirectory()
    try placeSeedFile(
      folder,
      #"[{"id":"AAAA0000-0000-0000-0000-000000000001","memo":"a","cash":1,"time":"1:00"},"#
        + #"{"id":"AAAA0000-0000-0000-0000-000000000002","memo":"b","cash":2,"time":"1:01"}]"#)
    let book = try openBook(folder)
    do {
      _ = try book.delete(matching: "aaaa")
      Issue.record("an ambiguous prefix deleted an entry")
    } catch let error as WarikanError {
      #expect(
        "\(error)"
          == "`aaaa` matches 2 entries (`AAAA0000-0000-0000-0000-000000000002`,"
          + " `AAAA0000-0000-0000-0000-000000000001`): give more of the id.")
    }
    #expect(try book.delete(matching: "AAAA0000-0000-0000-0000-000000000002").memo == "b")
    #expect(book.entries.map(\.memo) == ["a"])
  }

  @Test func anEmptyReferenceIsQuotedAndExplained() throws {
    #expect(
      "\(WarikanError.noSuchEntry(reference: "", count: 2))"
        == "`` names no entry: give a number shown by `warikan list` (1 is the newest) or the"
        + " start of an entry's id.")
  }

  @Test func entriesSharingAnIdAreNeverDeletedInEachOthersPlace() throws {
    let folder = TemporaryDirectory()
    // A file edited by hand: two entries with one id.
    let file =
      #"[{"id":"AAAA0000-0000-0000-0000-000000000001","memo":"a","cash":1,"time":"1:00"},"#
      + #"{"id":"AAAA0000-0000-0000-0000-000000000001","memo":"b","cash":2,"time":"1:01"}]"#
    try placeSeedFile(folder, file)
    let book = try openBook(folder)
    let message =
      "matches 2 entries that share the id `AAAA0000-0000-0000-0000-000000000001`, so warikan"
      + " can't tell them apart: give one of them a new id in cashData.json."
    for reference in ["1", "2", "aaaa"] {
      do {
        let deleted = try book.delete(matching: reference)
        Issue.record("`\(reference)` deleted \(deleted.memo)")
      } catch let error as WarikanError {
        #expect("\(error)" == "`\(reference)` " + message)
      }
    }
    #expect(book.entries.map(\.memo) == ["a", "b"])
    try book.close()
    #expect(try String(contentsOf: cashDataURL(folder), encoding: .utf8) == file)
  }

  @Test func totalOverflowIsAnErrorNotACrash() throws {
    let folder = TemporaryDirectory()
    try placeSeedFile(
      folder,
      #"[{"id":"AAAA0000-0000-0000-0000-000000000001","memo":"a","cash":9223372036854775807,"time":"1:00"},"#
        + #"{"id":"AAAA0000-0000-0000-0000-000000000002","memo":"b","cash":1,"time":"1:01"}]"#)
    let book = try openBook(folder)
    #expect(throws: WarikanError.totalTooLarge) { try book.total }
    #expect(throws: WarikanError.totalTooLarge) { try book.split(among: 2) }
  }

  @Test func resetRemovesTheFile() throws {
    let folder = TemporaryDirectory()
    try placeSeedFile(folder)
    let book = try openBook(folder)
    try book.reset()
    #expect(book.entries.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: cashDataURL(folder).path))
  }

  @Test func observersOfTheEntriesFireOnEachChange() throws {
    let folder = TemporaryDirectory()
    let book = try openBook(folder)
    let fired = Mutex(0)
    withObservationTracking {
      _ = book.entries
    } onChange: {
      fired.withLock { $0 += 1 }
    }
    let entry = try book.add(cash: 300, memo: "お茶")
    #expect(fired.withLock { $0 } == 1)
    withObservationTracking {
      _ = try? book.total
    } onChange: {
      fired.withLock { $0 += 1 }
    }
    try book.delete(id: entry.id)
    #expect(fired.withLock { $0 } == 2)
  }

  @Test func changesReportEachChange() async throws {
    let folder = TemporaryDirectory()
    let book = try openBook(folder)
    let changes = book.changes()
    try book.add(cash: 100, memo: "x")
    var iterator = changes.makeAsyncIterator()
    #expect(await iterator.next()?.map(\.cash) == [100])
  }
}
