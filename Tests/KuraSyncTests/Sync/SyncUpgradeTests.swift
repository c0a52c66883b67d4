#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL
  import KuraSync
  import KuraSyncCore
  import KuraSyncServer
  import KuraTestSupport
  import KuraEngineTestSupport

  /// A synced store written by the version that recorded each save for sync inside the save
  /// (an outbox row, the id's record and registers, a creation row and the clock, all in the save's
  /// transaction), opened by this one, which records saves from the store's history when it sends
  /// them (SyncLocalStore+SyncOffEdits.swift).
  ///
  /// The fixture `Fixtures/wishlist-synced-before-history-recording.store` was made with the
  /// `wishlist` executable of that version (commit 9d36158) against a server that could not be
  /// reached (`KURA_SYNC_URL=http://127.0.0.1:9`), so everything it saved is still in its
  /// outbox: `trip add Kyoto --start 2026-12-24`, `trip add Nara --start 2026-12-26`,
  /// `activity add Kyoto "Tea ceremony"`, `trip rename Nara "Nara Park"`, `trip add Osaka
  /// --start 2027-01-02`, `trip delete Osaka`, `activity add Kyoto "Fushimi Inari"`, `activity
  /// done Kyoto Tea` — eight outbox saves, the last one recorded after the engine's last check of
  /// the history (so both the outbox and the history after the token are read).
  @Suite("Sync store upgrade")
  struct SyncUpgradeTests {
    /// The fixture's path in the source tree.
    static let fixture = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures/wishlist-synced-before-history-recording.store")

    /// The outbox rows of a store file, read on a connection of its own.
    static func outboxSequences(_ file: URL) throws -> [Int64] {
      try Connection(path: file.path).query(
        "SELECT sequence FROM kura_sync_outbox ORDER BY sequence"
      ) { $0.int64(at: 0) }
    }

    @Test func aStoreWithAPendingOutboxFromTheEarlierVersionPushesAllOfItOnceAndLosesNothing()
      throws
    {
      let directory = TemporaryDirectory("sync-upgrade")
      let old = directory.file("a.store")
      try FileManager.default.copyItem(at: Self.fixture, to: old)
      #expect(try Self.outboxSequences(old) == Array(1...8))
      let database = try PostgresCluster.shared().freshDatabaseURL(#function)
      let token = try SyncToken(space: "wishlist", expires: nil)
      let tokens = directory.file("tokens")
      try "\(token.line)\n".write(to: tokens, atomically: true, encoding: .utf8)
      func wishlist(_ store: String, _ arguments: [String], server: URL) throws -> ProcessResult {
        var environment = directory.environment
        environment["KURA_SYNC_URL"] = server.absoluteString
        environment["KURA_SYNC_TOKEN"] = token.token
        environment["TZ"] = "Asia/Tokyo"
        return try run(
          try executable("wishlist"), arguments + ["--store", directory.file(store).path],
          environment: environment)
      }
      // Offline, this version saves to the old store: the save is in the history, not yet in
      // the outbox, and the status counts it with the eight the old version left.
      let nowhere = try #require(URL(string: "http://127.0.0.1:9"))
      let added = try wishlist(
        "a.store", ["trip", "add", "Sapporo", "--start", "2027-02-01"], server: nowhere)
      #expect(added.status == 0, "\(added.stderr)")
      let offline = try wishlist("a.store", ["sync", "status", "--json"], server: nowhere)
      let report = try #require(
        try JSONSerialization.jsonObject(with: Data(offline.stdout.utf8)) as? [String: Any])
      #expect(report["pending"] as? Int == 9, "\(offline.stdout)")
      // The server: the old outbox and the new save go out, once each.
      let server = try SyncTestServer(store: database, tokens: tokens, directory: directory)
      let status = try wishlist("a.store", ["sync", "status"], server: server.url)
      #expect(status.status == 0, "\(status.stderr)")
      #expect(status.stdout.contains("pending      0 saves"), "\(status.stdout)")
      #expect(try Self.outboxSequences(old).isEmpty)
      // A new replica gets exactly what the old store holds: Osaka stays deleted, Nara renamed,
      // both of Kyoto's activities with the one marked done.
      let listA = try wishlist("a.store", ["trip", "list"], server: server.url)
      let listB = try wishlist("b.store", ["trip", "list"], server: server.url)
      #expect(listB.status == 0, "\(listB.stderr)")
      #expect(listA.stdout == listB.stdout)
      let trips = listB.stdout.split(separator: "\n").filter { !$0.isEmpty }
      #expect(trips.count == 3, "\(listB.stdout)")
      for name in ["Kyoto  2026-12-24", "Nara Park  2026-12-26", "Sapporo  2027-02-01"] {
        #expect(listB.stdout.contains(name), "\(name) not in \(listB.stdout)")
      }
      #expect(!listB.stdout.contains("Osaka"))
      #expect(listB.stdout.contains("2 activities"))
      let activitiesA = try wishlist("a.store", ["activity", "list", "Kyoto"], server: server.url)
      let activitiesB = try wishlist("b.store", ["activity", "list", "Kyoto"], server: server.url)
      #expect(activitiesB.status == 0, "\(activitiesB.stderr)")
      #expect(activitiesA.stdout == activitiesB.stdout)
      #expect(activitiesB.stdout.contains("Tea ceremony"))
      #expect(activitiesB.stdout.contains("Fushimi Inari"))
      // Nothing was sent twice: the server's log holds the nine saves of replica A once each
      // (B saved nothing), and A's next command sends nothing more.
      let again = try wishlist("a.store", ["sync", "status", "--json"], server: server.url)
      let after = try #require(
        try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
      #expect(after["pending"] as? Int == 0)
      let logged = try PostgresConnection(database).query(
        "SELECT sequence FROM kura_sync_log ORDER BY position"
      ) { $0.int64(at: 0) }
      #expect(logged == Array(1...9))
      withExtendedLifetime(server) {}
    }
  }
#endif
