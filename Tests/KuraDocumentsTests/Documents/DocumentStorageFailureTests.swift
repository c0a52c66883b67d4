import Foundation
import KuraTestSupport
import Observation
import Synchronization
import Testing

@testable import Kura

/// Whether `store.value` changes (for Observation observers) while `body` runs.
private func observesChange(_ store: DocumentStore<[Note]>, _ body: () throws -> Void) rethrows
  -> Bool
{
  let fired = Mutex(false)
  withObservationTracking {
    _ = store.value
  } onChange: {
    fired.withLock { $0 = true }
  }
  try body()
  return fired.withLock { $0 }
}

@Suite("Documents when storage fails")
struct DocumentStorageFailureTests {
  @Test func anAppendThatWasStoredSucceedsWhenCompactionFindsTheDiskFull() throws {
    let disk = try SmallFileSystem.mount(size: 1024 * 1024)
    let url = disk.file("notes.json")
    let store = try noteStore(url, threshold: 0)
    try store.append(Note(id: 1, text: "small"))
    #expect(try fileNames(in: disk.url) == [".notes.json.lock", "notes.json"])
    // Room for the journal record (three pages), not for the file rewrite that follows it.
    try disk.fill(leaving: 3 * 4096)
    let big = Note(id: 2, text: String(repeating: "x", count: 9000))
    let observed = try observesChange(store) { try store.append(big) }
    #expect(observed)
    #expect(store.value == [Note(id: 1, text: "small"), big])
    #expect(try noteStore(url).value == [Note(id: 1, text: "small"), big])
    #expect(
      try fileNames(in: disk.url) == [
        ".notes.json.journal", ".notes.json.lock", "filler", "notes.json",
      ])
    #expect {
      try store.append(big)
    } throws: { ($0 as? DocumentError)?.code == .duplicateElement }
    // Closing on the full disk can't compact: nothing is lost, and it says so.
    #expect {
      try store.close()
    } throws: { error in
      guard let error = error as? DocumentError else { return false }
      return error.code == .compactionFailed
        && error.description.contains("No change was lost: they are kept in its journal")
    }
    disk.empty()
    let reopened = try noteStore(url)
    #expect(reopened.value == [Note(id: 1, text: "small"), big])
    try reopened.close()
    #expect(try fileNames(in: disk.url) == [".notes.json.lock", "notes.json"])
  }

  @Test func anAppendThatFailsOnAFullDiskLeavesNothing() throws {
    let disk = try SmallFileSystem.mount(size: 1024 * 1024)
    let url = disk.file("notes.json")
    let store = try noteStore(url)
    try store.append(Note(id: 1, text: "first"))
    let journal = try Data(contentsOf: disk.file(".notes.json.journal"))
    try disk.fill(leaving: 0)
    let big = Note(id: 2, text: String(repeating: "y", count: 20_000))
    let observed = observesChange(store) {
      #expect {
        try store.append(big)
      } throws: { error in
        guard let error = error as? DocumentError else { return false }
        return error.code == .cannotWrite && error.description.contains("No space left on device")
      }
    }
    #expect(!observed)
    #expect(try Data(contentsOf: disk.file(".notes.json.journal")) == journal)
    #expect(store.value == [Note(id: 1, text: "first")])
    #expect(try noteStore(url).value == [Note(id: 1, text: "first")])
    disk.empty()
    try store.append(big)
    #expect(try noteStore(url).value == [Note(id: 1, text: "first"), big])
  }

  @Test func changesKeptInTheJournalOfAnImmutableFileAreNotReportedAsFailures() throws {
    try ImmutableFlag.requireSupport()
    let folder = TemporaryDirectory()
    let url = folder.file("notes.json")
    let first = try noteStore(url)
    try first.append(Note(id: 1, text: "a"))
    try first.close()
    try ImmutableFlag.set(on: url)
    defer { try? ImmutableFlag.clear(on: url) }
    let store = try noteStore(url)
    try store.append(Note(id: 2, text: "b"))
    #expect(try noteStore(url).value == [Note(id: 1, text: "a"), Note(id: 2, text: "b")])
    #expect {
      try store.close()
    } throws: { error in
      guard let error = error as? DocumentError else { return false }
      return error.code == .compactionFailed
        && error.description
          == "Can't write the saved changes of document `\(url.path)` into the file: rename"
          + " `\(url.path)` failed: Operation not permitted. No change was lost: they are kept in"
          + " its journal `\(folder.file(".notes.json.journal").path)` and applied on the next"
          + " open. Check that the file and its folder are writable and the disk has space."
    }
    try ImmutableFlag.clear(on: url)
    try noteStore(url).close()
    let saved = try JSONDecoder().decode([Note].self, from: Data(contentsOf: url))
    #expect(saved == [Note(id: 1, text: "a"), Note(id: 2, text: "b")])
  }

  @Test func aChangeLargerThanAJournalRecordRewritesTheFileAndIsReadBack() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.json")
    let store = try noteStore(url, threshold: 1 << 30)
    try store.append(Note(id: 1, text: "small"))
    // Its JSON is just over the 64 MiB a journal record holds.
    let large = Note(id: 2, text: String(repeating: "z", count: DocumentJournal.maximumPayload))
    try store.append(large)
    let journal = folder.file(".notes.json.journal")
    #expect(!FileManager.default.fileExists(atPath: journal.path))
    #expect(
      try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0 > 1 << 26)
    let reader = try noteStore(url)
    #expect(reader.value.map(\.id) == [1, 2])
    #expect(reader.value.last?.text.count == DocumentJournal.maximumPayload)
    try store.append(Note(id: 3, text: "after"))
    #expect(try noteStore(url).value.map(\.id) == [1, 2, 3])
  }
}
