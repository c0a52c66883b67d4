import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

@testable import Kura

/// Opening to read never creates or writes, at every layer: each test lists the whole file tree
/// before and after (``fileTree(_:)``).
@Suite("Reads never write: the library")
struct ReadsNeverWriteLibraryTests {
  let folder = TemporaryDirectory()

  /// Runs `body` and requires that no file or folder under the test's folder was created,
  /// removed or changed.
  @discardableResult
  func unchanged<T>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T)
    throws -> T
  {
    let before = try fileTree(folder.url)
    let result = try body()
    let after = try fileTree(folder.url)
    #expect(
      after == before, "the files changed: \(after.keys.sorted())", sourceLocation: sourceLocation)
    return result
  }

  // MARK: Preferences

  @Test func aMissingSuiteIsNotFoundAndNothingIsCreated() throws {
    let url = folder.file("missing/folder/app.sqlite")
    try unchanged {
      #expect(
        throws: PreferencesError.suiteNotFound(suite: "app", path: url.path)
      ) { try Preferences.readOnly(fileURL: url) }
    }
    #expect(throws: PreferencesError.self) {
      try Preferences.readOnly(suite: "nobody", environment: folder.environment)
    }
    #expect(try fileTree(folder.url).isEmpty)
  }

  @Test func aZeroLengthSuiteFileReadsEmptyAndStaysZeroLength() throws {
    let url = folder.file("empty.sqlite")
    try Data().write(to: url)
    let keys = try unchanged { try Preferences.readOnly(fileURL: url).keys }
    #expect(keys.isEmpty)
    #expect(try Data(contentsOf: url).isEmpty)
  }

  @Test func aDanglingLinkIsASuiteThatDoesNotExist() throws {
    let target = folder.file("elsewhere/app.sqlite")
    let link = folder.file("app.sqlite")
    try FileManager.default.createSymbolicLink(
      atPath: link.path, withDestinationPath: target.path)
    try unchanged {
      #expect(throws: PreferencesError.suiteNotFound(suite: "app", path: link.path)) {
        try Preferences.readOnly(fileURL: link)
      }
    }
    #expect(!FileManager.default.fileExists(atPath: target.deletingLastPathComponent().path))
  }

  @Test func aSuiteOpenedToReadReadsChangesNoByteAndRefusesWrites() throws {
    let url = folder.file("app.sqlite")
    do {
      let writer = try Preferences(fileURL: url)
      try writer.setValue(.string("Ramen"), forKey: "menu")
    }
    try unchanged {
      let reader = try Preferences.readOnly(fileURL: url)
      #expect(reader.value(forKey: "menu") == .string("Ramen"))
      #expect(reader.keys == ["menu"])
      do {
        try reader.setValue(.string("Soba"), forKey: "menu")
        Issue.record("a write through a read-only suite was accepted")
      } catch let error as PreferencesError {
        #expect(
          error
            == .cannotSave(
              path: url.path,
              reason:
                "the suite was opened only to read (`Preferences.readOnly`), so nothing was "
                + "written; open it with `Preferences(suite:)` to change it"))
      }
      #expect(reader.value(forKey: "menu") == .string("Ramen"))
    }
  }

  @Test func aSuiteOpenedToReadSeesAnotherWritersChanges() throws {
    let url = folder.file("shared.sqlite")
    let writer = try Preferences(fileURL: url)
    try writer.setValue(.integer(1), forKey: "count")
    let reader = try Preferences.readOnly(fileURL: url)
    #expect(reader.value(forKey: "count") == .integer(1))
    try writer.setValue(.integer(2), forKey: "count")
    #expect(reader.value(forKey: "count") == .integer(2))
  }

  // MARK: Scenes

  @Test func aSceneWithoutStateIsNilAndNothingIsCreated() throws {
    let locations = try Locations.app("notes", environment: folder.environment)
    let scene = try unchanged { try SceneState.readOnly("X", locations: locations) }
    #expect(scene == nil)
    #expect(try unchanged { try SceneState.sceneIdentifiers(locations: locations) } == [])
  }

  @Test func listingAndReadingScenesChangesNoByte() throws {
    let locations = try Locations.app("notes", environment: folder.environment)
    do {
      let scene = try SceneState("lunch", locations: locations)
      try scene.preferences.setValue(.string("Ramen"), forKey: "menu")
    }
    // A zero-length scene file (made by hand) is listed as holding nothing and stays so.
    try Data().write(to: locations.sceneStateDirectory.appendingPathComponent("blank.sqlite"))
    try unchanged {
      #expect(try SceneState.sceneIdentifiers(locations: locations) == ["lunch"])
      let scene = try #require(try SceneState.readOnly("lunch", locations: locations))
      #expect(scene.preferences.value(forKey: "menu") == .string("Ramen"))
      #expect(throws: PreferencesError.self) {
        try scene.preferences.setValue(.string("Soba"), forKey: "menu")
      }
    }
  }

  // MARK: Documents

  @Test func readingAMissingDocumentGivesTheDefaultAndCreatesNoFolder() throws {
    let location = DocumentLocation.documents(
      "notes.json", app: "notes", environment: folder.environment)
    let notes = try unchanged { try DocumentStore<[Note]>.read(location, defaultValue: []) }
    #expect(notes == [])
    #expect(try fileTree(folder.url).isEmpty)
  }

  @Test func readingADocumentAppliesItsJournalAndChangesNoByte() throws {
    let location = DocumentLocation.documents(
      "notes.json", app: "notes", environment: folder.environment)
    let store = try DocumentStore<[Note]>(location)
    try store.append(Note(id: 1, text: "one"))
    try store.append(Note(id: 2, text: "two"))
    // The second note is in the journal only, while the writer stays open.
    let notes = try unchanged { try DocumentStore<[Note]>.read(location, defaultValue: []) }
    #expect(notes == [Note(id: 1, text: "one"), Note(id: 2, text: "two")])
    try store.close()
    #expect(try unchanged { try DocumentStore<[Note]>.read(location, defaultValue: []) } == notes)
  }

  @Test func readingADamagedDocumentFailsAndMovesNothingAside() throws {
    let url = folder.file("notes.json")
    try Data("[{\"id\": 1,".utf8).write(to: url)
    try unchanged {
      #expect(throws: DocumentError.self) {
        try DocumentStore<[Note]>.read(.url(url), defaultValue: [])
      }
    }
  }

  // MARK: Model store

  @Test func aReadOnlyContainerOfAMissingZeroLengthOrLinkedStoreCreatesNothing() throws {
    let missing = folder.file("missing/folder/store.sqlite")
    let empty = folder.file("empty.sqlite")
    try Data().write(to: empty)
    let link = folder.file("link.sqlite")
    try FileManager.default.createSymbolicLink(
      atPath: link.path, withDestinationPath: folder.file("elsewhere/store.sqlite").path)
    for url in [missing, empty, link] {
      try unchanged {
        #expect(throws: StoreError.self) {
          try ModelContainer(for: Counter.self, configurations: .readOnly(url))
        }
      }
    }
  }

  @Test func readingAStoreChangesNoByte() throws {
    let url = folder.file("store.sqlite")
    do {
      let context = ModelContext(try ModelContainer(for: Counter.self, configurations: .url(url)))
      try context.insert(Counter(id: 1, value: 2.5))
      try context.save()
    }
    let counters = try unchanged {
      try ModelContext(try ModelContainer(for: Counter.self, configurations: .readOnly(url)))
        .fetch(FetchDescriptor<Counter>())
    }
    #expect(counters == [Counter(id: 1, value: 2.5)])
  }

  @Test func aReadOnlyContainerSeesEverySaveMadeBeforeEachFetch() throws {
    let url = folder.file("store.sqlite")
    let writer = ModelContext(try ModelContainer(for: Counter.self, configurations: .url(url)))
    try writer.insert(Counter(id: 1, value: 1))
    try writer.save()
    let reader = ModelContext(
      try ModelContainer(for: Counter.self, configurations: .readOnly(url)))
    for id in 2...4 {
      try writer.insert(Counter(id: id, value: Double(id)))
      try writer.save()
      #expect(try reader.fetchCount(FetchDescriptor<Counter>()) == id)
    }
  }

  @Test func aStoreOfOtherModelsIsRefusedUnlessAllowed() throws {
    let url = folder.file("store.sqlite")
    do {
      let context = ModelContext(try ModelContainer(for: Counter.self, configurations: .url(url)))
      try context.insert(Counter(id: 1, value: 2.5))
      try context.save()
    }
    for configuration in [ModelConfiguration.url(url), .readOnly(url)] {
      try unchanged {
        do {
          _ = try ModelContainer(for: Tag.self, configurations: configuration)
          Issue.record("a store of other models was opened")
        } catch let error as StoreError {
          #expect(error.code == .schemaMismatch)
          #expect(
            error.message
              == "Can't open store `store.sqlite`: it holds other models (`Counter`) and none of "
              + "these (`Tag`), so it is most likely another app's store. Nothing was changed; "
              + "choose this app's store, or set `allowsUnrelatedModels` on the configuration to "
              + "add these models to it.")
        }
      }
    }
    var allowed = ModelConfiguration.url(url)
    allowed.allowsUnrelatedModels = true
    let context = ModelContext(try ModelContainer(for: Tag.self, configurations: allowed))
    try context.insert(Tag(id: "a", color: nil))
    try context.save()
    // Now it holds one of Counter's and Tag's models each: both open it as usual.
    #expect(
      try ModelContext(try ModelContainer(for: Tag.self, configurations: .url(url))).fetchCount(
        FetchDescriptor<Tag>()) == 1)
    #expect(
      try ModelContext(try ModelContainer(for: Counter.self, configurations: .url(url))).fetchCount(
        FetchDescriptor<Counter>()) == 1)
  }

  // MARK: Identifiers

  @Test(arguments: [
    ("a\nb", "it contains a line break", "a\\u{0A}b"),
    ("-x", "it starts with `-`", "-x"),
    ("a\u{1B}b", "it contains a control character", "a\\u{1B}b"),
  ])
  func aNameWithALineBreakOrALeadingDashIsRefusedEverywhere(
    name: String, reason: String, shown: String
  ) throws {
    try unchanged {
      #expect(
        throws: LocationError.invalidIdentifier(kind: "app", identifier: name, reason: reason)
      ) {
        try Locations.app(name, environment: folder.environment)
      }
      #expect(
        "\(LocationError.invalidIdentifier(kind: "app", identifier: name, reason: reason))"
          == "Can't use app identifier `\(shown)`: \(reason). Use a reverse-DNS name such as "
          + "`com.example.app`.")
      #expect(throws: PreferencesError.invalidSuiteName(suite: name, reason: reason)) {
        try Preferences(suite: name, environment: folder.environment)
      }
      if !name.hasPrefix("-") {
        #expect(
          throws: PreferencesError.invalidSuiteName(suite: "group.\(name)", reason: reason)
        ) { try Preferences(suite: "group.\(name)", environment: folder.environment) }
      }
      let locations = try Locations.app("notes", environment: folder.environment)
      #expect(throws: PreferencesError.invalidSceneIdentifier(sceneID: name, reason: reason)) {
        try SceneState(name, locations: locations)
      }
      do {
        _ = try ModelContainer(
          for: Counter.self, configurations: .url(folder.file(name + ".sqlite")))
        Issue.record("`\(name)` was accepted as a store name")
      } catch let error as StoreError {
        #expect(error.code == .cannotOpen)
        #expect(
          error.message
            == "Can't open store `\(shown).sqlite`: \(reason). Nothing was created; choose a file "
            + "name such as `default.store`.")
      }
      do {
        _ = try DocumentStore<[Note]>(
          .documents(name, app: "notes", environment: folder.environment))
        Issue.record("`\(name)` was accepted as a document name")
      } catch let error as DocumentError {
        #expect(error.code == .invalidLocation)
        #expect(
          error.reason
            == "the file name `\(shown)` must be a plain, visible name such as `cashData.json`")
      }
    }
  }
}

/// The store test model `Tag`, not swift-testing's.
private typealias Tag = KuraEngineTestSupport.Tag
