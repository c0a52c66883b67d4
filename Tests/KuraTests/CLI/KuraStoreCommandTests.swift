import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

@testable import Kura

@Suite("kura store")
struct KuraStoreCommandTests {
  /// The `students` app's store on `engine`, with two students.
  private func makeStore(_ engine: TestEngine, _ testName: String = #function) throws -> TestStore {
    let store = try studentsStore(engine, testName)
    let students = try executable("students")
    for name in ["Harry Potter", "Luna Lovegood"] {
      #expect(
        try run(students, ["add", "--name", name], environment: store.environment).status == 0)
    }
    return store
  }

  @Test(arguments: TestEngine.enabled)
  func dumpKeepsEachRowOnOneLine(_ engine: TestEngine) throws {
    let store = try studentsStore(engine)
    let students = try executable("students")
    let name = "Tab\there\nnew line\r\nback\\slash"
    #expect(
      try run(students, ["add", "--name", name], environment: store.environment).status == 0)
    let dump = try run(
      try executable("kura"), ["store", "dump", store.argument, "Student"],
      environment: store.environment)
    #expect(dump.status == 0)
    let lines = dump.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 3)  // the header, the row, and the empty string after the last \n
    let fields = try #require(lines.dropFirst().first).split(separator: "\t")
    #expect(fields.count == 3)
    #expect(fields.dropFirst().first == #"Tab\there\nnew line\r\nback\\slash"#)
  }

  @Test(arguments: TestEngine.enabled)
  func infoDumpAndCheckDescribeTheStore(_ engine: TestEngine) throws {
    let store = try makeStore(engine)
    let kura = try executable("kura")
    let info = try run(kura, ["store", "info", store.argument], environment: store.environment)
    #expect(info.status == 0)
    let lines = info.stdout.split(separator: "\n").map(String.init)
    #expect(lines.suffix(3) == ["schema version  1", "models          1", "  Student: 2 rows"])
    let dump = try run(
      kura, ["store", "dump", store.argument, "Student", "--json"], environment: store.environment)
    struct Row: Decodable {
      var id: String
      var student: String
      var added: String
    }
    let rows = try JSONDecoder().decode([Row].self, from: Data(dump.stdout.utf8))
    #expect(rows.map(\.student).sorted() == ["Harry Potter", "Luna Lovegood"])
    #expect(rows.allSatisfy { UUID(uuidString: $0.id) != nil && $0.added.hasSuffix("Z") })
    let text = try run(
      kura, ["store", "dump", store.argument, "Student"], environment: store.environment)
    #expect(text.stdout.hasPrefix("id\tstudent\tadded\n"))
    #expect(text.stdout.split(separator: "\n").count == 3)
    let check = try run(kura, ["store", "check", store.argument], environment: store.environment)
    #expect(check.status == 0)
    switch engine {
    case .sqlite:
      #expect(lines.first == "file            \(store.argument)")
      #expect(check.stdout == "ok\n")
    case .postgres:
      let location = try PostgresLocation(store.argument)
      #expect(lines.prefix(2) == ["engine          PostgreSQL", "database        \(location)"])
      #expect(
        check.stdout
          == "ok\nnote: PostgreSQL has no integrity check like SQLite's (the server keeps its own "
          + "files): checked the metadata, each model's table and columns, references and text "
          + "keys.\n")
    }
    let json = try run(
      kura, ["store", "check", store.argument, "--json"], environment: store.environment)
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    #expect(report["ok"] as? Bool == true)
    #expect(
      (report["note"] as? String)?.hasPrefix("PostgreSQL has no integrity check")
        ?? (engine == .sqlite))
  }

  /// Runs SQL on `store` behind Kura's back: as the SQLite file's own connection with foreign
  /// keys off, or as PostgreSQL's superuser with foreign-key triggers off.
  private func tamper(_ store: TestStore, _ sql: String) throws {
    switch store.engine {
    case .sqlite:
      let connection = try Connection(path: store.argument)
      try connection.execute("PRAGMA foreign_keys = OFF; " + sql)
    case .postgres:
      #if canImport(CLibPQ)
        let connection = try PostgresConnection(store.argument)
        // Without the readable views, which keep the columns they read from being dropped.
        try connection.execute(
          "SET session_replication_role = replica; DROP SCHEMA IF EXISTS public_readable CASCADE; "
            + sql)
      #endif
    }
  }

  @Test(arguments: TestEngine.enabled)
  func checkFindsMissingColumnsAndDanglingReferences(_ engine: TestEngine) throws {
    let store = try wishlistStore(engine)
    var environment = store.environment
    environment["KURA_STORE_URL"] = store.argument
    if engine == .sqlite {
      // A store named by KURA_STORE_URL is never given folders of its own.
      try FileManager.default.createDirectory(
        at: URL(fileURLWithPath: store.argument).deletingLastPathComponent(),
        withIntermediateDirectories: true)
    }
    let wishlist = try executable("wishlist")
    for arguments in [["trip", "add", "Kyoto"], ["activity", "add", "Kyoto", "Tea ceremony"]] {
      #expect(try run(wishlist, arguments, environment: environment).status == 0)
    }
    let kura = try executable("kura")
    #expect(
      try run(kura, ["store", "check", store.argument], environment: environment).stdout
        .hasPrefix("ok\n"))
    try tamper(
      store,
      "ALTER TABLE \"Trip\" DROP COLUMN \"photoURL\"; INSERT INTO \"Activity\" (id, name, "
        + "\"isComplete\", trip, \"createdAt\") VALUES ('6A3F0000-0000-4000-8000-000000000000', "
        + "'Ghost', '0', '00000000-0000-4000-8000-000000000000', 0)")
    let check = try run(kura, ["store", "check", store.argument], environment: environment)
    #expect(check.status == 1)
    let problems = [
      "`Trip`: its table `Trip` has no column `photoURL` (Kura recorded it, but the table lacks "
        + "it).",
      "Table `Activity` has rows that refer to rows of `Trip` that do not exist.",
    ]
    switch engine {
    case .sqlite:
      #expect(check.stdout == problems.joined(separator: "\n") + "\n")
    case .postgres:
      #expect(check.stdout.hasPrefix(problems.joined(separator: "\n") + "\nnote: PostgreSQL"))
    }
  }

  @Test func infoAndSchemaDescribeTheSQLiteFile() throws {
    let store = try makeStore(.sqlite)
    let kura = try executable("kura")
    let info = try run(kura, ["store", "info", store.argument], environment: store.environment)
    #expect(info.status == 0)
    let lines = info.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == "file            \(store.argument)")
    #expect(lines.dropFirst(2) == ["schema version  1", "models          1", "  Student: 2 rows"])
    let schema = try run(kura, ["store", "schema", store.argument], environment: store.environment)
    #expect(
      schema.stdout
        == """
        Student (table Student)
          id TEXT [uuid] PRIMARY KEY
          student TEXT [text] NOT NULL
          added REAL [date] NOT NULL
          index Student_index_added (added)

        """)
  }

  @Test(arguments: TestEngine.enabled)
  func unknownModelIsAClearError(_ engine: TestEngine) throws {
    let store = try makeStore(engine)
    let unknown = try run(
      try executable("kura"), ["store", "dump", store.argument, "Trip"],
      environment: store.environment)
    #expect(unknown.status == 1)
    #expect(
      unknown.stderr
        == "kura: error: Can't dump `Trip`: the store has no such model. Its models: `Student`.\n")
  }

  @Test func missingOrForeignFilesAreClearErrors() throws {
    let folder = TemporaryDirectory()
    let kura = try executable("kura")
    let missing = folder.file("none.sqlite").path
    let absent = try run(kura, ["store", "info", missing], environment: folder.environment)
    #expect(absent.status == 1)
    #expect(
      absent.stderr
        == "kura: error: Can't open store `\(missing)`: there is no such file. Check the path.\n")
    let foreign = folder.file("cashData.json")
    try Data("[]".utf8).write(to: foreign)
    let notStore = try run(kura, ["store", "check", foreign.path], environment: folder.environment)
    #expect(notStore.status == 1)
    #expect(
      notStore.stderr
        == "kura: error: Can't open store `cashData.json`: the file is not an SQLite database. It "
        + "was left untouched; choose another file or move this one away.\n")
  }

  @Test func checkReportsADamagedStore() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("damaged.sqlite")
    do {
      let context = ModelContext(try ModelContainer(for: Counter.self, configurations: .url(url)))
      try context.transaction {
        for id in 0..<5_000 { try context.insert(Counter(id: id, value: Double(id))) }
      }
    }
    var bytes = try Data(contentsOf: url)
    let pageSize = 4096
    try #require(bytes.count > pageSize * 6)
    // Garble a page of the table's B-tree, past the schema page.
    for index in (pageSize * 4)..<(pageSize * 5) { bytes[index] = 0xA5 }
    try bytes.write(to: url)
    let result = try run(
      try executable("kura"), ["store", "check", url.path], environment: folder.environment)
    #expect(result.status == 1)
    #expect(!result.stdout.isEmpty)
    #expect(result.stdout != "ok\n")
    #expect(try Data(contentsOf: url) == bytes)
  }
}
