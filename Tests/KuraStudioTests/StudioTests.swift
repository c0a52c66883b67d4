import Foundation
import Kura
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStudio
import KuraTestSupport
import Testing

/// The studio's answers, asked directly (the transport is tested in the browser tests).
@Suite("Studio answers")
struct StudioTests {
  static let port: UInt16 = 4_321

  func studio(_ url: URL) throws -> Studio {
    let studio = try Studio(store: .url(url), storeName: url.lastPathComponent, secret: "s3cret")
    studio.port = Self.port
    return studio
  }

  func request(
    _ path: String, _ query: [String: String] = [:], method: String = "GET",
    cookie: String? = "kura_studio_4321=s3cret", host: String = "127.0.0.1:4321",
    headers: [String: String] = [:]
  ) -> StudioRequest {
    var all = headers
    all["Host"] = host
    if let cookie { all["Cookie"] = cookie }
    return StudioRequest(method: method, path: path, query: query, headers: all)
  }

  /// The JSON object of an answer.
  func json(_ response: StudioResponse) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
  }

  func rows(_ studio: Studio, _ query: [String: String]) throws -> [String: Any] {
    let response = studio.respond(to: request("/api/rows", query))
    #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
    return try json(response)
  }

  /// The ids of a rows answer, in order.
  func ids(_ answer: [String: Any]) throws -> [String] {
    let rows = try #require(answer["rows"] as? [[String: Any]])
    return try rows.map { row in
      let cells = try #require(row["cells"] as? [[String: Any]])
      let columns = try #require(answer["columns"] as? [[String: Any]])
      let keyIndex = try #require(columns.firstIndex { $0["isPrimaryKey"] as? Bool == true })
      return try #require((cells[keyIndex]["int"] ?? cells[keyIndex]["text"]) as? String)
    }
  }

  @Test func refusesRequestsWithoutTheSecretOrFromAnotherHost() throws {
    let folder = StudioFolder()
    let studio = try studio(try seededStore(folder))
    #expect(studio.respond(to: request("/api/models", cookie: nil)).status == 403)
    #expect(studio.respond(to: request("/", cookie: "kura_studio_4321=wrong")).status == 403)
    // Another studio's cookie (another port) is not this one's.
    #expect(studio.respond(to: request("/", cookie: "kura_studio_4322=s3cret")).status == 403)
    // DNS rebinding: a page of evil.example whose name now points at 127.0.0.1.
    #expect(studio.respond(to: request("/api/models", host: "evil.example:4321")).status == 421)
    #expect(studio.respond(to: request("/api/models", host: "127.0.0.1:80")).status == 421)
    #expect(studio.respond(to: request("/api/models")).status == 200)
    #expect(studio.respond(to: request("/api/models", host: "localhost:4321")).status == 200)
  }

  @Test func exchangesTheSecretForAStrictHttpOnlyCookie() throws {
    let folder = StudioFolder()
    let studio = try studio(try seededStore(folder))
    #expect(studio.url == "http://127.0.0.1:4321/?secret=s3cret")
    let wrong = studio.respond(to: request("/", ["secret": "nope"], cookie: nil))
    #expect(wrong.status == 403)
    #expect(wrong.headers["Set-Cookie"] == nil)
    let exchanged = studio.respond(to: request("/", ["secret": "s3cret"], cookie: nil))
    #expect(exchanged.status == 303)
    #expect(exchanged.headers["Location"] == "/")
    #expect(
      exchanged.headers["Set-Cookie"]
        == "kura_studio_4321=s3cret; Path=/; HttpOnly; SameSite=Strict")
    let page = studio.respond(to: request("/"))
    #expect(page.status == 200)
    #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
    #expect(page.headers["Content-Security-Policy"]?.contains("script-src 'self'") == true)
  }

  @Test func aReadOnlyStudioRefusesWritesEvenWithTheSecretHeader() throws {
    let folder = StudioFolder()
    let studio = try studio(try seededStore(folder))
    let withoutHeader = studio.respond(to: request("/api/apply", method: "POST"))
    #expect(withoutHeader.status == 403)
    #expect(
      String(decoding: withoutHeader.body, as: UTF8.self)
        == "Kura Studio refused the request: a change needs the secret in X-Kura-Secret.")
    let withHeader = studio.respond(
      to: request("/api/apply", method: "POST", headers: ["X-Kura-Secret": "s3cret"]))
    #expect(withHeader.status == 403)
    #expect(
      try json(withHeader)["error"] as? String
        == "This studio is read-only: it opened the store read-only and writes nothing. Start "
        + "it with `kura studio --write` to change rows.")
    // The edits a --write studio takes, refused the same way; the store is unchanged.
    let edits = studio.respond(
      to: StudioRequest(
        method: "POST", path: "/api/edits",
        headers: [
          "Host": "127.0.0.1:4321", "Cookie": "kura_studio_4321=s3cret", "X-Kura-Secret": "s3cret",
        ],
        body: Data(#"{"edits":[{"action":"delete","model":"Trip","key":"i2"}]}"#.utf8)))
    #expect(edits.status == 403)
    #expect((try json(edits)["error"] as? String)?.hasPrefix("This studio is read-only") == true)
    let page = String(decoding: studio.respond(to: request("/")).body, as: UTF8.self)
    #expect(!page.contains("s3cret"))
  }

  @Test func modelsShowSchemaReferencesBothWaysAndHistory() throws {
    let folder = StudioFolder()
    let studio = try studio(try seededStore(folder))
    let answer = try json(studio.respond(to: request("/api/models")))
    #expect(answer["engine"] as? String == "sqlite")
    #expect(answer["schemaVersion"] as? Int == 1)
    #expect(answer["writable"] as? Bool == false)
    let history = try #require(answer["history"] as? [String: Any])
    #expect(history["count"] as? Int == 1)
    let models = try #require(answer["models"] as? [[String: Any]])
    #expect(models.map { $0["name"] as? String } == ["Activity", "Booking", "Trip"])
    #expect(models.map { $0["rows"] as? Int } == [4, 1, 4])
    let trip = models[2]
    let columns = try #require(trip["columns"] as? [[String: Any]])
    let described = columns.map {
      "\($0["name"] ?? "") \($0["kind"] ?? "") \($0["isOptional"] as? Bool == true ? "?" : "")"
    }
    #expect(
      described == [
        "id integer ", "name text ", "start date ", "budget real ?", "notes text ?",
        "photo blob ?", "tags json ", "code uuid ",
      ])
    #expect(trip["searchable"] as? [String] == ["name", "notes"])
    let referrers = try #require(trip["referrers"] as? [[String: String]])
    #expect(
      referrers == [
        ["model": "Activity", "property": "trip", "deleteRule": "cascade"],
        ["model": "Booking", "property": "trip", "deleteRule": "deny"],
      ])
    let references = try #require(models[0]["references"] as? [[String: String]])
    #expect(references == [["model": "Trip", "property": "trip", "deleteRule": "cascade"]])
    let bookingColumns = try #require(models[1]["columns"] as? [[String: Any]])
    #expect(bookingColumns.first?["isUnique"] as? Bool == true)
    let check = try json(studio.respond(to: request("/api/check")))
    #expect(check["problems"] as? [String] == [])
  }

  @Test func pagesByKeyInTheStoresSortOrderWithoutGapsOrRepeats() throws {
    let folder = StudioFolder()
    let url = folder.file("many.store")
    let container = try ModelContainer(for: studioModels, configurations: .url(url))
    let context = ModelContext(container)
    let names = ["b", "B", "a", "é", "e\u{301}", "c", "ä"]
    for id in 1...130 {
      try context.insert(
        Trip(
          id: id, name: names[id % names.count], start: Date(timeIntervalSince1970: Double(id)),
          budget: id % 3 == 0 ? nil : Double(id % 10), notes: nil))
    }
    try context.save()
    let studio = try studio(url)
    for (sort, descending) in [("name", false), ("budget", false), ("budget", true), ("id", true)] {
      var seen: [String] = []
      var after: String?
      var pages = 0
      repeat {
        var query = ["model": "Trip", "sort": sort, "limit": "50"]
        if descending { query["desc"] = "1" }
        if let after { query["after"] = after }
        let answer = try rows(studio, query)
        seen += try ids(answer)
        after = answer["next"] as? String
        pages += 1
      } while after != nil && pages < 10
      #expect(pages == 3)
      // The same order as the store's own fetch: sort key, then id.
      let trips = try context.fetch(FetchDescriptor<Trip>())
      let expected: [Trip]
      switch sort {
      case "name":
        expected = trips.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
        #expect(
          try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
            == expected.map(\.name))
      case "budget":
        let ordered = trips.sorted {
          let (a, b) = ($0.budget ?? -.infinity, $1.budget ?? -.infinity)
          return a != b ? a < b : $0.id < $1.id
        }
        expected =
          descending
          ? ordered.sorted {
            let (a, b) = ($0.budget ?? -.infinity, $1.budget ?? -.infinity)
            return a != b ? a > b : $0.id > $1.id
          } : ordered
      default:
        expected = trips.sorted { $0.id > $1.id }
      }
      #expect(seen == expected.map { String($0.id) }, "sorted by \(sort)")
    }
  }

  @Test func filtersHaveTheStoresPredicateSemantics() throws {
    let folder = StudioFolder()
    let url = try seededStore(folder)
    let studio = try studio(url)
    func filtered(_ filters: String) throws -> [String: Any] {
      try rows(studio, ["model": "Trip", "f": filters])
    }
    // `==` on text is Swift's: "Cafe\u{301}" equals "Café".
    let equal = try filtered(#"[{"property":"notes","op":"==","value":"Cafe\u0301"}]"#)
    #expect(try ids(equal) == ["4"])
    #expect((equal["inMemory"] as? [String]) == [])
    #expect((equal["condition"] as? String)?.contains("kura_unicode") == true)
    // An optional compared with `>`: nil never matches (as `flatMap { $0 > 5 } ?? false`).
    #expect(try ids(try filtered(#"[{"property":"budget","op":">","value":"5"}]"#)) == ["1", "3"])
    #expect(try ids(try filtered(#"[{"property":"budget","op":"is nil"}]"#)) == ["2"])
    #expect(try ids(try filtered(#"[{"property":"notes","op":"==","value":""}]"#)) == ["3"])
    #expect(
      try ids(try filtered(#"[{"property":"name","op":"contains","value":"<"}]"#)) == ["3", "4"])
    #expect(
      try ids(try filtered(#"[{"property":"start","op":">","value":"2026-12-01T00:00:00Z"}]"#))
        == ["2"])
    // The same result as the store's fetch with the same predicate.
    let context = ModelContext(try ModelContainer(for: studioModels, configurations: .url(url)))
    let fetched = try context.fetch(
      FetchDescriptor<Trip>(predicate: #Predicate { ($0.budget.flatMap { $0 > 5 }) ?? false }))
    #expect(fetched.map { String($0.id) }.sorted() == ["1", "3"])
    // A JSON value has no SQL `==`: it runs in memory, and the page says so.
    let memory = try filtered(
      #"[{"property":"tags","op":"==","value":"[]"},{"property":"id","op":"<","value":"3"}]"#)
    #expect(try ids(memory) == ["1", "2"])
    #expect(
      memory["inMemory"] as? [String] == ["`==` on a value stored as JSON runs in memory"])
  }

  @Test func aMalformedFilterValueNamesTheProperty() throws {
    let folder = StudioFolder()
    let studio = try studio(try seededStore(folder))
    let response = studio.respond(
      to: request(
        "/api/rows",
        ["model": "Trip", "f": #"[{"property":"start","op":"<","value":"2026-13-45"}]"#]))
    #expect(response.status == 400)
    #expect(
      try json(response)["error"] as? String
        == "Can't filter `Trip` by `start`: `2026-13-45` is not a valid date value; give an ISO "
        + "8601 date such as 2026-12-06 or 2026-12-06T10:15:00Z.")
  }

  @Test func searchUsesTheModelsSearchIndex() throws {
    let folder = StudioFolder()
    let studio = try studio(try seededStore(folder))
    #expect(try ids(try rows(studio, ["model": "Trip", "q": "cafe"])) == ["4"])
    #expect(try ids(try rows(studio, ["model": "Trip", "q": "temp"])) == ["1"])
    let refused = studio.respond(to: request("/api/rows", ["model": "Activity", "q": "tea"]))
    #expect(refused.status == 400)
  }

  @Test func typedCellsKeepNilApartFromEmptyAndTextAsText() throws {
    let folder = StudioFolder()
    let studio = try studio(try seededStore(folder))
    let answer = try rows(studio, ["model": "Trip"])
    let rows = try #require(answer["rows"] as? [[String: Any]])
    let cells = try rows.map { try #require($0["cells"] as? [[String: Any]]) }
    // Columns: id name start budget notes photo tags code.
    #expect(cells[1][4]["nil"] as? Bool == true)
    #expect(cells[2][4]["text"] as? String == "")
    #expect(cells[2][1]["text"] as? String == "<script>alert(1)</script>")
    #expect(cells[0][2]["date"] as? Double == 1_796_000_000)
    #expect(
      cells[0][2]["stored"] as? String
        == "817692800.0 seconds since 2001-01-01T00:00:00Z (2026-11-30T00:53:20.000Z)")
    #expect(cells[3][5]["bytes"] as? Int == 4)
    #expect(cells[3][5]["hex"] as? String == "0001feff")
    #expect((cells[0][7]["uuid"] as? String)?.count == 36)
    #expect(cells[0][6]["json"] as? String == "[]")
  }

  @Test func aRowListsWhatRefersToIt() throws {
    let folder = StudioFolder()
    let studio = try studio(try seededStore(folder))
    let answer = try json(studio.respond(to: request("/api/row", ["model": "Trip", "key": "i1"])))
    let referrers = try #require(answer["referrers"] as? [[String: Any]])
    #expect(referrers.map { $0["model"] as? String } == ["Activity", "Booking"])
    #expect(referrers.map { $0["count"] as? Int } == [3, 1])
    #expect(referrers[0]["shown"] as? [String] == ["1", "2", "3"])
    #expect(referrers[1]["keys"] as? [String] == ["tcnlva2Fu"])
    let booking = try json(
      studio.respond(to: request("/api/row", ["model": "Booking", "key": "tcnlva2Fu"])))
    let cells = try #require(booking["cells"] as? [[String: Any]])
    #expect(cells.map { ($0["text"] ?? $0["int"]) as? String } == ["ryokan", "1"])
    let missing = studio.respond(to: request("/api/row", ["model": "Trip", "key": "i99"]))
    #expect(missing.status == 404)
  }

  @Test func exportsTheFilteredViewAsCSVAndJSON() throws {
    let folder = StudioFolder()
    let studio = try studio(try seededStore(folder))
    let filter =
      #"[{"property":"id","op":">=","value":"2"},{"property":"id","op":"<=","value":"3"}]"#
    let csv = studio.respond(
      to: request("/api/export", ["model": "Trip", "f": filter, "format": "csv"]))
    #expect(csv.headers["Content-Disposition"] == "attachment; filename=\"Trip.csv\"")
    let lines = String(decoding: csv.body, as: UTF8.self).components(separatedBy: "\r\n")
    #expect(lines[0] == #""id","name","start","budget","notes","photo","tags","code""#)
    #expect(lines[1].hasPrefix(#""2","Nara","2026-12-01T00:53:20.000Z",,,,"[]","#))
    #expect(
      lines[2].hasPrefix(
        #""3","<script>alert(1)</script>","2026-11-30T00:53:20.000Z","10.0","",,"[]","#))
    #expect(lines.count == 4)
    let json = studio.respond(
      to: request("/api/export", ["model": "Trip", "f": filter, "format": "json"]))
    let objects = try #require(
      try JSONSerialization.jsonObject(with: json.body) as? [[String: Any]])
    #expect(objects.map { $0["id"] as? Int } == [2, 3])
    #expect(objects[0]["notes"] is NSNull)
    #expect(objects[1]["notes"] as? String == "")
    #expect(objects[1]["tags"] as? [String] == [])
  }

  @Test func readingCreatesAndChangesNoFile() throws {
    let folder = StudioFolder()
    let url = try seededStore(folder)
    let files = folder.files
    let bytes = try Data(contentsOf: url)
    let studio = try studio(url)
    for path in ["/api/models", "/api/check", "/api/history", "/"] {
      #expect(studio.respond(to: request(path)).status == 200)
    }
    _ = try rows(studio, ["model": "Trip", "sort": "name", "q": "kyoto"])
    #expect(folder.files == files)
    #expect(try Data(contentsOf: url) == bytes)
  }

  @Test func historyListsRecentChangeSets() throws {
    let folder = StudioFolder()
    let url = try seededStore(folder)
    let context = ModelContext(try ModelContainer(for: studioModels, configurations: .url(url)))
    try context.delete(try #require(try context.model(for: 2, as: Trip.self)))
    var kyoto = try #require(try context.model(for: 1, as: Trip.self))
    kyoto.budget = 1500
    try context.insert(kyoto)
    try context.save()
    let studio = try studio(url)
    let answer = try json(studio.respond(to: request("/api/history")))
    let changeSets = try #require(answer["changeSets"] as? [[String: Any]])
    #expect(changeSets.count == 2)
    let newest = try #require(changeSets.first?["changes"] as? [String: [String: [String]]])
    #expect(newest["Trip"] == ["inserted": [], "updated": ["1"], "deleted": ["2"]])
    #expect(newest["Activity"] == ["inserted": [], "updated": [], "deleted": ["4"]])
  }

  @Test func liveEventsCarryEachSaveOfAnotherContainer() async throws {
    let folder = StudioFolder()
    let url = try seededStore(folder)
    let studio = try studio(url)
    let response = studio.respond(to: request("/api/events"))
    #expect(response.headers["Content-Type"] == "text/event-stream")
    let events = try #require(response.events)
    let (stream, continuation) = AsyncStream<(String, String)>.makeStream()
    let stop = events { name, data in
      continuation.yield((name, data))
      return true
    }
    defer { stop() }
    var iterator = stream.makeAsyncIterator()
    let hello = await iterator.next()
    #expect(hello?.0 == "hello")
    let context = ModelContext(try ModelContainer(for: studioModels, configurations: .url(url)))
    try context.insert(Trip(id: 9, name: "Osaka", start: .now))
    try context.save()
    // Bounded: the stream ends (and the test fails) when no event comes in 20 seconds.
    let bound = Task {
      try await Task.sleep(for: .seconds(20))
      continuation.finish()
    }
    let change = await iterator.next()
    bound.cancel()
    #expect(change?.0 == "change")
    #expect(change?.1.contains(#""Trip":{"deleted":[],"inserted":["9"],"updated":[]}"#) == true)
  }
}

/// What deleting a row would do, as the page previews it.
@Suite("Studio delete preview")
struct StudioDeletePreviewTests {
  func preview(_ studio: Studio, _ model: String, _ key: String) throws -> [String: Any] {
    let response = studio.respond(
      to: StudioRequest(
        method: "GET", path: "/api/delete-preview", query: ["model": model, "key": key],
        headers: ["Host": "127.0.0.1:4321", "Cookie": "kura_studio_4321=s3cret"]))
    #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
    return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
  }

  @Test func previewsTheCascadeAndTheDenyRefusal() throws {
    let folder = StudioFolder()
    let url = try seededStore(folder)
    let studio = try Studio(store: .url(url), storeName: "trips.store", secret: "s3cret")
    studio.port = 4_321
    let kyoto = try preview(studio, "Trip", "i1")
    #expect(
      kyoto["summary"] as? String
        == "Deleting Trip 1 also deletes 3 Activity rows (1, 2, 3) through `trip` (.cascade). "
        + "It would be refused: 1 Booking row (ryokan) refers to it through `trip` (.deny).")
    let refusals = try #require(kyoto["refusals"] as? [[String: Any]])
    #expect(refusals.first?["shown"] as? [String] == ["ryokan"])
    // Nara: its activity goes with it, nothing refuses; the store does exactly that.
    let nara = try preview(studio, "Trip", "i2")
    let deleted = try #require(nara["deleted"] as? [[String: Any]])
    #expect(deleted.map { $0["shown"] as? [String] } == [["4"]])
    #expect((nara["refusals"] as? [Any])?.isEmpty == true)
    let context = ModelContext(try ModelContainer(for: studioModels, configurations: .url(url)))
    try context.delete(try #require(try context.model(for: 2, as: Trip.self)))
    let changes = try context.save()
    #expect(changes.deleted(Activity.self) == [4])
    // Deleting an activity deletes nothing else.
    #expect(
      try preview(studio, "Activity", "i1")["summary"] as? String
        == "Deleting Activity 1 deletes no other row.")
  }
}
