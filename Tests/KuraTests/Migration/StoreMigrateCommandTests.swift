import Foundation
import Testing

@testable import Kura

@Suite("kura store migrate")
struct StoreMigrateCommandTests {
  private func schemaJSON(_ url: URL, _ folder: TemporaryDirectory) throws -> [[String: Any]] {
    let result = try run(
      try executable("kura"), ["store", "schema", "--json", url.path],
      environment: folder.environment)
    try #require(result.status == 0, "\(result.stderr)")
    let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    return try #require(json as? [[String: Any]])
  }

  @Test func migratesToAnEditedSchemaKeepingRowsAndReferences() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("trips.store")
    let (kyoto, nara, _) = try writeV1Store(url)
    var models = try schemaJSON(url, folder)
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
    let schemaFile = folder.file("target.json")
    try JSONSerialization.data(withJSONObject: models).write(to: schemaFile)
    let kura = try executable("kura")
    // `notes` holds values: dropping it needs --allow-data-loss, and without it nothing changes.
    let before = try Data(contentsOf: url)
    let refused = try run(
      kura, ["store", "migrate", url.path, "--schema", schemaFile.path],
      environment: folder.environment)
    #expect(refused.status == 1)
    #expect(
      refused.stderr.hasPrefix(
        "kura: error: Can't open store `trips.store` for model `Trip`: its table `Trip` has column "
          + "`notes` holding values"))
    #expect(refused.stderr.contains("--allow-data-loss"))
    #expect(try Data(contentsOf: url) == before)
    let result = try run(
      kura, ["store", "migrate", url.path, "--schema", schemaFile.path, "--allow-data-loss"],
      environment: folder.environment)
    #expect(result.status == 0)
    #expect(result.stdout == "Migrated trips.store to the models in target.json.\n")
    #expect(result.stderr == "")  // not a terminal: no progress bar
    struct Trip: PersistentModel {
      var id: UUID
      var title: String
      var days: Int
      var favorite: Bool
      var budget: Int?
      var rating: Int
    }
    let context = ModelContext(try ModelContainer(for: Trip.self, configurations: .url(url)))
    let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.title)]))
    #expect(trips.map(\.id) == [kyoto.id, nara.id])
    #expect(trips.map(\.title) == ["Kyoto", "Nara Park"])
    #expect(trips.map(\.rating) == [3, 3])
    let again = try run(
      kura, ["store", "migrate", url.path, "--schema", schemaFile.path],
      environment: folder.environment)
    #expect(again.stdout == "Nothing to migrate: trips.store already matches the models.\n")
  }

  @Test func refusedChangeExitsWithTheReasonAndChangesNothing() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("trips.store")
    _ = try writeV1Store(url)
    var models = try schemaJSON(url, folder)
    let tripIndex = try #require(models.firstIndex { $0["model"] as? String == "Trip" })
    var columns = try #require(models[tripIndex]["columns"] as? [[String: Any]])
    columns.append(["name": "country", "kind": "text", "nullable": false])
    models[tripIndex]["columns"] = columns
    let schemaFile = folder.file("target.json")
    try JSONSerialization.data(withJSONObject: models).write(to: schemaFile)
    let before = try Data(contentsOf: url)
    let result = try run(
      try executable("kura"), ["store", "migrate", url.path, "--schema", schemaFile.path],
      environment: folder.environment)
    #expect(result.status == 1)
    #expect(
      result.stderr.hasPrefix(
        "kura: error: Can't migrate store `trips.store`: `Trip.country` is new, is not optional "
          + "and has no default value, so the stored rows would have no value for it. Nothing "
          + "was changed."))
    #expect(try Data(contentsOf: url) == before)
    let missing = try run(
      try executable("kura"), ["store", "migrate", url.path], environment: folder.environment)
    #expect(missing.status == 64)
    #expect(
      missing.stderr
        == "kura: error: Missing --schema: give the target models as JSON (start from "
        + "`kura store schema --json \(url.path)`).\nSee `kura store migrate --help`.\n")
  }

  @Test func drawsAProgressBarOnATerminal() throws {
    let script = URL(fileURLWithPath: "/usr/bin/script")
    try #require(
      FileManager.default.isExecutableFile(atPath: script.path), "needs util-linux script")
    let folder = TemporaryDirectory()
    let url = folder.file("trips.store")
    _ = try writeV1Store(url)
    var models = try schemaJSON(url, folder)
    let tripIndex = try #require(models.firstIndex { $0["model"] as? String == "Trip" })
    var columns = try #require(models[tripIndex]["columns"] as? [[String: Any]])
    columns.removeAll { $0["name"] as? String == "notes" }
    models[tripIndex]["columns"] = columns
    let schemaFile = folder.file("target.json")
    try JSONSerialization.data(withJSONObject: models).write(to: schemaFile)
    let command = [
      try executable("kura").path, "store", "migrate", url.path, "--schema", schemaFile.path,
      "--allow-data-loss",
    ]
    .map { "'" + $0 + "'" }.joined(separator: " ")
    // `script` runs the command on a pseudo-terminal, so standard error is a terminal.
    let result = try run(script, ["-qec", command, "/dev/null"], environment: folder.environment)
    #expect(result.status == 0)
    #expect(
      result.stdout.contains("\rTrip [                              ] 0% 0/2 rows: removing notes"))
    #expect(
      result.stdout.contains(
        "\rTrip [##############################] 100% 2/2 rows: removing notes"))
    #expect(result.stdout.hasSuffix("Migrated trips.store to the models in target.json.\r\n"))
  }
}
