import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

/// Version 1 of a model, and a later version with one more property, stored in the same table.
private struct NoteV1: PersistentModel {
  var id = UUID()
  var text: String
  static var schemaName: String { "Note" }
}

private struct NoteV2: PersistentModel {
  var id = UUID()
  var text: String
  var pinned: Bool
  static var schemaName: String { "Note" }
}

private struct NoteV3: PersistentModel {
  var id = UUID()
  var text: Int
  static var schemaName: String { "Note" }
}

@Suite("Store files")
struct StoreFileTests {
  @Test func createsMissingFoldersAndReopensTheStore() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("Documents/SQlite3/SwiftUICDSave2.sqlite")
    let note = NoteV1(text: "hello")
    do {
      let context = ModelContext(try ModelContainer(for: NoteV1.self, configurations: .url(url)))
      try context.insert(note)
      try context.save()
    }
    #expect(FileManager.default.fileExists(atPath: url.path))
    let context = ModelContext(try ModelContainer(for: NoteV1.self, configurations: .url(url)))
    #expect(try context.model(for: note.id, as: NoteV1.self)?.text == "hello")
  }

  @Test func defaultConfigurationUsesTheAppDataFolder() throws {
    let folder = TemporaryDirectory()
    let locations = try Locations.app("kura-tests", environment: folder.environment)
    #expect(
      locations.defaultStoreURL.path
        == folder.url.appendingPathComponent("kura-home/apps/kura-tests/Data/default.store").path)
  }

  @Test(arguments: TestEngine.enabled)
  func storeMadeForAnUnmigratableModelVersionIsRefusedNamingTheProperty(_ engine: TestEngine)
    throws
  {
    let store = try freshStore(engine, sqlite: .file("notes.sqlite"))
    do {
      let context = ModelContext(
        try ModelContainer(for: NoteV1.self, configurations: store.configuration))
      try context.insert(NoteV1(text: "kept"))
      try context.save()
    }
    let before = try store.contents()
    #expect {
      _ = try ModelContainer(for: NoteV2.self, configurations: store.configuration)
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .migrationRefused && error.model == "NoteV2"
        && error.property == "pinned"
        && error.message.hasPrefix(
          "Can't migrate store `\(store.name)`: `NoteV2.pinned` is new, is not optional and has "
            + "no default value, so the stored rows would have no value for it. Nothing was "
            + "changed.")
    }
    #expect {
      _ = try ModelContainer(for: NoteV3.self, configurations: store.configuration)
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .migrationRefused && error.property == "text"
        && error.message.hasPrefix(
          "Can't migrate store `\(store.name)`: `NoteV3.text` changed from text to integer, "
            + "which is not a widening, so stored values could be lost. Nothing was changed.")
    }
    #expect(try store.contents() == before)
    let context = ModelContext(
      try ModelContainer(for: NoteV1.self, configurations: store.configuration))
    #expect(try context.fetch(FetchDescriptor<NoteV1>()).map(\.text) == ["kept"])
  }

  @Test func aStoreForAnUnmigratableModelVersionIsLeftByteIdentical() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.sqlite")
    do {
      let context = ModelContext(try ModelContainer(for: NoteV1.self, configurations: .url(url)))
      try context.insert(NoteV1(text: "kept"))
      try context.save()
    }
    let before = try Data(contentsOf: url)
    expectStoreError(.migrationRefused) {
      _ = try ModelContainer(for: NoteV2.self, configurations: .url(url))
    }
    expectStoreError(.migrationRefused) {
      _ = try ModelContainer(for: NoteV3.self, configurations: .url(url))
    }
    #expect(try Data(contentsOf: url) == before)
  }

  @Test func tableKuraDidNotMakeIsRefusedNotMigrated() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("foreign.sqlite")
    let id = UUID()
    do {
      let connection = try Connection(path: url.path)
      try connection.execute(
        "CREATE TABLE Note (id TEXT NOT NULL PRIMARY KEY, text TEXT NOT NULL, ZEXTRA INTEGER)")
      try connection.run(
        "INSERT INTO Note VALUES (?, 'kept', 7)", [.text(id.uuidString)])
    }
    let before = try Data(contentsOf: url)
    #expect {
      _ = try ModelContainer(for: NoteV1.self, configurations: .url(url))
    } throws: { error in
      (error as? StoreError)?.code == .notAStore
    }
    #expect(try Data(contentsOf: url) == before)
    let columns = try Connection(path: url.path).query("SELECT name FROM pragma_table_info('Note')")
    { $0.string(at: 0) }
    #expect(columns == ["id", "text", "ZEXTRA"])
  }

  @Test func fileThatIsNotSQLiteIsReportedAndLeftUntouched() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("cashData.json")
    let content = Data(#"[{"id":"3F4D8393-8D86-4C81-AFB9-1854A5E38BDC","cash":2800}]"#.utf8)
    try content.write(to: url)
    #expect {
      _ = try ModelContainer(for: NoteV1.self, configurations: .url(url))
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .notAStore && error.url == url
        && error.message
          == "Can't open store `cashData.json`: the file is not an SQLite database. It was left "
          + "untouched; choose another file or move this one away."
    }
    #expect(try Data(contentsOf: url) == content)
  }

  @Test func unreadableModelRecordIsADamagedStoreNotADecodingError() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.store")
    do {
      let context = ModelContext(try ModelContainer(for: NoteV1.self, configurations: .url(url)))
      try context.insert(NoteV1(text: "kept"))
      try context.save()
    }
    do {
      let connection = try Connection(path: url.path)
      try connection.execute("UPDATE kura_models SET columns = 'garbage'")
    }
    #expect {
      _ = try ModelContainer(for: NoteV1.self, configurations: .url(url))
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .damaged && error.model == "NoteV1" && error.url == url
        && error.message
          == "Can't open store `notes.store`: its record of model `NoteV1` (table `kura_models`) is"
          + " not readable. The file was left untouched; restore it from a backup, or check it"
          + " with `kura store check`."
    }
    let connection = try Connection(path: url.path)
    #expect(try connection.query("SELECT text FROM Note") { $0.string(at: 0) } == ["kept"])
  }

  @Test func damagedStoreIsReportedAndLeftUntouched() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("damaged.sqlite")
    do {
      let context = ModelContext(try ModelContainer(for: NoteV1.self, configurations: .url(url)))
      try context.transaction {
        for number in 0..<2_000 { try context.insert(NoteV1(text: "note \(number)")) }
      }
    }
    var bytes = try Data(contentsOf: url)
    // Keep the 100-byte header, garble the rest of the first page (the schema) and page 3.
    for index in 100..<4096 { bytes[index] = 0x5A }
    for index in 8192..<12288 where index < bytes.count { bytes[index] = 0xA5 }
    try bytes.write(to: url)
    #expect {
      let context = ModelContext(try ModelContainer(for: NoteV1.self, configurations: .url(url)))
      _ = try context.fetch(FetchDescriptor<NoteV1>())
    } throws: { error in
      let error = try #require(error as? StoreError)
      return (error.code == .damaged || error.code == .notAStore) && error.url == url
    }
    #expect(try Data(contentsOf: url) == bytes)
  }
}
