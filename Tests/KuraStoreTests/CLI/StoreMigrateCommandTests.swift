import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

@Suite("kura store migrate")
struct StoreMigrateCommandTests {
  private func schemaJSON(_ store: TestStore) throws -> [[String: Any]] {
    let result = try run(
      try executable("kura"), ["store", "schema", "--json", store.argument],
      environment: store.environment)
    try #require(result.status == 0, "\(result.stderr)")
    let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    return try #require(json as? [[String: Any]])
  }

  @Test(arguments: TestEngine.enabled)
  func migratesToAnEditedSchemaKeepingRowsAndReferences(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("trips.store"))
    let (kyoto, nara, _) = try writeV1Store(store)
    var models = try schemaJSON(store)
    // Trip: rename name → title, add rating (default 3), drop notes.
    let tripIndex = try #require(models.firstIndex { $0["model"] as? String == "Trip" })
    var columns = try #require(models[tripIndex]["columns"] as? [[String: Any]])
    columns.removeAll { $0["name"] as? String == "notes" }
    for index in columns.indices where columns[index]["name"] as? String == "name" {
      columns[index]["name"] = "title"
      columns[index]["renamedFrom"] = "name"
    }
    columns.append(["name": "rating", "kind": "integer", "nullable": false, "default": 3])
    models[tripIndex]["columns"] = columns
    let schemaFile = store.folder.file("target.json")
    try JSONSerialization.data(withJSONObject: models).write(to: schemaFile)
    let kura = try executable("kura")
    // `notes` holds values: dropping it needs --allow-data-loss, and without it nothing changes.
    let before = try store.contents()
    let refused = try run(
      kura, ["store", "migrate", store.argument, "--schema", schemaFile.path],
      environment: store.environment)
    #expect(refused.status == 1)
    #expect(
      refused.stderr.hasPrefix(
        "kura: error: Can't open store `\(store.name)` for model `Trip`: its table `Trip` has column "
          + "`notes` holding values"))
    #expect(refused.stderr.contains("--allow-data-loss"))
    #expect(try store.contents() == before)
    let result = try run(
      kura, ["store", "migrate", store.argument, "--schema", schemaFile.path, "--allow-data-loss"],
      environment: store.environment)
    #expect(result.status == 0)
    #expect(result.stdout == "Migrated \(store.name) to the models in target.json.\n")
    #expect(result.stderr == "")  // not a terminal: no progress bar
    struct Trip: PersistentModel {
      var id: UUID
      var title: String
      var days: Int
      var favorite: Bool
      var budget: Int?
      var rating: Int
    }
    let context = ModelContext(
      try ModelContainer(for: Trip.self, configurations: store.configuration))
    let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.title)]))
    #expect(trips.map(\.id) == [kyoto.id, nara.id])
    #expect(trips.map(\.title) == ["Kyoto", "Nara Park"])
    #expect(trips.map(\.rating) == [3, 3])
    let again = try run(
      kura, ["store", "migrate", store.argument, "--schema", schemaFile.path],
      environment: store.environment)
    #expect(again.stdout == "Nothing to migrate: \(store.name) already matches the models.\n")
  }

  /// Writes the store's schema with `Trip.country` added (new, required, no default) to a file.
  private func schemaAddingCountry(_ store: TestStore) throws -> URL {
    var models = try schemaJSON(store)
    let tripIndex = try #require(models.firstIndex { $0["model"] as? String == "Trip" })
    var columns = try #require(models[tripIndex]["columns"] as? [[String: Any]])
    columns.append(["name": "country", "kind": "text", "nullable": false])
    models[tripIndex]["columns"] = columns
    let schemaFile = store.folder.file("target.json")
    try JSONSerialization.data(withJSONObject: models).write(to: schemaFile)
    return schemaFile
  }

  @Test func refusedChangesLeaveTheSQLiteFileByteIdentical() throws {
    let store = try freshStore(.sqlite, sqlite: .file("trips.store"))
    _ = try writeV1Store(store)
    let url = URL(fileURLWithPath: store.argument)
    let before = try Data(contentsOf: url)
    // A new required column, and (without --allow-data-loss) dropping one that holds values.
    var models = try schemaJSON(store)
    let tripIndex = try #require(models.firstIndex { $0["model"] as? String == "Trip" })
    var columns = try #require(models[tripIndex]["columns"] as? [[String: Any]])
    columns.removeAll { $0["name"] as? String == "notes" }
    models[tripIndex]["columns"] = columns
    let withoutNotes = store.folder.file("without-notes.json")
    try JSONSerialization.data(withJSONObject: models).write(to: withoutNotes)
    for schemaFile in [try schemaAddingCountry(store), withoutNotes] {
      let result = try run(
        try executable("kura"), ["store", "migrate", store.argument, "--schema", schemaFile.path],
        environment: store.environment)
      #expect(result.status == 1)
      #expect(try Data(contentsOf: url) == before, "\(schemaFile.lastPathComponent)")
    }
  }

  @Test(arguments: TestEngine.enabled)
  func refusedChangeExitsWithTheReasonAndChangesNothing(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("trips.store"))
    _ = try writeV1Store(store)
    let schemaFile = try schemaAddingCountry(store)
    let before = try store.contents()
    let result = try run(
      try executable("kura"), ["store", "migrate", store.argument, "--schema", schemaFile.path],
      environment: store.environment)
    #expect(result.status == 1)
    #expect(
      result.stderr.hasPrefix(
        "kura: error: Can't migrate store `\(store.name)`: `Trip.country` is new, is not optional "
          + "and has no default value, so the stored rows would have no value for it. Nothing "
          + "was changed."))
    #expect(try store.contents() == before)
    let missing = try run(
      try executable("kura"), ["store", "migrate", store.argument], environment: store.environment)
    #expect(missing.status == 64)
    #expect(
      missing.stderr
        == "kura: error: Missing --schema: give the target models as JSON (start from "
        + "`kura store schema --json \(store.argument)`).\nSee `kura store migrate --help`.\n")
  }

  @Test(arguments: TestEngine.enabled)
  func drawsAProgressBarOnATerminal(_ engine: TestEngine) throws {
    let script = URL(fileURLWithPath: "/usr/bin/script")
    try #require(
      FileManager.default.isExecutableFile(atPath: script.path), "needs util-linux script")
    let store = try freshStore(engine, sqlite: .file("trips.store"))
    _ = try writeV1Store(store)
    var models = try schemaJSON(store)
    let tripIndex = try #require(models.firstIndex { $0["model"] as? String == "Trip" })
    var columns = try #require(models[tripIndex]["columns"] as? [[String: Any]])
    columns.removeAll { $0["name"] as? String == "notes" }
    models[tripIndex]["columns"] = columns
    let schemaFile = store.folder.file("target.json")
    try JSONSerialization.data(withJSONObject: models).write(to: schemaFile)
    let command = [
      try executable("kura").path, "store", "migrate", store.argument, "--schema", schemaFile.path,
      "--allow-data-loss",
    ]
    .map { "'" + $0 + "'" }.joined(separator: " ")
    // `script` runs the command on a pseudo-terminal, so standard error is a terminal.
    let result = try run(script, ["-qec", command, "/dev/null"], environment: store.environment)
    #expect(result.status == 0)
    #expect(
      result.stdout.contains("\rTrip [                              ] 0% 0/2 rows: removing notes"))
    #expect(
      result.stdout.contains(
        "\rTrip [##############################] 100% 2/2 rows: removing notes"))
    #expect(result.stdout.hasSuffix("Migrated \(store.name) to the models in target.json.\r\n"))
  }
}
