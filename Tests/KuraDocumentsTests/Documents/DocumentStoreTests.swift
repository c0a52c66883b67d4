import Foundation
import KuraTestSupport
import Observation
import Synchronization
import Testing

@testable import Kura

/// A whole-value document.
struct ThemeSettings: Codable, Sendable, Equatable {
  var theme = "dark"
  var size = 12
}

/// Opens a collection store on a file without watching other processes (tests that need the
/// watch turn it on).
func noteStore(_ url: URL, threshold: Int = 64 * 1024, watch: Bool = false) throws
  -> DocumentStore<[Note]>
{
  try DocumentStore<[Note]>(
    .url(url),
    options: DocumentOptions(observesOtherProcesses: watch, compactionThreshold: threshold))
}

@Suite("DocumentStore")
struct DocumentStoreTests {
  @Test func startsWithTheDefaultValueAndCreatesNoFileUntilAChange() throws {
    let folder = TemporaryDirectory()
    let store = try DocumentStore(
      .url(folder.file("settings.json")), defaultValue: ThemeSettings(),
      options: DocumentOptions(observesOtherProcesses: false))
    #expect(store.value == ThemeSettings())
    #expect(try fileNames(in: folder.url) == [".settings.json.lock"])
  }

  @Test func updateSavesTheWholeFileAtomically() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("settings.json")
    let store = try DocumentStore(
      .url(url), defaultValue: ThemeSettings(),
      options: DocumentOptions(observesOtherProcesses: false))
    let result = try store.update { settings -> Int in
      settings.theme = "light"
      return settings.size
    }
    #expect(result == 12)
    #expect(store.value == ThemeSettings(theme: "light", size: 12))
    let saved = try JSONDecoder().decode(ThemeSettings.self, from: Data(contentsOf: url))
    #expect(saved == ThemeSettings(theme: "light", size: 12))
    // No temporary file is left behind.
    #expect(try fileNames(in: folder.url) == [".settings.json.lock", "settings.json"])
    try store.replace(with: ThemeSettings(theme: "sepia", size: 14))
    let reopened = try DocumentStore(.url(url), defaultValue: ThemeSettings())
    #expect(reopened.value == ThemeSettings(theme: "sepia", size: 14))
  }

  @Test func aThrowingUpdateSavesNothing() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("settings.json")
    let store = try DocumentStore(.url(url), defaultValue: ThemeSettings())
    try store.replace(with: ThemeSettings(theme: "a", size: 1))
    #expect(throws: CocoaError.self) {
      try store.update { settings in
        settings.size = 99
        throw CocoaError(.userCancelled)
      }
    }
    #expect(store.value == ThemeSettings(theme: "a", size: 1))
    #expect(try JSONDecoder().decode(ThemeSettings.self, from: Data(contentsOf: url)).size == 1)
  }

  @Test func deleteRemovesTheFileAndJournalAndGoesBackToTheDefault() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.json")
    let store = try noteStore(url)
    try store.append(Note(id: 1, text: "a"))
    #expect(
      try fileNames(in: folder.url) == [".notes.json.journal", ".notes.json.lock", "notes.json"])
    try store.delete()
    #expect(store.value == [])
    #expect(try fileNames(in: folder.url) == [])
    try store.append(Note(id: 2, text: "b"))
    #expect(try noteStore(url).value == [Note(id: 2, text: "b")])
  }

  @Test func storesOpenedBeforeADeleteLockTheNewLockFile() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.json")
    let first = try noteStore(url)
    let second = try noteStore(url)
    try first.append(Note(id: 1, text: "a"))
    try first.delete()
    #expect(try fileNames(in: folder.url) == [])
    // The second store's lock was on the removed file: its next change locks the new one, which
    // a store opened now shares, so the two still exclude each other.
    try second.append(Note(id: 2, text: "b"))
    let lockPath = folder.file(".notes.json.lock").path
    #expect(FileManager.default.fileExists(atPath: lockPath), "the second store made no lock file")
    let third = try noteStore(url)
    var status = stat()
    #expect(stat(lockPath, &status) == 0)
    try third.update { notes in
      // Inside the third store's exclusive lock, the lock file is the one every store uses now.
      let descriptor = open(lockPath, O_RDONLY | O_CLOEXEC)
      defer { close(descriptor) }
      #expect(flock(descriptor, LOCK_SH | LOCK_NB) != 0)
      notes.append(Note(id: 3, text: "c"))
    }
    try first.reload()
    #expect(first.value.map(\.id) == [2, 3])
  }

  @Test func collectionChangesGoToTheJournalNotTheFile() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.json")
    let store = try noteStore(url)
    try store.append(Note(id: 1, text: "one"))
    let fileAfterFirst = try Data(contentsOf: url)
    try store.append(Note(id: 2, text: "two"))
    try store.append(Note(id: 3, text: "three"))
    try store.update(Note(id: 2, text: "TWO"))
    let removed = try store.remove(id: 1)
    #expect(removed == Note(id: 1, text: "one"))
    #expect(try store.remove(id: 42) == nil)
    // The JSON file was not rewritten: only the journal grew.
    #expect(try Data(contentsOf: url) == fileAfterFirst)
    #expect(String(decoding: fileAfterFirst, as: UTF8.self) == "[]")
    let expected = [Note(id: 2, text: "TWO"), Note(id: 3, text: "three")]
    #expect(store.value == expected)
    // Another store replays the journal.
    #expect(try noteStore(url).value == expected)
  }

  @Test func closeCompactsTheJournalIntoPlainJSON() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.json")
    let store = try noteStore(url)
    try store.append(Note(id: 1, text: "a/b"))
    try store.append(Note(id: 2, text: "高速代金"))
    try store.close()
    #expect(try fileNames(in: folder.url) == [".notes.json.lock", "notes.json"])
    let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
    let decoded = try JSONDecoder().decode([Note].self, from: Data(text.utf8))
    #expect(decoded == [Note(id: 1, text: "a/b"), Note(id: 2, text: "高速代金")])
    #expect(text.contains("\"a/b\"") && text.contains("\"高速代金\""))
    #expect(!text.contains("\n"))
    // A closed store refuses changes.
    do {
      try store.append(Note(id: 3, text: "c"))
      Issue.record("append after close succeeded")
    } catch let error as DocumentError {
      #expect(error.code == .closed)
      #expect(
        error.description
          == "Can't use document `\(url.path)`: the store was closed. Open a new store.")
    }
  }

  @Test func aSymbolicLinkIsKeptAndItsTargetReceivesTheChanges() throws {
    let folder = TemporaryDirectory()
    // The document is linked into another folder (say, a synced one), by a relative link.
    let synced = folder.url.appendingPathComponent("synced")
    try FileManager.default.createDirectory(at: synced, withIntermediateDirectories: true)
    let target = synced.appendingPathComponent("notes.json")
    try Data("[]".utf8).write(to: target)
    let link = folder.file("notes.json")
    try FileManager.default.createSymbolicLink(
      atPath: link.path, withDestinationPath: "synced/notes.json")
    let store = try noteStore(link)
    try store.append(Note(id: 1, text: "a"))
    try store.close()
    #expect(
      try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "synced/notes.json")
    #expect(
      try JSONDecoder().decode([Note].self, from: Data(contentsOf: target))
        == [Note(id: 1, text: "a")])
    // The lock sits beside the real file (every path to it shares one lock); only the link is
    // beside the link.
    #expect(try fileNames(in: synced) == [".notes.json.lock", "notes.json"])
    #expect(try fileNames(in: folder.url) == ["notes.json", "synced"])
    let reopened = try noteStore(link)
    #expect(reopened.value == [Note(id: 1, text: "a")])
  }

  @Test func theJournalIsCompactedOnceItOutgrowsTheFile() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.json")
    let store = try noteStore(url, threshold: 1024)
    for id in 0..<200 { try store.append(Note(id: id, text: "note \(id)")) }
    // Compactions happened: the file holds most entries and the journal is smaller than it.
    let file = try Data(contentsOf: url)
    let onDisk = try JSONDecoder().decode([Note].self, from: file)
    #expect(onDisk.count > 100)
    let journalSize = try Data(contentsOf: folder.file(".notes.json.journal")).count
    #expect(journalSize <= max(1024, file.count) + 64)
    #expect(try noteStore(url).value.map(\.id) == Array(0..<200))
  }

  @Test func compactOnDemand() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.json")
    let store = try noteStore(url)
    try store.append(Note(id: 7, text: "x"))
    try store.compact()
    #expect(String(decoding: try Data(contentsOf: url), as: UTF8.self) == #"[{"id":7,"text":"x"}]"#)
    #expect(try fileNames(in: folder.url) == [".notes.json.lock", "notes.json"])
  }

  @Test func duplicateAndMissingElementsAreErrors() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.json")
    let store = try noteStore(url)
    try store.append(Note(id: 1, text: "a"))
    do {
      try store.append(Note(id: 1, text: "again"))
      Issue.record("duplicate append succeeded")
    } catch let error as DocumentError {
      #expect(
        error.description
          == "Can't append to document `\(url.path)`: an element with the identifier `1` is"
          + " already there. Update it instead.")
    }
    do {
      try store.update(Note(id: 9, text: "nine"))
      Issue.record("update of a missing element succeeded")
    } catch let error as DocumentError {
      #expect(
        error.description
          == "Can't update an element of document `\(url.path)`: no element has the identifier"
          + " `9`. Append it instead.")
    }
    #expect(store.value == [Note(id: 1, text: "a")])
  }

  @Test func aTornJournalTailIsIgnoredAndCutOffByTheNextWrite() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.json")
    let journal = folder.file(".notes.json.journal")
    let writer = try noteStore(url)
    try writer.append(Note(id: 1, text: "kept"))
    try writer.append(Note(id: 2, text: "torn"))
    let file = try Data(contentsOf: url)
    let full = try Data(contentsOf: journal)
    try writer.close()
    // The image a writer killed in the middle of its second record leaves behind.
    try file.write(to: url)
    try full.dropLast(3).write(to: journal)
    let reader = try noteStore(url)
    #expect(reader.value == [Note(id: 1, text: "kept")])
    try reader.append(Note(id: 3, text: "after"))
    #expect(try noteStore(url).value == [Note(id: 1, text: "kept"), Note(id: 3, text: "after")])
  }

  @Test func aJournalLeftBehindByACompactionIsNotReplayedTwice() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.json")
    let journal = folder.file(".notes.json.journal")
    let store = try noteStore(url)
    try store.append(Note(id: 1, text: "a"))
    try store.append(Note(id: 2, text: "b"))
    try store.remove(id: 1)
    try store.append(Note(id: 1, text: "a again"))
    let oldJournal = try Data(contentsOf: journal)
    try store.close()
    // A crash between the rename of the new file and the removal of the journal leaves the
    // journal ending with the marker written just before the rename.
    let marker = DocumentJournal.compactionMarker(
      for: DocumentJournal.Base(of: try Data(contentsOf: url)))
    try (oldJournal + marker).write(to: journal)
    let reopened = try noteStore(url)
    #expect(reopened.value == [Note(id: 2, text: "b"), Note(id: 1, text: "a again")])
    #expect(reopened.recoveredDamage == nil)
    try reopened.append(Note(id: 3, text: "c"))
    #expect(
      try noteStore(url).value == [
        Note(id: 2, text: "b"), Note(id: 1, text: "a again"), Note(id: 3, text: "c"),
      ])
  }

  @Test func changesAFileReplacedByAnotherProgramLacksAreSetAsideNotDropped() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.json")
    let store = try noteStore(url)
    try store.append(Note(id: 1, text: "in the journal"))
    let journal = try Data(contentsOf: folder.file(".notes.json.journal"))
    try store.close()
    // Another program writes its own version of the file while the journal holds a change.
    try Data(#"[{"id":5,"text":"by hand"}]"#.utf8).write(to: url)
    try journal.write(to: folder.file(".notes.json.journal"))
    let reopened = try noteStore(url)
    #expect(reopened.value == [Note(id: 5, text: "by hand")])
    let report = try #require(reopened.recoveredDamage)
    let aside = try #require(report.quarantinedFile)
    #expect(report.code == .unmergedJournal)
    #expect(aside.lastPathComponent.hasPrefix(".notes.json.journal.unmerged-"))
    #expect(try Data(contentsOf: aside) == journal)
    #expect(
      report.description
        == "Can't apply the saved changes of document `\(url.path)`: another program replaced the"
        + " file after these changes were saved. They were moved to `\(aside.path)`. Merge them by"
        + " hand if they matter.")
    #expect(!FileManager.default.fileExists(atPath: folder.file(".notes.json.journal").path))
  }

  @Test func appendsFromManyThreadsAreAllKept() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.json")
    let store = try noteStore(url, threshold: 2048)
    let failures = Mutex(0)
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for index in 0..<50 {
        do {
          try store.append(Note(id: thread * 1000 + index, text: "t\(thread)"))
        } catch {
          failures.withLock { $0 += 1 }
        }
      }
    }
    #expect(failures.withLock { $0 } == 0)
    #expect(store.value.count == 200)
    #expect(Set(try noteStore(url).value.map(\.id)).count == 200)
  }

  /// The `fsync`/`fdatasync` calls a child made for each change of a document, in order: the
  /// calls before the first change's marker line, then those of each following change.
  func syncCalls(durability: String, appends: Int) throws -> [(change: String, calls: [String])] {
    let folder = TemporaryDirectory()
    let library = try preloadLibrary(syncCountingSource, named: "libsynccount", in: folder)
    let log = folder.file("calls.log")
    try Data().write(to: log)
    var environment = folder.environment
    environment["LD_PRELOAD"] = library.path
    environment["KURA_TEST_SYNC_LOG"] = log.path
    let result = try run(
      try executable("kura-testhelper"),
      [
        "document-durable-changes", folder.file("cash.json").path, durability, "\(appends)",
        log.path,
      ],
      environment: environment)
    try #require(result.status == 0, "\(result.stderr)")
    var changes: [(change: String, calls: [String])] = []
    var calls: [String] = []
    for line in try String(contentsOf: log, encoding: .utf8).split(separator: "\n") {
      if line.hasPrefix("fsync") || line.hasPrefix("fdatasync") {
        calls.append(String(line))
      } else {
        changes.append((String(line), calls))
        calls = []
      }
    }
    return changes
  }

  @Test func powerLossDurabilityFlushesEachChange() throws {
    let changes = try syncCalls(durability: "powerLoss", appends: 3)
    #expect(changes.map(\.change) == ["append", "append", "append", "update", "compact"])
    // Each appended record's data is on the disk before the change returns; a compaction
    // replaces the file: the new file, then the folder holding its name.
    for (change, calls) in changes.dropLast() {
      #expect(calls.contains("fdatasync file"), "\(change): \(calls)")
    }
    let compaction = try #require(changes.last).calls
    #expect(
      compaction.firstIndex(of: "fsync file") ?? .max < compaction.lastIndex(of: "fsync folder")
        ?? -1, "\(compaction)")
  }

  @Test func processCrashDurabilityFlushesOnlyFileReplacements() throws {
    let changes = try syncCalls(durability: "processCrash", appends: 3)
    #expect(changes.map(\.change) == ["append", "append", "append", "update", "compact"])
    // The first append writes the file (replaced atomically, flushed); the journal's records
    // after it go to the page cache only.
    for (change, calls) in changes.dropFirst().dropLast() {
      #expect(calls == [], "\(change)")
    }
    let compaction = try #require(changes.last).calls
    #expect(compaction == ["fsync file", "fsync folder"])
  }

  @Test func observationFiresOnChanges() async throws {
    let folder = TemporaryDirectory()
    let store = try noteStore(folder.file("notes.json"))
    let fired = Mutex(0)
    withObservationTracking {
      _ = store.value
    } onChange: {
      fired.withLock { $0 += 1 }
    }
    try store.append(Note(id: 1, text: "a"))
    #expect(fired.withLock { $0 } == 1)
  }

  @Test func changesYieldsEachNewValueAndEndsOnClose() async throws {
    let folder = TemporaryDirectory()
    let store = try noteStore(folder.file("notes.json"))
    let changes = store.changes
    try store.append(Note(id: 1, text: "a"))
    var iterator = changes.makeAsyncIterator()
    #expect(await iterator.next() == [Note(id: 1, text: "a")])
    try store.close()
    #expect(await iterator.next() == nil)
  }

  @Test func documentsLocationLivesInTheAppsDocumentsFolder() throws {
    let folder = TemporaryDirectory()
    let environment = folder.environment
    let store = try DocumentStore<[Note]>(
      .documents("notes.json", app: "notes", environment: environment))
    let home = try #require(environment["KURA_HOME"])
    #expect(store.url.path == home + "/apps/notes/Documents/notes.json")
    let shared = try DocumentStore<[Note]>(
      .group("group.com.example", "notes.json", environment: environment))
    #expect(shared.url.path == home + "/groups/group.com.example/notes.json")
  }

  @Test func aFolderThatCanNotBeCreatedIsReportedInOneSentence() throws {
    let folder = TemporaryDirectory()
    let blocker = folder.file("blocker")
    try Data("x".utf8).write(to: blocker)
    let environment = ["KURA_HOME": blocker.path]
    do {
      _ = try DocumentStore<[Note]>(
        .documents("notes.json", app: "notes", environment: environment))
      Issue.record("a document opened under a file")
    } catch let error as DocumentError {
      #expect(error.code == .invalidLocation)
      #expect(
        error.description
          == "Can't use `\(blocker.path)/apps/notes/Documents/notes.json` as a document: can't"
          + " create `\(blocker.path)`: a file of that name is in the way. Move that file away.")
    }
  }

  @Test func aHiddenOrPathFileNameIsRejected() throws {
    let folder = TemporaryDirectory()
    for name in ["", ".notes.json", "a/b.json"] {
      do {
        _ = try DocumentStore<[Note]>(
          .documents(name, app: "notes", environment: folder.environment))
        Issue.record("`\(name)` was accepted")
      } catch let error as DocumentError {
        #expect(error.code == .invalidLocation)
        #expect(
          error.reason
            == "the file name `\(name)` must be a plain, visible name such as `cashData.json`")
      }
    }
  }
}
