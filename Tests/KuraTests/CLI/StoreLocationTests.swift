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

@Suite("--store and KURA_STORE_URL")
struct StoreLocationTests {
  @Test(arguments: TestEngine.enabled)
  func storeOptionWinsOverTheEnvironment(_ engine: TestEngine) throws {
    let store = try freshStore(engine)
    let other = store.folder.file("other.sqlite").path
    let students = try executable("students")
    var elsewhere = store.environment
    elsewhere["KURA_STORE_URL"] = other
    let added = try run(
      students, ["add", "--name", "Luna Lovegood", "--store", store.argument],
      environment: elsewhere)
    #expect(added.status == 0, "\(added.stderr)")
    // KURA_STORE_URL alone names the other file, where there is no store yet (and reading
    // creates none).
    #expect(try run(students, ["count"], environment: elsewhere).stdout == "0\n")
    #expect(!FileManager.default.fileExists(atPath: other))
    #expect(
      try run(students, ["list", "--store", store.argument], environment: elsewhere).stdout
        == "Luna Lovegood\n")
    // KURA_STORE_URL names the store; --store, the other file.
    var here = store.environment
    here["KURA_STORE_URL"] = store.argument
    #expect(try run(students, ["list"], environment: here).stdout == "Luna Lovegood\n")
    #expect(try run(students, ["count", "--store", other], environment: here).stdout == "0\n")
    #expect(
      try run(students, ["path", "--store", other], environment: here).stdout == other + "\n")

    let wishlist = try executable("wishlist")
    // The students' store is another app's: wishlist refuses to add its tables to it.
    let foreign = try run(
      wishlist, ["trip", "add", "Kyoto", "--store", store.argument], environment: elsewhere)
    #expect(foreign.status == 1, "\(foreign.stderr)")
    #expect(try store.inspector().info().models.map(\.rows) == [1])  // Student
    let trips = try freshStore(engine)
    var tripsHere = trips.environment
    tripsHere["KURA_STORE_URL"] = trips.argument
    let trip = try run(
      wishlist, ["trip", "add", "Kyoto", "--store", trips.argument], environment: elsewhere)
    #expect(trip.status == 0, "\(trip.stderr)")
    #expect(
      try run(wishlist, ["trip", "list"], environment: elsewhere).stdout
        == "No trips yet. Add one with `wishlist trip add <name>`.\n")
    #expect(
      try run(wishlist, ["search", "kyoto"], environment: tripsHere).stdout
        .hasPrefix("trip      Kyoto"))
    #expect(
      try run(wishlist, ["recent", "--store", other], environment: tripsHere).stdout
        == "No trips yet. Add one with `wishlist trip add <name>`.\n")
    #expect(try trips.inspector().info().models.map(\.rows) == [0, 1])  // Activity, Trip
  }

  @Test(arguments: TestEngine.enabled)
  func pathSaysWhereTheStoreIs(_ engine: TestEngine) throws {
    let store = try freshStore(engine)
    for tool in ["students", "wishlist"] {
      let text = try run(
        try executable(tool), ["path", "--store", store.argument], environment: store.environment)
      #expect(text.status == 0)
      let json = try run(
        try executable(tool), ["path", "--json"],
        environment: store.environment.merging(["KURA_STORE_URL": store.argument]) { $1 })
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: String])
      switch engine {
      case .sqlite:
        #expect(text.stdout == store.argument + "\n")
        #expect(object == ["engine": "sqlite", "path": store.argument])
      case .postgres:
        let location = try PostgresLocation(store.argument)
        #expect(text.stdout == location.description + "\n")
        #expect(text.stdout.hasPrefix("database `\(location.database ?? "")` on socket `"))
        #expect(object == ["engine": "postgresql", "location": location.description])
      }
    }
  }

  @Test func unknownSchemesAreUsageErrorsThatNeverShowThePassword() throws {
    let folder = TemporaryDirectory()
    let url = "mysql://root:hunter2@db.example.com/app"
    let fix =
      ": Kura keeps a store in an SQLite file or a PostgreSQL database, and a `mysql://` URL "
      + "names neither; give a file path such as `store.sqlite`, or a PostgreSQL URL such as "
      + "`postgresql://db.example.com/app`"
    let option = try run(
      try executable("students"), ["list", "--store", url], environment: folder.environment)
    #expect(option.status == 64)
    #expect(
      option.stderr
        == "students: error: `mysql://root:•••@db.example.com/app` is not a valid value for "
        + "--store\(fix).\nSee `students list --help`.\n")
    var environment = folder.environment
    environment["KURA_STORE_URL"] = url
    let variable = try run(try executable("wishlist"), ["trip", "list"], environment: environment)
    #expect(variable.status == 64)
    #expect(
      variable.stderr
        == "wishlist: error: `mysql://root:•••@db.example.com/app` is not a valid value for the "
        + "environment variable KURA_STORE_URL\(fix) (or unset KURA_STORE_URL).\n"
        + "See `wishlist trip list --help`.\n")
    let kura = try run(try executable("kura"), ["store", "info", url], environment: environment)
    #expect(kura.status == 64)
    #expect(
      kura.stderr
        == "kura: error: `mysql://root:•••@db.example.com/app` is not a valid value for "
        + "<store>\(fix).\nSee `kura store info --help`.\n")
    // Nothing was created for it.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter {
        $0 != "home" && $0 != "kura-home"
      } == [])
  }

  @Test func unreadablePostgresLocationsAreUsageErrorsThatNeverShowThePassword() throws {
    let folder = TemporaryDirectory()
    for (tool, arguments) in [
      ("students", ["add", "--store"]), ("wishlist", ["trip", "add", "Kyoto", "--store"]),
      ("kura", ["store", "check"]),
    ] {
      for location in [
        "postgresql://alice:hunter2@[::1/app", "host=/tmp dbnam=app password=hunter2",
      ] {
        let result = try run(
          try executable(tool), arguments + [location], environment: folder.environment)
        #expect(result.status == 64, "\(tool) \(location)")
        #expect(result.stdout == "")
        #expect(!result.stderr.contains("hunter2"), "\(result.stderr)")
        #expect(result.stderr.contains("•••"), "\(result.stderr)")
        #expect(result.stderr.contains(": libpq can't read it: "), "\(result.stderr)")
      }
    }
    // An unknown option that carries a URL does not show its password either.
    let typo = try run(
      try executable("students"), ["count", "--stor=postgresql://alice:hunter2@db/app"],
      environment: folder.environment)
    #expect(typo.status == 64)
    #expect(
      typo.stderr
        == "students: error: Unknown option `--stor=postgresql://alice:•••@db/app` for "
        + "`students count`. Did you mean `--store`?\nSee `students count --help`.\n")
  }

  @Test func aLocationIsAFileUnlessItIsAPostgresURLOrConnectionString() throws {
    func location(_ text: String) throws -> StoreLocation {
      try StoreLocation(text, what: "--store", command: "test")
    }
    #expect(try location("postgresql://db.example.com/app").isPostgres)
    #expect(try location("POSTGRES://db.example.com/app").isPostgres)
    #expect(try location("host=/var/run/postgresql dbname=app").isPostgres)
    #expect(try location("  dbname = app").isPostgres)
    #expect(try location("service=kura").isPostgres)
    #expect(try location("dbname=app").name.hasPrefix("app on "))
    #expect(
      try location("postgresql://alice:hunter2@db/app").description.contains("hunter2") == false)
    // Anything else is a file, relative to the working directory.
    let cwd = FileManager.default.currentDirectoryPath
    #expect(try location("notes=old.sqlite").description == cwd + "/notes=old.sqlite")
    #expect(try location("default.store").description == cwd + "/default.store")
    #expect(try location("/tmp/a b.sqlite").description == "/tmp/a b.sqlite")
    #expect(try location("file:///tmp/a%20b.sqlite").description == "/tmp/a b.sqlite")
    #expect(try location("/tmp/a.sqlite").name == "a.sqlite")
    #expect(throws: UsageError.self) { try location("") }
    #expect(throws: UsageError.self) { try location("file://") }
    #expect(throws: UsageError.self) { try location("sqlite://tmp/a.sqlite") }
  }
}
