#if canImport(CLibPQ)
  import Foundation
  import Kura
  import KuraPostgreSQL
  import KuraTestSupport
  import KuraEngineTestSupport
  import KuraPostgresCluster
  import KuraStudio
  import Testing

  /// The studio on a PostgreSQL store (a throwaway cluster's database): the same answers as on
  /// SQLite, through the engine's dialect.
  @Suite("Studio on PostgreSQL")
  struct StudioPostgresTests {
    @Test func pagesFiltersRelationsAndHistoryOnPostgreSQL() throws {
      let url = try #require(URL(string: try PostgresCluster.freshDatabaseURL()))
      try seed(.postgres(url))
      let studio = try Studio(store: .postgres(url), storeName: "trips", secret: "s3cret")
      studio.port = 4_321
      func get(_ path: String, _ query: [String: String] = [:]) throws -> [String: Any] {
        let response = studio.respond(
          to: StudioRequest(
            method: "GET", path: path, query: query,
            headers: ["Host": "127.0.0.1:4321", "Cookie": "kura_studio_4321=s3cret"]))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
      }
      func ids(_ answer: [String: Any]) throws -> [String] {
        let rows = try #require(answer["rows"] as? [[String: Any]])
        return rows.compactMap { ($0["cells"] as? [[String: Any]])?.first?["int"] as? String }
      }
      let models = try get("/api/models")
      #expect(models["engine"] as? String == "postgresql")
      let described = try #require(models["models"] as? [[String: Any]])
      #expect(described.map { $0["rows"] as? Int } == [4, 1, 4])
      #expect(try ids(try get("/api/rows", ["model": "Trip", "limit": "3"])) == ["1", "2", "3"])
      let next = try #require(
        try get("/api/rows", ["model": "Trip", "limit": "3"])["next"] as? String)
      #expect(
        try ids(try get("/api/rows", ["model": "Trip", "limit": "3", "after": next])) == ["4"])
      #expect(
        try ids(
          try get(
            "/api/rows",
            ["model": "Trip", "f": #"[{"property":"notes","op":"==","value":"Cafe\u0301"}]"#]))
          == ["4"])
      #expect(
        try ids(
          try get(
            "/api/rows",
            [
              "model": "Trip", "sort": "budget", "desc": "1",
              "f": #"[{"property":"budget","op":">","value":"5"}]"#,
            ]))
          == ["1", "3"])
      let row = try get("/api/row", ["model": "Trip", "key": "i1"])
      let referrers = try #require(row["referrers"] as? [[String: Any]])
      #expect(referrers.map { $0["count"] as? Int } == [3, 1])
      let history = try get("/api/history")
      #expect((history["changeSets"] as? [Any])?.count == 1)
    }

    @Test func searchUsesTheModelsSearchOnPostgreSQL() throws {
      let url = try #require(URL(string: try PostgresCluster.freshDatabaseURL()))
      try seed(.postgres(url))
      let studio = try Studio(store: .postgres(url), storeName: "trips", secret: "s3cret")
      studio.port = 4_321
      func get(_ path: String, _ query: [String: String] = [:]) throws -> (Int, [String: Any]) {
        let response = studio.respond(
          to: StudioRequest(
            method: "GET", path: path, query: query,
            headers: ["Host": "127.0.0.1:4321", "Cookie": "kura_studio_4321=s3cret"]))
        return (
          response.status,
          try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        )
      }
      func ids(_ query: [String: String]) throws -> [String] {
        let (status, answer) = try get("/api/rows", query)
        #expect(status == 200, "\(answer)")
        let rows = try #require(answer["rows"] as? [[String: Any]])
        return rows.compactMap { ($0["cells"] as? [[String: Any]])?.first?["int"] as? String }
      }
      let models = try #require(try get("/api/models").1["models"] as? [[String: Any]])
      #expect(
        models.first { $0["name"] as? String == "Trip" }?["searchable"] as? [String] == [
          "name", "notes",
        ])
      // The store's own search on PostgreSQL: substrings of the folded text (no diacritics, any
      // case), every word.
      #expect(try ids(["model": "Trip", "q": "cafe"]) == ["4"])
      #expect(try ids(["model": "Trip", "q": "TEMP"]) == ["1"])
      #expect(try ids(["model": "Trip", "q": "kyo temples"]) == ["1"])
      #expect(try ids(["model": "Trip", "q": "script"]) == ["3"])
      #expect(try ids(["model": "Trip", "q": "osaka"]) == [])
      // With a filter, and refused on a model without a search index.
      #expect(
        try ids([
          "model": "Trip", "q": "alert", "f": #"[{"property":"budget","op":">","value":"0"}]"#,
        ]) == ["3"])
      let (refused, answer) = try get("/api/rows", ["model": "Activity", "q": "tea"])
      #expect(refused == 400, "\(answer)")
    }

    @Test func editsThroughTheStoresSavePathOnPostgreSQL() async throws {
      let url = try #require(URL(string: try PostgresCluster.freshDatabaseURL()))
      try seed(.postgres(url))
      let studio = try Studio(
        store: .postgres(url), storeName: "trips", secret: "s3cret", writable: true)
      studio.port = 4_321
      func post(_ edits: [[String: Any]]) throws -> (Int, [String: Any]) {
        let response = studio.respond(
          to: StudioRequest(
            method: "POST", path: "/api/edits",
            headers: [
              "Host": "127.0.0.1:4321", "Cookie": "kura_studio_4321=s3cret",
              "X-Kura-Secret": "s3cret",
            ],
            body: try JSONSerialization.data(withJSONObject: ["edits": edits])))
        return (
          response.status,
          try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        )
      }
      let container = try ModelContainer(for: studioModels, configurations: .postgres(url))
      let before = try container.currentHistoryToken()
      // A malformed date and a refused delete write nothing (PostgreSQL's transaction ends).
      let (bad, badAnswer) = try post([
        ["action": "update", "model": "Trip", "key": "i1", "values": ["name": "Kyoto 2"]],
        ["action": "update", "model": "Trip", "key": "i2", "values": ["start": "2027-13-45"]],
      ])
      #expect(bad == 409)
      #expect(badAnswer["property"] as? String == "start")
      let (denied, _) = try post([["action": "delete", "model": "Trip", "key": "i1"]])
      #expect(denied == 409)
      #expect(try container.currentHistoryToken() == before)
      #expect(try ModelContext(container).model(for: 1, as: Trip.self)?.name == "Kyoto")
      // Then an edit, an insert and a delete with its cascade, in one save, which the change
      // feed of another container reports (through PostgreSQL's notification).
      let watcher = try ModelContainer(for: studioModels, configurations: .postgres(url))
      let feed = Task { () async throws -> ChangeSet? in
        for try await changeSet in try watcher.changeSets() where !changeSet.changes.isEmpty {
          return changeSet
        }
        return nil
      }
      try await Task.sleep(for: .milliseconds(300))
      let (status, answer) = try post([
        ["action": "update", "model": "Trip", "key": "i1", "values": ["budget": "1500.25"]],
        ["action": "insert", "model": "Activity", "values": ["name": "Onsen", "trip": "1"]],
        ["action": "delete", "model": "Trip", "key": "i2"],
      ])
      #expect(status == 200, "\(answer)")
      let context = ModelContext(container)
      #expect(try context.model(for: 1, as: Trip.self)?.budget == 1500.25)
      #expect(try context.model(for: 5, as: Activity.self)?.name == "Onsen")
      #expect(try context.model(for: 2, as: Trip.self) == nil)
      #expect(try context.model(for: 4, as: Activity.self) == nil)  // Nara's deer, cascaded
      let changeSets = try container.history(since: before)
      #expect(changeSets.count == 1)
      #expect(changeSets.first?.changes["Activity"]?.deleted == ["4"])
      let timeout = Task {
        try await Task.sleep(for: .seconds(20))
        feed.cancel()
      }
      let reported = try await feed.value
      timeout.cancel()
      #expect(reported?.changes["Trip"]?.deleted == ["2"])
    }
  }
#endif
