import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

#if canImport(CSQLite)
  import CSQLite
#else
  import SQLite3
#endif

/// A model keyed by text.
struct KeyedWord: PersistentModel, Equatable {
  var id: String
  var note: String
  static var schemaName: String { "KeyedWord" }
}

/// A model that refers to a `KeyedWord` (its key is text).
struct KeyedUse: PersistentModel, Equatable {
  var id: Int
  var word: KeyedWord.ID
  static var schemaName: String { "KeyedUse" }
  static var schema: Schema<KeyedUse> {
    Schema(.reference(\.word, to: KeyedWord.self, deleteRule: .cascade))
  }
}

/// A text id of its own type (compared by its raw value, like `String`).
struct WordID: RawRepresentable, Codable, Hashable, Sendable {
  var rawValue: String
}

/// A model keyed by a `RawRepresentable` text id.
struct KeyedEntry: PersistentModel, Equatable {
  var id: WordID
  var note: String
  static var schemaName: String { "KeyedEntry" }
}

/// A model whose reference to a `KeyedWord` keeps the word from being deleted.
struct KeyedPin: PersistentModel, Equatable {
  var id: Int
  var word: KeyedWord.ID?
  static var schemaName: String { "KeyedPin" }
  static var schema: Schema<KeyedPin> {
    Schema(.reference(\.word, to: KeyedWord.self, deleteRule: .deny))
  }
}

/// A model with an optional unique text attribute.
struct KeyedBadge: PersistentModel, Equatable {
  var id: Int
  var code: String?
  static var schemaName: String { "KeyedBadge" }
  static var schema: Schema<KeyedBadge> { Schema(.unique(\.code)) }
}

/// Composed and decomposed forms of the same text: equal by Swift's `==`, different bytes.
private let composed = "caf\u{E9}"
private let decomposed = "cafe\u{301}"

/// Writes a format-1 store holding `KeyedWord` rows: its text primary key compares bytes (no
/// collation), as format 1 declared it, through SQLite's C API.
private func writeFormatOneWords(
  _ url: URL, ids: [String], format: Int = 1, uses: [(id: Int, word: String)] = []
) throws {
  var db: OpaquePointer?
  guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK
  else {
    throw SQLiteError(code: .cannotOpen, extendedCode: 14, message: "open", sql: nil)
  }
  defer { sqlite3_close_v2(db) }
  let columns =
    #"[{"kind":"text","name":"id","optional":false},{"kind":"text","name":"note","optional":false}]"#
  let setup = """
    CREATE TABLE kura_metadata (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE kura_models (model TEXT NOT NULL PRIMARY KEY, table_name TEXT NOT NULL, \
    columns TEXT NOT NULL);
    INSERT INTO kura_metadata (key, value) VALUES ('storeFormat', '\(format)'), ('schemaVersion', '1');
    INSERT INTO kura_models (model, table_name, columns) VALUES ('KeyedWord', 'KeyedWord', '\(columns)');
    CREATE TABLE "KeyedWord" ("id" TEXT NOT NULL PRIMARY KEY, "note" TEXT NOT NULL);
    """
  let useColumns =
    #"[{"kind":"integer","name":"id","optional":false},{"kind":"text","name":"word","optional":false}]"#
  let useSetup = """
    INSERT INTO kura_models (model, table_name, columns) VALUES ('KeyedUse', 'KeyedUse', '\(useColumns)');
    CREATE TABLE "KeyedUse" ("id" INTEGER NOT NULL PRIMARY KEY, "word" TEXT NOT NULL, \
    FOREIGN KEY ("word") REFERENCES "KeyedWord" ("id") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED);
    """
  #expect(sqlite3_exec(db, setup, nil, nil, nil) == SQLITE_OK)
  var statement: OpaquePointer?
  #expect(
    sqlite3_prepare_v2(
      db, "INSERT INTO \"KeyedWord\" (id, note) VALUES (?, ?)", -1, &statement, nil)
      == SQLITE_OK)
  defer { sqlite3_finalize(statement) }
  let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
  for (index, id) in ids.enumerated() {
    sqlite3_bind_text(statement, 1, id, -1, transient)
    sqlite3_bind_text(statement, 2, "note \(index)", -1, transient)
    #expect(sqlite3_step(statement) == SQLITE_DONE, "\(String(cString: sqlite3_errmsg(db)))")
    sqlite3_reset(statement)
  }
  guard !uses.isEmpty else { return }
  #expect(sqlite3_exec(db, useSetup, nil, nil, nil) == SQLITE_OK)
  for use in uses {
    let insert = "INSERT INTO \"KeyedUse\" (id, word) VALUES (\(use.id), '\(use.word)')"
    #expect(sqlite3_exec(db, insert, nil, nil, nil) == SQLITE_OK)
  }
}

@Suite("String keys")
struct StringKeyTests {
  @Test(arguments: TestEngine.enabled)
  func equivalentIDsAreOneRow(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("words.store"))
    let container = try ModelContainer(for: KeyedWord.self, configurations: store.configuration)
    let context = ModelContext(container)
    try context.insert(KeyedWord(id: composed, note: "first"))
    _ = try context.save()
    try context.insert(KeyedWord(id: decomposed, note: "second"))
    let second = try context.save()
    // Reported as what happened: the stored row was updated.
    #expect(second.inserted(KeyedWord.self).isEmpty)
    #expect(second.updated(KeyedWord.self) == [composed])

    let fresh = ModelContext(container)
    let all = try fresh.fetch(FetchDescriptor<KeyedWord>())
    #expect(all.count == 1)
    #expect(all.first?.note == "second")
    #expect(try fresh.model(for: composed, as: KeyedWord.self)?.note == "second")
    #expect(try fresh.model(for: decomposed, as: KeyedWord.self)?.note == "second")
    let byPredicate = try fresh.fetch(
      FetchDescriptor<KeyedWord>(predicate: #Predicate { $0.id == decomposed }))
    #expect(byPredicate.map(\.note) == ["second"])
    #expect(try fresh.fetchCount(FetchDescriptor<KeyedWord>()) == 1)

    // Deleting by the other form deletes the row.
    try fresh.delete(KeyedWord(id: composed, note: "second"))
    _ = try fresh.save()
    #expect(try ModelContext(container).fetch(FetchDescriptor<KeyedWord>()).isEmpty)
  }

  @Test(arguments: TestEngine.enabled)
  func equivalentRawRepresentableIDsAreOneRow(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("entries.store"))
    let container = try ModelContainer(for: KeyedEntry.self, configurations: store.configuration)
    let context = ModelContext(container)
    try context.insert(KeyedEntry(id: WordID(rawValue: composed), note: "first"))
    _ = try context.save()
    try context.insert(KeyedEntry(id: WordID(rawValue: decomposed), note: "second"))
    _ = try context.save()
    let fresh = ModelContext(container)
    #expect(try fresh.fetch(FetchDescriptor<KeyedEntry>()).map(\.note) == ["second"])
    #expect(
      try fresh.model(for: WordID(rawValue: decomposed), as: KeyedEntry.self)?.note == "second")
    let wanted = WordID(rawValue: decomposed)
    #expect(
      try fresh.fetch(FetchDescriptor<KeyedEntry>(predicate: #Predicate { $0.id == wanted }))
        .map(\.note) == ["second"])
  }

  @Test(arguments: TestEngine.enabled)
  func equivalentIDsInOneSaveAreOneRow(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("words.store"))
    let container = try ModelContainer(for: KeyedWord.self, configurations: store.configuration)
    let context = ModelContext(container)
    try context.insert(KeyedWord(id: composed, note: "first"))
    try context.insert(KeyedWord(id: decomposed, note: "second"))
    #expect(try context.model(for: composed, as: KeyedWord.self)?.note == "second")
    _ = try context.save()
    let all = try ModelContext(container).fetch(FetchDescriptor<KeyedWord>())
    #expect(all.map(\.note) == ["second"])
  }

  @Test(arguments: TestEngine.enabled)
  func aReferenceThroughTheOtherFormHolds(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("words.store"))
    let container = try ModelContainer(
      for: [KeyedWord.self, KeyedUse.self], configurations: store.configuration)
    let context = ModelContext(container)
    try context.insert(KeyedWord(id: composed, note: "word"))
    _ = try context.save()
    // The parent is stored under the composed form; the reference uses the decomposed one.
    try context.insert(KeyedUse(id: 1, word: decomposed))
    _ = try context.save()
    #expect(
      try ModelContext(container).fetch(
        FetchDescriptor<KeyedUse>(predicate: #Predicate { $0.word == composed })
      ).map(\.id) == [1])
    // Deleting the parent (by the form it is stored under) cascades to the use, which refers to
    // it through the other form.
    try context.delete(KeyedWord(id: composed, note: "word"))
    let changes = try context.save()
    #expect(changes.deleted(KeyedUse.self) == [1])
    let check = ModelContext(container)
    #expect(try check.fetch(FetchDescriptor<KeyedWord>()).isEmpty)
    #expect(try check.fetch(FetchDescriptor<KeyedUse>()).isEmpty)
    #expect(try store.inspector().check() == [])
  }

  @Test(arguments: TestEngine.enabled)
  func aDenyingReferenceThroughTheOtherFormIsNamed(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("words.store"))
    let container = try ModelContainer(
      for: [KeyedWord.self, KeyedPin.self], configurations: store.configuration)
    let context = ModelContext(container)
    try context.insert(KeyedWord(id: composed, note: "word"))
    try context.insert(KeyedPin(id: 7, word: decomposed))
    _ = try context.save()
    try context.delete(KeyedWord(id: composed, note: "word"))
    #expect {
      _ = try context.save()
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .deleteDenied && error.model == "KeyedPin"
    }
  }

  @Test(arguments: TestEngine.enabled)
  func anOptionalUniqueStringTreatsEquivalentFormsAsOne(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("badges.store"))
    let container = try ModelContainer(for: KeyedBadge.self, configurations: store.configuration)
    let context = ModelContext(container)
    try context.insert(KeyedBadge(id: 1, code: composed))
    try context.insert(KeyedBadge(id: 2, code: nil))
    try context.insert(KeyedBadge(id: 3, code: nil))
    _ = try context.save()
    // The unique value matches the stored row: the insert updates it (which keeps its id).
    try context.insert(KeyedBadge(id: 4, code: decomposed))
    _ = try context.save()
    let badges = try ModelContext(container).fetch(
      FetchDescriptor<KeyedBadge>(sortBy: [SortDescriptor(\.id)]))
    #expect(badges.map(\.id) == [1, 2, 3])
    #expect(badges.first?.code == decomposed)
  }

  @Test func aFormatOneStoreWithTextKeysIsRebuiltOnOpen() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("old.store")
    try writeFormatOneWords(url, ids: [composed, "plain", "\u{212B}ngstr\u{F6}m"])
    // Read-only, the store reports that it needs the upgrade.
    #expect {
      _ = try ModelContainer(for: KeyedWord.self, configurations: .readOnly(url))
    } throws: { error in
      (error as? StoreError)?.code == .outdatedStore
    }
    let container = try ModelContainer(for: KeyedWord.self, configurations: .url(url))
    let context = ModelContext(container)
    #expect(try context.fetchCount(FetchDescriptor<KeyedWord>()) == 3)
    #expect(try context.model(for: decomposed, as: KeyedWord.self)?.note == "note 0")
    #expect(try context.model(for: "A\u{30A}ngstro\u{308}m", as: KeyedWord.self)?.note == "note 2")
    try context.insert(KeyedWord(id: decomposed, note: "updated"))
    _ = try context.save()
    #expect(try ModelContext(container).fetchCount(FetchDescriptor<KeyedWord>()) == 3)
    #expect(try StoreInspector(url: url).check() == [])
    // Opened again, the store is current: read-only works.
    _ = try ModelContainer(for: KeyedWord.self, configurations: .readOnly(url))
  }

  @Test func aFormatOneStoreWithReferencesToTextKeysKeepsThem() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("old.store")
    try writeFormatOneWords(
      url, ids: [composed, "plain"], uses: [(id: 1, word: composed), (id: 2, word: "plain")])
    let container = try ModelContainer(
      for: [KeyedWord.self, KeyedUse.self], configurations: .url(url))
    let context = ModelContext(container)
    #expect(try context.fetchCount(FetchDescriptor<KeyedUse>()) == 2)
    try context.delete(KeyedWord(id: decomposed, note: "note 0"))
    let changes = try context.save()
    #expect(changes.deleted(KeyedUse.self) == [1])
    #expect(try ModelContext(container).fetch(FetchDescriptor<KeyedUse>()).map(\.id) == [2])
    #expect(try StoreInspector(url: url).check() == [])
  }

  @Test func aCurrentFormatStoreWhoseTextKeyComparesBytesIsOutdated() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("byte-keys.store")
    try writeFormatOneWords(url, ids: [composed, "plain"], format: StoreSetup.storeFormat)
    // Everything else current, so only the key's comparison is out of date.
    try Connection(path: url.path).execute(SQLiteStoreEngine().historyTableSQL)
    #expect {
      _ = try ModelContainer(for: KeyedWord.self, configurations: .readOnly(url))
    } throws: { error in
      (error as? StoreError)?.code == .outdatedStore
    }
    let context = ModelContext(try ModelContainer(for: KeyedWord.self, configurations: .url(url)))
    #expect(try context.model(for: decomposed, as: KeyedWord.self)?.note == "note 0")
    _ = try ModelContainer(for: KeyedWord.self, configurations: .readOnly(url))
  }

  @Test func aFormatOneStoreWithEquivalentKeysIsRefusedUnchanged() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("old.store")
    try writeFormatOneWords(url, ids: ["plain", composed, decomposed])
    let before = try Data(contentsOf: url)
    #expect {
      _ = try ModelContainer(for: KeyedWord.self, configurations: .url(url))
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .migrationRefused && error.model == "KeyedWord"
        && error.message.contains("`id`") && error.message.contains("cafe\\u{301}")
        && error.message.contains("Nothing was changed")
    }
    #expect(try Data(contentsOf: url) == before)
  }
}
