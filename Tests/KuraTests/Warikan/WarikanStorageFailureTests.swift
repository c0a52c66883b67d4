import Foundation
import Kura
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing
import WarikanKit

/// Runs the built `warikan` with a test folder's environment.
private func warikan(_ arguments: [String], _ folder: TemporaryDirectory) throws -> ProcessResult {
  var environment = folder.environment
  environment["TZ"] = "UTC"
  return try run(try executable("warikan"), arguments, environment: environment)
}

@Suite("warikan when storage fails")
struct WarikanStorageFailureTests {
  @Test func aDamagedJournalIsReportedKeptAndRecoveredTruthfully() throws {
    let folder = TemporaryDirectory()
    let url = cashDataURL(folder)
    let journalURL = url.deletingLastPathComponent().appendingPathComponent(
      ".cashData.json.journal")
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let book = try EntryBook(
      location: .url(url), options: DocumentOptions(observesOtherProcesses: false))
    try book.add(cash: 1, memo: "compacted")
    try book.store.compact()
    for index in 0..<50 { try book.add(cash: 100 + index, memo: "entry \(index)") }
    let file = try Data(contentsOf: url)
    var journal = try Data(contentsOf: journalURL)
    try book.close()
    // One changed byte a third of the way into the journal.
    journal[journal.count / 3] ^= 0x01
    try file.write(to: url)
    try journal.write(to: journalURL)

    let listed = try warikan(["list"], folder)
    #expect(listed.status == 1)
    #expect(listed.stdout == "")
    #expect(
      listed.stderr.hasPrefix("warikan: error: Can't open document `\(url.path)`: its journal"))
    #expect(listed.stderr.contains("a record is damaged and intact records follow it"))
    #expect(listed.stderr.hasSuffix("run `warikan recover`.\n"))
    #expect(try Data(contentsOf: journalURL) == journal)
    #expect(try Data(contentsOf: url) == file)

    let recovered = try warikan(["recover"], folder)
    #expect(recovered.status == 0)
    #expect(recovered.stdout.contains("a record is damaged and intact records follow it"))
    #expect(recovered.stdout.contains("The file and its journal were moved to"))
    let names = try fileNames(in: url.deletingLastPathComponent())
    let movedFile = try #require(names.first { $0.hasPrefix("cashData.json.damaged-") })
    let movedJournal = try #require(names.first { $0.hasPrefix(".cashData.json.journal.damaged-") })
    #expect(
      try Data(contentsOf: url.deletingLastPathComponent().appendingPathComponent(movedFile))
        == file)
    #expect(
      try Data(contentsOf: url.deletingLastPathComponent().appendingPathComponent(movedJournal))
        == journal)
    #expect(try warikan(["list"], folder).stdout.hasPrefix("No entries yet."))
  }

  @Test func addOnAnImmutableFileSucceedsAndSaysSo() throws {
    try ImmutableFlag.requireSupport()
    let folder = TemporaryDirectory()
    #expect(try warikan(["add", "500", "first"], folder).status == 0)
    let url = cashDataURL(folder)
    try ImmutableFlag.set(on: url)
    defer { try? ImmutableFlag.clear(on: url) }
    let added = try warikan(["add", "100", "second"], folder)
    #expect(added.status == 0)
    #expect(added.stdout.hasPrefix("Added ¥100 second"))
    #expect(added.stderr.hasPrefix("warikan: warning: Can't write the saved changes of document"))
    #expect(added.stderr.contains("No change was lost"))
    let listed = try warikan(["list"], folder)
    #expect(listed.status == 0)
    #expect(listed.stdout.hasSuffix("Total: ¥600 in 2 entries.\n"))
    try ImmutableFlag.clear(on: url)
    let after = try warikan(["list"], folder)
    #expect(after.status == 0 && after.stderr == "")
    #expect(after.stdout.hasSuffix("Total: ¥600 in 2 entries.\n"))
    // `list` only reads: the change stays in the journal until the next command that writes.
    let read = try JSONDecoder().decode([CashData].self, from: Data(contentsOf: url))
    #expect(read.map(\.cash) == [500])
    let third = try warikan(["add", "1", "third"], folder)
    #expect(third.status == 0 && third.stderr == "")
    let saved = try JSONDecoder().decode([CashData].self, from: Data(contentsOf: url))
    #expect(saved.map(\.cash) == [500, 100, 1])
  }
}
