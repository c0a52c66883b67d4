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
  }
#endif
