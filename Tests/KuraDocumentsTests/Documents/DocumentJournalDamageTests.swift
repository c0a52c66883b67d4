import Foundation
import KuraTestSupport
import Testing

@testable import Kura

/// A document and its journal as a writer left them: `notes.json` and `.notes.json.journal`
/// holding `count` appended notes (the store is closed after the bytes are taken, then they are
/// put back, so the image is exactly what a running writer leaves on disk).
private struct JournalImage {
  let folder = TemporaryDirectory()
  var url: URL { folder.file("notes.json") }
  var journalURL: URL { folder.file(".notes.json.journal") }
  let file: Data
  let journal: Data

  init(count: Int) throws {
    let url = folder.file("notes.json")
    let store = try noteStore(url, threshold: 1 << 30)
    try store.append(Note(id: 0, text: "in the file"))
    try store.compact()
    for index in 1...count { try store.append(Note(id: index, text: "note \(index)")) }
    file = try Data(contentsOf: url)
    journal = try Data(contentsOf: folder.file(".notes.json.journal"))
    try store.close()
  }

  /// Puts the file back and the journal as `journal`.
  func place(journal: Data) throws {
    try file.write(to: url)
    try journal.write(to: journalURL)
  }

  /// The offset of the `n`th record (0-based) in the journal.
  func recordOffset(_ n: Int) -> Int {
    var offset = DocumentJournal.headerSize
    for _ in 0..<n {
      let length = journal[offset + 1..<offset + 5].enumerated().reduce(0) {
        $0 | Int($1.element) << (8 * $1.offset)
      }
      offset += DocumentJournal.recordHeaderSize + length
    }
    return offset
  }
}

/// The error opening `url` throws; records an issue when it opens.
private func openingError(_ url: URL, options: DocumentOptions = DocumentOptions())
  -> DocumentError?
{
  do {
    _ = try DocumentStore<[Note]>(.url(url), options: options)
    Issue.record("the document opened")
  } catch let error as DocumentError {
    return error
  } catch {
    Issue.record("unexpected error \(error)")
  }
  return nil
}

@Suite("Damaged document journals")
struct DocumentJournalDamageTests {
  @Test func aChangedByteInTheMiddleIsReportedAndTheJournalKept() throws {
    let image = try JournalImage(count: 50)
    var damaged = image.journal
    let offset = image.recordOffset(16) + 20
    damaged[offset] ^= 0x01
    try image.place(journal: damaged)
    let error = try #require(openingError(image.url))
    #expect(error.code == .damaged)
    #expect(error.journal == image.journalURL)
    #expect(
      error.description
        == "Can't open document `\(image.url.path)`: its journal `.notes.json.journal` can't be"
        + " read at byte \(image.recordOffset(16)): a record is damaged and intact records follow"
        + " it. Nothing was changed and the journal was kept; open the document with the"
        + " quarantine damage policy to move the file and its journal aside and start anew.")
    #expect(try Data(contentsOf: image.journalURL) == damaged)
    #expect(try Data(contentsOf: image.url) == image.file)
  }

  @Test func aWriterOpenedBeforeTheDamageNeitherAppliesNorCutsIt() throws {
    let image = try JournalImage(count: 30)
    try image.place(journal: image.journal.prefix(image.recordOffset(10)))
    let writer = try noteStore(image.url)
    #expect(writer.value.count == 11)
    // Another program puts back the rest of the journal with record 15 damaged.
    var damaged = image.journal
    damaged[image.recordOffset(15) + 15] ^= 0x40
    try damaged.write(to: image.journalURL)
    #expect {
      try writer.append(Note(id: 99, text: "after"))
    } throws: { error in
      (error as? DocumentError)?.code == .damaged
        && (error as? DocumentError)?.reason
          == "its journal `.notes.json.journal` can't be read at byte \(image.recordOffset(15)):"
          + " a record is damaged and intact records follow it"
    }
    #expect(throws: DocumentError.self) { try writer.reload() }
    #expect(writer.value.count == 11)
    #expect(try Data(contentsOf: image.journalURL) == damaged)
    #expect(throws: DocumentError.self) { try writer.close() }
    #expect(try Data(contentsOf: image.journalURL) == damaged)
    #expect(try Data(contentsOf: image.url) == image.file)
  }

  @Test func aDamagedLastRecordIsDamageNotATornTail() throws {
    let image = try JournalImage(count: 5)
    var damaged = image.journal
    damaged[damaged.count - 2] ^= 0x01
    try image.place(journal: damaged)
    let error = try #require(openingError(image.url))
    #expect(
      error.reason
        == "its journal `.notes.json.journal` can't be read at byte \(image.recordOffset(4)):"
        + " the last record is damaged (its check does not match)")
    #expect(try Data(contentsOf: image.journalURL) == damaged)
  }

  @Test func randomBytesAreNotAJournal() throws {
    let image = try JournalImage(count: 3)
    var generator = SeededGenerator(seed: 11)
    let random = Data((0..<4096).map { _ in UInt8.random(in: 0...0xA4, using: &generator) })
    try image.place(journal: random)
    let error = try #require(openingError(image.url))
    #expect(
      error.reason
        == "its journal `.notes.json.journal` can't be read: it does not start with a Kura journal"
        + " header")
    #expect(try Data(contentsOf: image.journalURL) == random)
    // Random bytes after a valid header are damage too.
    let afterHeader = image.journal.prefix(DocumentJournal.headerSize) + random
    try image.place(journal: afterHeader)
    #expect(
      openingError(image.url)?.reason
        == "its journal `.notes.json.journal` can't be read at byte 32: the bytes there are not a"
        + " record")
    #expect(try Data(contentsOf: image.journalURL) == afterHeader)
  }

  @Test func anUnknownVersionIsReportedAndKept() throws {
    let image = try JournalImage(count: 3)
    var future = image.journal
    future.replaceSubrange(0..<8, with: Array("KURAJNL2".utf8))
    try image.place(journal: future)
    #expect(
      openingError(image.url)?.reason
        == "its journal `.notes.json.journal` can't be read: it was written by another version of"
        + " Kura (`KURAJNL2`)")
    #expect(try Data(contentsOf: image.journalURL) == future)
  }

  @Test func tornTailsAreStillDropped() throws {
    let image = try JournalImage(count: 3)
    // A record cut short, a header cut short, a tail of zeros: each is what a crash leaves.
    let cutRecord = image.journal.dropLast(4)
    let cutHeader = image.journal.prefix(image.recordOffset(2) + 5)
    let zeros = image.journal + Data(count: 700)
    for (journal, count) in [(cutRecord, 3), (cutHeader, 3), (zeros, 4)] {
      try image.place(journal: journal)
      let store = try noteStore(image.url)
      #expect(store.value.count == count)
      try store.append(Note(id: 77, text: "next"))
      try store.close()
      #expect(try noteStore(image.url).value.count == count + 1)
    }
    // A journal whose header was cut short holds nothing and goes away.
    try image.place(journal: image.journal.prefix(12))
    let store = try noteStore(image.url)
    #expect(store.value.count == 1)
    try store.append(Note(id: 78, text: "next"))
    #expect(try noteStore(image.url).value.count == 2)
  }

  @Test func aTornTailLongerThanTheNextRecordIsCutBeforeTheRecord() throws {
    let image = try JournalImage(count: 3)
    // The journal an untorn store holds after appending the short note: the expected bytes
    // (read before closing, which compacts the journal into the file).
    try image.place(journal: image.journal)
    let untorn = try noteStore(image.url)
    try untorn.append(Note(id: 77, text: "next"))
    let expected = try Data(contentsOf: image.journalURL)
    try untorn.close()
    // A killed writer's long record, cut short: more bytes than the short note's whole record.
    let long = DocumentJournal.frame(
      .append, json: Data(#"{"id":50,"text":"\#(String(repeating: "long ", count: 100))"}"#.utf8))
    let torn = image.journal + long.dropLast(4)
    try #require(torn.count - image.journal.count > expected.count - image.journal.count)
    try image.place(journal: torn)
    let writer = try noteStore(image.url)
    #expect(writer.value.map(\.id) == [0, 1, 2, 3])
    try writer.append(Note(id: 77, text: "next"))
    // The torn bytes were cut off before the record was written: nothing of them follows it.
    #expect(try Data(contentsOf: image.journalURL) == expected)
    let reader = try noteStore(image.url)
    #expect(reader.value.map(\.id) == [0, 1, 2, 3, 77])
    #expect(reader.value.last == Note(id: 77, text: "next"))
    try writer.close()
    #expect(try noteStore(image.url).value.map(\.id) == [0, 1, 2, 3, 77])
  }

  @Test func aJournalCutShortByAnotherProgramIsReadAnewNotWrittenPast() throws {
    let image = try JournalImage(count: 10)
    try image.place(journal: image.journal)
    let writer = try noteStore(image.url)
    #expect(writer.value.count == 11)
    // Another program keeps only the first five records (cutting the file in place).
    #expect(truncate(image.journalURL.path, off_t(image.recordOffset(5))) == 0)
    try writer.append(Note(id: 99, text: "after"))
    #expect(try noteStore(image.url).value.map(\.id) == [0, 1, 2, 3, 4, 5, 99])
  }

  @Test func aRecordThatDoesNotDecodeLeavesAnOpenStoreAsItWas() throws {
    let image = try JournalImage(count: 3)
    try image.place(journal: image.journal)
    let writer = try noteStore(image.url)
    let before = writer.value
    #expect(before.count == 4)
    // Another version appends two records: one this version reads, one it does not.
    let handle = try FileHandle(forWritingTo: image.journalURL)
    try handle.seekToEnd()
    try handle.write(
      contentsOf: DocumentJournal.frame(.append, json: Data(#"{"id":50,"text":"ok"}"#.utf8))
        + DocumentJournal.frame(.append, json: Data(#"{"id":51,"colour":"red"}"#.utf8)))
    try handle.close()
    #expect {
      try writer.append(Note(id: 99, text: "after"))
    } throws: { error in
      guard let error = error as? DocumentError else { return false }
      return error.code == .damaged && error.journal == image.journalURL
        && error.reason.hasPrefix(
          "its journal `.notes.json.journal` can't be read: a record does"
            + " not decode")
    }
    #expect(writer.value == before)
  }

  @Test func quarantineMovesTheFileAndItsJournalAside() throws {
    let image = try JournalImage(count: 50)
    var damaged = image.journal
    damaged[image.recordOffset(16) + 20] ^= 0x01
    try image.place(journal: damaged)
    let store = try DocumentStore<[Note]>(
      .url(image.url),
      options: DocumentOptions(onDamage: .quarantine, observesOtherProcesses: false))
    #expect(store.value == [])
    let report = try #require(store.recoveredDamage)
    let file = try #require(report.quarantinedFile)
    let journal = try #require(report.quarantinedJournal)
    #expect(try Data(contentsOf: file) == image.file)
    #expect(try Data(contentsOf: journal) == damaged)
    #expect(file.lastPathComponent.hasPrefix("notes.json.damaged-"))
    #expect(journal.lastPathComponent.hasPrefix(".notes.json.journal.damaged-"))
    #expect(
      report.description
        == "Can't open document `\(image.url.path)`: its journal `.notes.json.journal` can't be"
        + " read at byte \(image.recordOffset(16)): a record is damaged and intact records follow"
        + " it. The file and its journal were moved to `\(file.path)` and `\(journal.path)` and an"
        + " empty document was started; restore them by hand.")
  }
}
