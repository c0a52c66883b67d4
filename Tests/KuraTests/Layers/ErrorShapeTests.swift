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

private struct Ledger: PersistentModel {
  var id = UUID()
  var title: String
}

private struct Nickname: PersistentModel {
  var id = UUID()
  var nickname: String?
}

/// Every public error type has the same shape: a `code` to match in `catch … where`, the input
/// it concerns, a message naming the input and the fix, and the error underneath. Each test
/// causes a real failure (real files, a real SQLite database) and reads all four.
@Suite("One error shape")
struct ErrorShapeTests {
  /// A file name longer than any file system allows (255 bytes): refused by the kernel itself,
  /// whoever runs the test (root too).
  static let overlongName = String(repeating: "n", count: 300)

  @Test func preferencesErrorCarriesCodePathAndSQLiteErrorUnderneath() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("garbage.sqlite")
    try Data(repeating: 0x41, count: 4096).write(to: url)
    do {
      _ = try Preferences(fileURL: url)
      Issue.record("a file that is not a database opened as a suite")
    } catch let error as PreferencesError where error.code == .cannotOpen {
      #expect(error.path == url.path)
      #expect(error.reason == "file is not a database")
      let sqlite = try #require(error.underlying as? SQLiteError)
      #expect(sqlite.code == .notADatabase)
      #expect(
        error.description
          == "Can't open preferences `\(url.path)`: file is not a database. Nothing was changed;"
          + " move the file away to start the suite afresh, or restore it from a backup.")
    }
  }

  @Test func locationErrorCarriesCodePathAndPOSIXErrorUnderneath() throws {
    let folder = TemporaryDirectory()
    let url = folder.file(Self.overlongName)
    do {
      try Locations.ensureDirectory(url)
      Issue.record("a folder with a 300-byte name was created")
    } catch let error as LocationError where error.code == .cannotCreate {
      #expect(error.path == url.path)
      let posix = try #require(error.underlying as? POSIXError)
      #expect(posix.code == .ENAMETOOLONG)
      #expect(error.reason == String(cString: strerror(ENAMETOOLONG)))
      #expect(
        error.description
          == "Can't create `\(url.path)`: \(String(cString: strerror(ENAMETOOLONG))). Check that"
          + " its parent folder is writable.")
    }
  }

  @Test func preferencesErrorWrapsTheLocationErrorOfItsFolder() throws {
    let folder = TemporaryDirectory()
    let url = folder.file(Self.overlongName).appendingPathComponent("app.sqlite")
    do {
      _ = try Preferences(fileURL: url)
      Issue.record("a suite opened under a folder that can't exist")
    } catch let error as PreferencesError where error.code == .cannotOpen {
      let location = try #require(error.underlying as? LocationError)
      #expect(location.code == .cannotCreate)
      #expect((location.underlying as? POSIXError)?.code == .ENAMETOOLONG)
      #expect(error.path == url.path)
    }
  }

  @Test func documentErrorCarriesCodeFileAndDecodingErrorUnderneath() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.json")
    try Data("[1, 2,".utf8).write(to: url)
    do {
      _ = try DocumentStore<[Int]>(.url(url), defaultValue: [])
      Issue.record("a truncated document opened")
    } catch let error as DocumentError where error.code == .damaged {
      #expect(error.file.lastPathComponent == "notes.json")
      #expect(error.underlying is DecodingError)
      #expect(error.description.hasPrefix("Can't open document `\(error.file.path)`: line 1"))
      #expect(error.description.hasSuffix(" Fix or remove the file; nothing was changed."))
    }
  }

  @Test func documentErrorCarriesThePOSIXErrorOfAFailedSystemCall() throws {
    let folder = TemporaryDirectory()
    let url = folder.file(Self.overlongName + ".json")
    do {
      _ = try DocumentStore<[Int]>(.url(url), defaultValue: [])
      Issue.record("a document with a 305-byte name opened")
    } catch let error as DocumentError where error.code == .cannotWrite {
      // The first file it makes is its lock, `.<name>.lock` beside it.
      let lock = url.deletingLastPathComponent().appendingPathComponent(
        ".\(url.lastPathComponent).lock")
      #expect(error.file == url)
      #expect((error.underlying as? POSIXError)?.code == .ENAMETOOLONG)
      #expect(
        error.reason == "open `\(lock.path)` failed: \(String(cString: strerror(ENAMETOOLONG)))")
      #expect(
        error.description
          == "Can't save document `\(url.path)`: \(error.reason). Check that the folder is"
          + " writable and the disk has space; the document on disk is unchanged.")
    }
  }

  @Test func storeErrorCarriesCodeURLAndTheEngineErrorUnderneath() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("ledger.sqlite")
    try Data(repeating: 0x41, count: 4096).write(to: url)
    do {
      _ = try ModelContainer(for: Ledger.self, configurations: .url(url))
      Issue.record("a file that is not a database opened as a store")
    } catch let error as StoreError where error.code == .notAStore {
      #expect(error.url == url)
      let sqlite = try #require(error.underlying as? SQLiteError)
      #expect(sqlite.code == .notADatabase)
      #expect(
        error.description
          == "Can't open store `ledger.sqlite`: the file is not an SQLite database. It was left"
          + " untouched; choose another file or move this one away.")
    }
  }

  @Test func storeErrorCarriesThePostgresErrorOfABadConnectionString() throws {
    do {
      _ = try ModelConfiguration.postgres(connectionString: "host='unterminated")
      Issue.record("an unterminated connection string was accepted")
    } catch let error as StoreError where error.code == .cannotOpen {
      let postgres = try #require(error.underlying as? PostgresError)
      #expect(postgres.code == .invalidLocation)
      #expect(postgres.underlying == nil)
      #expect(
        error.description
          == "Can't use the PostgreSQL connection string: \(postgres.message). Check its syntax.")
    }
  }

  @Test func sqliteErrorCarriesCodeAndSQL() throws {
    let folder = TemporaryDirectory()
    let connection = try Connection(path: folder.file("plain.sqlite").path)
    try connection.execute("CREATE TABLE trip (name TEXT NOT NULL)")
    do {
      try connection.execute("INSERT INTO trip (name) VALUES (NULL)")
      Issue.record("NULL went into a NOT NULL column")
    } catch let error as SQLiteError where error.code == .constraint {
      #expect(error.sql == "INSERT INTO trip (name) VALUES (NULL)")
      #expect(error.underlying == nil)
      #expect(
        error.description
          == "SQLite error 19 (constraint): NOT NULL constraint failed: trip.name — while"
          + " executing `INSERT INTO trip (name) VALUES (NULL)`")
    }
  }

  @Test func equalityComparesTheFailureNotWhatIsUnderneath() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("garbage.sqlite")
    try Data(repeating: 0x41, count: 4096).write(to: url)
    #expect(
      throws: PreferencesError.cannotOpen(path: url.path, reason: "file is not a database")
    ) {
      try Preferences(fileURL: url)
    }
    #expect(
      PreferencesError.keyNotFound(key: "k", suite: "app")
        != PreferencesError.keyNotFound(key: "k", suite: "other"))
  }

  @Test func anInMemorySuiteWhoseDatabaseCantBeCreatedReadsDefaultsAndRefusesWrites() throws {
    let folder = TemporaryDirectory()
    // A real SQLite failure in place of the in-memory database's (out of memory can't be
    // caused on purpose): a file in a folder that does not exist.
    let missing = folder.file("missing/suite.sqlite").path
    let preferences = Preferences.memoryBacked(
      deferredOpen: nil, openDatabase: { try DatabasePool(path: missing) })
    let key = Preferences.Key<Int>("launchCount", default: 7)
    #expect(preferences[key] == 7)
    #expect(!preferences.contains(key))
    do {
      try preferences.set(8, for: key)
      Issue.record("a write to a suite without a database was accepted")
    } catch let error as PreferencesError where error.code == .cannotOpen {
      #expect(error.path == "in-memory suite")
      let sqlite = try #require(error.underlying as? SQLiteError)
      #expect(sqlite.code == .cannotOpen)
      #expect(
        error.description.hasPrefix(
          "Can't open preferences `in-memory suite`: SQLite can't create it (\(sqlite.message))."))
    }
    #expect(preferences[key] == 7)
  }

  @Test func anEngineErrorNoOtherCodeClassifiesIsCodedEngineWithTheDriverErrorUnderneath() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("ledger.sqlite")
    let container = try ModelContainer(for: Ledger.self, configurations: .url(url))
    // A trigger of the app's own that refuses every insert: an SQLite error that is neither a
    // damaged file nor a constraint Kura checks itself.
    let connection = try Connection(path: url.path)
    try connection.execute(
      "CREATE TRIGGER refuse BEFORE INSERT ON \"Ledger\" BEGIN SELECT RAISE(ABORT, 'closed'); END")
    let context = ModelContext(container)
    try context.insert(Ledger(title: "rent"))
    do {
      try context.save()
      Issue.record("an insert the trigger refuses was saved")
    } catch let error as StoreError {
      #expect(error.code == .engine)
      #expect(error.url == url)
      let sqlite = try #require(error.underlying as? SQLiteError)
      #expect(sqlite.code == .constraint)
      #expect(sqlite.message == "closed")
      #expect(error.description.hasPrefix("Can't save to store `ledger.sqlite`: "))
    }
  }

  @Test func aLiveQueryWhoseFetchThrowsInMemoryReportsUnsupportedQueryNotAnEngine() throws {
    let folder = TemporaryDirectory()
    let container = try ModelContainer(
      for: Nickname.self, configurations: .url(folder.file("nicknames.sqlite")))
    let context = ModelContext(container)
    try context.insert(Nickname(nickname: "Ken"))
    try context.save()
    // `!` runs in memory and throws on nil: no engine is involved in that failure.
    let query = try LiveQuery(
      FetchDescriptor<Nickname>(predicate: #Predicate { $0.nickname! == "Ken" }), in: container)
    #expect(query.models.map(\.nickname) == ["Ken"])
    try context.insert(Nickname(nickname: nil))
    try context.save()
    do {
      try query.refresh()
      Issue.record("a fetch that force-unwraps nil succeeded")
    } catch let error as StoreError {
      #expect(error.code == .unsupportedQuery)
      let underlying = try #require(error.underlying)
      #expect(!(underlying is StoreError) && !(underlying is SQLiteError))
      #expect(
        error.description
          == "Can't refresh a live query of `Nickname`: its fetch threw \(underlying). Fix the "
          + "predicate or sort that throws; the next change fetches again.")
      #expect(query.error == error)
    }
  }

  @Test func storeAndSyncErrorsCompareTheFailureNotWhatIsUnderneath() {
    let underneath = SQLiteError(
      code: .busy, extendedCode: 5, message: "database is locked", sql: nil)
    #expect(
      StoreError(.engine, model: "Ledger", underlying: underneath, message: "Can't save.")
        == StoreError(.engine, model: "Ledger", message: "Can't save."))
    #expect(
      StoreError(.engine, model: "Ledger", message: "Can't save.")
        != StoreError(.busy, model: "Ledger", message: "Can't save."))
    let offline = SyncError(.offline, message: "Can't reach the sync server.")
    #expect(
      SyncError(.offline, message: "Can't reach the sync server.", underlying: underneath)
        == offline)
    #expect(
      Set([
        offline,
        SyncError(.offline, message: "Can't reach the sync server.", underlying: underneath),
      ]).count == 1)
  }

  @Test func syncErrorOfAnUnreachableServerCarriesTheTransportErrorUnderneath() async throws {
    let folder = TemporaryDirectory()
    // A port nothing listens on: bound (connections to it are refused) and held until the
    // test ends. Closed at once, it was free for the next listener of another test to be given
    // (a full run once had this test's sync answered by another test's refusing server).
    let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(socket >= 0)
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
      }
    }
    try #require(bound)
    let server = try #require(
      URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"))
    var configuration = ModelConfiguration.url(folder.file("ledger.store"))
    var settings = SyncSettings(server: server, space: "family", token: "token")
    settings.pollInterval = .seconds(3600)
    settings.waitForChanges = nil
    configuration.sync = settings
    let container = try ModelContainer(for: Ledger.self, configurations: configuration)
    let sync = try SyncEngine(container: container)
    defer { sync.stop() }
    do {
      try await sync.syncNow()
      Issue.record("a sync with a server that refuses connections succeeded")
    } catch let error as SyncError {
      #expect(error.code == .offline)
      let transport = try #require(error.underlying)
      #expect(transport is URLError)
      #expect(error.message.hasPrefix("Can't reach the sync server at \(server.absoluteString) ("))
    }
  }
}
