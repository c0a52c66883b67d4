import Foundation
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Preferences on a file that is not a suite")
struct PreferencesForeignFileTests {
  /// An SQLite file made by another program, in rollback-journal mode, with nothing beside it.
  private func makeForeignFile(_ url: URL, _ sql: String) throws -> Data {
    do {
      let other = try Connection(path: url.path)
      try other.execute("PRAGMA journal_mode = DELETE")
      try other.execute(sql)
    }
    let bytes = try Data(contentsOf: url)
    #expect(bytes[18] == 1 && bytes[19] == 1)  // not WAL
    return bytes
  }

  private func listing(_ url: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
      .sorted()
  }

  @Test func anotherProgramsDatabaseIsRefusedBeforeAnythingIsWritten() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("other.sqlite")
    let before = try makeForeignFile(
      url, "CREATE TABLE invoice (id INTEGER PRIMARY KEY); CREATE TABLE customer (id)")
    #expect(throws: PreferencesError.self) { try Preferences(fileURL: url) }
    #expect(try Data(contentsOf: url) == before)
    #expect(try listing(url) == ["other.sqlite"])  // no -wal, -shm or -changes file
  }

  @Test func preferenceTableWithOtherColumnsIsRefusedWithAFittingMessage() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("prefs.sqlite")
    let before = try makeForeignFile(
      url, "CREATE TABLE kura_preference (id INTEGER PRIMARY KEY, name TEXT)")
    let reason =
      "it is another program's SQLite database (its `kura_preference` table has the columns "
      + "`id`, `name`, not `key`, `type`, `value`, `version`), not a preferences suite"
    #expect(throws: PreferencesError.cannotOpen(path: url.path, reason: reason)) {
      try Preferences(fileURL: url)
    }
    #expect(
      "\(PreferencesError.cannotOpen(path: url.path, reason: reason))"
        == "Can't open preferences `\(url.path)`: \(reason). Nothing was changed; use another suite"
        + " name, or move the file away.")
    #expect(try Data(contentsOf: url) == before)
    #expect(try listing(url) == ["prefs.sqlite"])
  }
}
