import Foundation
import Kura
import KuraEngineTestSupport
import KuraStudio
import KuraTestSupport
import Synchronization
import Testing

/// `kura studio --app`: an app's preference suites, scene states and documents (with the
/// journal's pending changes applied), beside its model store; nothing created.
@Suite("Studio on an app")
struct StudioAppTests {
  struct Entry: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
  }

  func get(_ studio: Studio, _ path: String) throws -> [String: Any] {
    let response = studio.respond(
      to: StudioRequest(
        method: "GET", path: path,
        headers: ["Host": "127.0.0.1:4321", "Cookie": "kura_studio_4321=s3cret"]))
    #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
    return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
  }

  @Test func showsPreferencesScenesDocumentsAndTheStore() throws {
    let folder = StudioFolder()
    let environment = ["KURA_HOME": folder.url.path]
    let locations = try Locations.app("trips", environment: environment)
    // The app's data, as the app writes it.
    let preferences = try Preferences(locations: locations)
    try preferences.setValue(.integer(3), forKey: "launchCount")
    try preferences.setValue(.string("<b>Kyoto</b>"), forKey: "lastTrip")
    try preferences.setValue(.data(Data(#"{"zoom":2}"#.utf8)), forKey: "map")
    try preferences.setValue(.date(Date(timeIntervalSince1970: 1_800_000_000)), forKey: "seen")
    let scene = try SceneState("main", locations: locations)
    try scene.preferences.setValue(.string("Trips"), forKey: "tab")
    try Locations.ensureDirectory(locations.documentsDirectory)
    let documentURL = locations.documentsDirectory.appendingPathComponent("journal.json")
    let document = try DocumentStore<[Entry]>(.url(documentURL), defaultValue: [])
    try document.replace(with: [Entry(id: 1, title: "Temple")])
    try document.append(Entry(id: 2, title: "Tea"))
    try document.update(Entry(id: 1, title: "Temple at dawn"))
    try Locations.ensureDirectory(locations.dataDirectory)
    try seed(.url(locations.defaultStoreURL))
    let group = try Locations.groupContainer("group.trips", environment: environment)
    let shared = try Preferences.fileURL(forSuite: "group.trips", environment: environment)
    try Locations.ensureDirectory(shared.deletingLastPathComponent())
    try Preferences(fileURL: shared, suiteName: "group.trips").setValue(
      .bool(true), forKey: "synced")
    let before = try FileManager.default.subpathsOfDirectory(atPath: folder.url.path).sorted()

    let studio = try Studio(
      app: StudioApp(locations: locations, group: "group.trips"), secret: "s3cret")
    studio.port = 4_321
    let models = try get(studio, "/api/models")
    #expect(models["app"] as? String == "trips")
    #expect(
      (models["models"] as? [[String: Any]])?.map { $0["name"] as? String } == [
        "Activity", "Booking", "Trip",
      ])
    let app = try get(studio, "/api/app")
    #expect((app["paths"] as? [String: String])?["group"] == group.path)
    let suites = try #require(app["suites"] as? [[String: Any]])
    #expect(suites.map { $0["name"] as? String } == ["trips", "group.trips"])
    let keys = try #require(suites.first?["keys"] as? [[String: String]])
    #expect(
      keys == [
        ["key": "lastTrip", "type": "string", "value": "<b>Kyoto</b>"],
        ["key": "launchCount", "type": "integer", "value": "3"],
        ["key": "map", "type": "data (JSON)", "value": #"{"zoom":2}"#],
        ["key": "seen", "type": "date", "value": "2027-01-15T08:00:00.000Z"],
      ])
    #expect(
      (suites.last?["keys"] as? [[String: String]]) == [
        ["key": "synced", "type": "bool", "value": "true"]
      ])
    let scenes = try #require(app["scenes"] as? [[String: Any]])
    #expect(scenes.map { $0["name"] as? String } == ["main"])
    #expect(
      (scenes.first?["keys"] as? [[String: String]]) == [
        ["key": "tab", "type": "string", "value": "Trips"]
      ])
    let documents = try #require(app["documents"] as? [[String: Any]])
    #expect(documents.map { $0["name"] as? String } == ["journal.json"])
    let journal = try #require(documents.first?["journal"] as? [String: Any])
    #expect(journal["state"] as? String == "pending")
    #expect(journal["records"] as? Int == 2)
    let json = try #require(documents.first?["json"] as? String)
    let shown = try JSONDecoder().decode([Entry].self, from: Data(json.utf8))
    #expect(shown == [Entry(id: 1, title: "Temple at dawn"), Entry(id: 2, title: "Tea")])
    #expect(shown == document.value)
    // Live: a change is there at the next read.
    try preferences.setValue(.integer(4), forKey: "launchCount")
    let again = try #require(try get(studio, "/api/app")["suites"] as? [[String: Any]])
    #expect(
      (again.first?["keys"] as? [[String: String]])?.first { $0["key"] == "launchCount" }?["value"]
        == "4")
    // Reading created no file (beside SQLite's own -wal and -shm of files opened before).
    try document.close()
    let after = try FileManager.default.subpathsOfDirectory(atPath: folder.url.path)
    let created = Set(after).subtracting(before).filter {
      !$0.hasSuffix("-shm") && !$0.hasSuffix("-wal")
    }
    #expect(created.isEmpty, "\(created.sorted())")
  }

  @Test func aDocumentsJournalStateFollowsItsCompactionAndDamage() throws {
    let folder = StudioFolder()
    let locations = try Locations.app("notes", environment: ["KURA_HOME": folder.url.path])
    try Locations.ensureDirectory(locations.documentsDirectory)
    let url = locations.documentsDirectory.appendingPathComponent("list.json")
    let journal = locations.documentsDirectory.appendingPathComponent(".list.json.journal")
    let studio = try Studio(app: StudioApp(locations: locations, group: nil), secret: "s3cret")
    studio.port = 4_321
    func shown() throws -> [String: Any] {
      try #require((try get(studio, "/api/app")["documents"] as? [[String: Any]])?.first)
    }
    let document = try DocumentStore<[Entry]>(.url(url), defaultValue: [])
    try document.replace(with: [Entry(id: 1, title: "One")])
    try document.append(Entry(id: 2, title: "Two"))
    try document.remove(id: 1)
    #expect((try shown()["journal"] as? [String: Any])?["state"] as? String == "pending")
    #expect(
      try JSONDecoder().decode(
        [Entry].self, from: Data((try shown()["json"] as? String ?? "").utf8))
        == [Entry(id: 2, title: "Two")])
    try document.compact()
    let compacted = try shown()
    let state = (compacted["journal"] as? [String: Any])?["state"] as? String
    // Compaction folds the journal into the file and removes it: no journal to show.
    #expect(state == nil, "\(compacted)")
    #expect(
      try JSONDecoder().decode([Entry].self, from: Data((compacted["json"] as? String ?? "").utf8))
        == [Entry(id: 2, title: "Two")])
    try document.close()
    // Bytes that are no journal: damaged, and the file's JSON is shown as it is.
    try Data("not a journal at all, longer than a header".utf8).write(to: journal)
    let damaged = try shown()
    #expect((damaged["journal"] as? [String: Any])?["state"] as? String == "damaged")
    #expect(damaged["json"] as? String != nil)
  }

  @Test func anAppWithoutAStoreStillShowsItsPreferences() throws {
    let folder = StudioFolder()
    let locations = try Locations.app("notes", environment: ["KURA_HOME": folder.url.path])
    try Preferences(locations: locations).setValue(.string("dark"), forKey: "theme")
    let studio = try Studio(app: StudioApp(locations: locations, group: nil), secret: "s3cret")
    studio.port = 4_321
    let models = try get(studio, "/api/models")
    #expect(models["engine"] as? String == "none")
    #expect((models["models"] as? [Any])?.isEmpty == true)
    let suites = try #require(try get(studio, "/api/app")["suites"] as? [[String: Any]])
    #expect((suites.first?["keys"] as? [[String: String]])?.first?["value"] == "dark")
    #expect(!FileManager.default.fileExists(atPath: locations.defaultStoreURL.path))
  }

  /// The `app` events of `/api/app-events`, as they come.
  final class AppEvents: Sendable {
    final class Received: Sendable {
      let texts = Mutex<[String]>([])
    }
    let received = Received()
    let stop: @Sendable () -> Void

    init(_ studio: Studio) throws {
      let response = studio.respond(
        to: StudioRequest(
          method: "GET", path: "/api/app-events",
          headers: ["Host": "127.0.0.1:4321", "Cookie": "kura_studio_4321=s3cret"]))
      let writer = try #require(response.events)
      let received = self.received
      stop = writer { name, data in
        if name == "app" { received.texts.withLock { $0.append(data) } }
        return true
      }
    }

    /// Every event so far, as JSON objects.
    var all: [[String: Any]] {
      received.texts.withLock { $0 }.compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
    }

    /// Every event so far, as sent.
    var texts: [String] { received.texts.withLock { $0 } }

    /// Waits (at most 10 s) for an event that passes `test`.
    func wait(_ test: ([String: Any]) -> Bool) async -> Bool {
      for _ in 0..<1_000 {
        if all.contains(where: test) { return true }
        try? await Task.sleep(for: .milliseconds(10))
      }
      return false
    }
  }

  @Test func appEventsFollowTheFirstSuiteASceneAndADocumentOfAnEmptyApp() async throws {
    let folder = StudioFolder()
    let locations = try Locations.app("blank", environment: ["KURA_HOME": folder.url.path])
    // Nothing of the app exists yet: its folders are watched through their parents.
    #expect(!FileManager.default.fileExists(atPath: locations.preferencesDirectory.path))
    let studio = try Studio(app: StudioApp(locations: locations, group: nil), secret: "s3cret")
    studio.port = 4_321
    let events = try AppEvents(studio)
    defer { events.stop() }
    #expect(await events.wait { ($0["suites"] as? [Any])?.isEmpty == true })
    try Preferences(locations: locations).setValue(.string("dark"), forKey: "theme")
    #expect(
      await events.wait {
        (($0["suites"] as? [[String: Any]])?.first?["keys"] as? [[String: String]])?.first?[
          "value"] == "dark"
      })
    try SceneState("main", locations: locations).preferences.setValue(
      .string("Trips"), forKey: "tab")
    #expect(
      await events.wait {
        (($0["scenes"] as? [[String: Any]])?.first?["keys"] as? [[String: String]])?.first?[
          "value"] == "Trips"
      })
    try Locations.ensureDirectory(locations.documentsDirectory)
    let document = try DocumentStore<[Entry]>(
      .url(locations.documentsDirectory.appendingPathComponent("list.json")), defaultValue: [])
    try document.replace(with: [Entry(id: 1, title: "<b>One</b>")])
    try document.append(Entry(id: 2, title: "Two"))
    #expect(
      await events.wait {
        (($0["documents"] as? [[String: Any]])?.first?["json"] as? String)?.contains("Two")
          == true
      })
    try document.close()
    // Each event differs from the one before it: nothing is sent twice.
    let texts = events.texts
    #expect(texts.count >= 4)
    #expect(zip(texts, texts.dropFirst()).allSatisfy { $0 != $1 })
  }
}
