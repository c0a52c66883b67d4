#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraSync

  import KuraSyncCore
  import KuraSyncServer

  import KuraStoreCLI

  import KuraTestSupport

  import KuraEngineTestSupport

  /// `wishlist --sync`: two stores (two terminals) syncing through a real `kura sync serve` on
  /// a real PostgreSQL database, through the built executable.
  @Suite("wishlist sync")
  struct WishlistSyncTests {
    /// The two terminals' common setup: a server with a `wishlist` space, and each terminal's
    /// store file.
    private final class Terminals: Sendable {
      let directory = TemporaryDirectory("wishlist-sync")
      let database: String
      let token: SyncToken
      let tokens: URL
      let server: SyncTestServer

      init(name: String = #function) throws {
        database = try PostgresCluster.shared().freshDatabaseURL(name)
        token = try SyncToken(space: "wishlist", expires: nil)
        tokens = directory.file("tokens")
        try "\(token.line)\n".write(to: tokens, atomically: true, encoding: .utf8)
        server = try SyncTestServer(store: database, tokens: tokens, directory: directory)
      }

      /// Runs `wishlist` on terminal `name`'s store with sync through `server` (the
      /// environment variables, as a shell would set them).
      func wishlist(_ name: String, _ arguments: [String], server: URL? = nil) throws
        -> ProcessResult
      {
        var environment = directory.environment
        environment["KURA_SYNC_URL"] = (server ?? self.server.url).absoluteString
        environment["KURA_SYNC_TOKEN"] = token.token
        environment["TZ"] = "Asia/Tokyo"
        return try run(
          try executable("wishlist"),
          arguments + ["--store", directory.file("\(name).store").path],
          environment: environment)
      }

      @discardableResult
      func ok(_ name: String, _ arguments: String...) throws -> String {
        let result = try wishlist(name, arguments)
        try #require(result.status == 0, "wishlist \(arguments) failed: \(result.stderr)")
        return result.stdout
      }
    }

    @Test func twoStoresSeeEachOthersTripsAndOfflineEditsMergeWhenTheServerIsBack() throws {
      let terminals = try Terminals()
      try terminals.ok("a", "trip", "add", "Kyoto", "--start", "2026-12-24")
      // B has no store yet: the list makes it and brings A's trip.
      #expect(try terminals.ok("b", "trip", "list").contains("Kyoto  2026-12-24"))
      try terminals.ok("b", "trip", "add", "Nara", "--start", "2026-12-26")
      #expect(try terminals.ok("a", "trip", "list").contains("Nara  2026-12-26"))
      let status = try terminals.ok("a", "sync", "status")
      #expect(status.contains("state        up to date"))
      #expect(status.contains("pending      0 saves"))
      #expect(!status.contains("last synced  never"))
      // The server stops; both edit. Each command works and says it did not sync.
      let port = try #require(terminals.server.url.port)
      terminals.server.process.send(SIGKILL)
      _ = terminals.server.process.waitForExit()
      let offline = try terminals.wishlist("a", ["trip", "rename", "Kyoto", "Kyōto"])
      #expect(offline.status == 0)
      #expect(offline.stderr.contains("wishlist: not synced: Can't reach the sync server"))
      try terminals.ok("b", "trip", "add", "Osaka", "--start", "2026-12-28")
      let waiting = try terminals.wishlist("a", ["sync", "status", "--json"])
      #expect(waiting.status == 0)
      let report = try #require(
        try JSONSerialization.jsonObject(with: Data(waiting.stdout.utf8)) as? [String: Any])
      #expect(report["state"] as? String == "offline")
      #expect(report["pending"] as? Int == 1)
      #expect(report["lastSynced"] is String)
      // The server is back on the same port: the edits merge everywhere.
      let again = try SyncTestServer(
        store: terminals.database, tokens: terminals.tokens, directory: terminals.directory,
        port: port)
      #expect(again.url.port == port)  // the same server again
      try terminals.ok("a", "sync", "status")
      try terminals.ok("b", "sync", "status")
      let listA = try terminals.ok("a", "trip", "list")
      let listB = try terminals.ok("b", "trip", "list")
      #expect(listA == listB)
      for name in ["Kyōto  2026-12-24", "Nara  2026-12-26", "Osaka  2026-12-28"] {
        #expect(listA.contains(name), "\(name) not in \(listA)")
      }
      #expect(!listA.contains("Kyoto "))
      #expect(try terminals.ok("b", "sync", "status").contains("pending      0 saves"))
      withExtendedLifetime(again) {}  // the server runs until here
    }

    @Test func aSyncURLWithoutATokenOrNotAURLIsRefused() throws {
      let directory = TemporaryDirectory()
      var environment = directory.environment
      environment["KURA_SYNC_URL"] = "http://127.0.0.1:9"
      let missing = try run(
        try executable("wishlist"), ["trip", "list"], environment: environment)
      #expect(missing.status == 64)
      #expect(missing.stderr.contains("Missing the sync token: give --sync-token"))
      let bad = try run(
        try executable("wishlist"), ["trip", "list", "--sync", "ftp:nowhere", "--sync-token", "x"],
        environment: directory.environment)
      #expect(bad.status == 64)
      #expect(bad.stderr.contains("`ftp:nowhere` is not a valid value for --sync"))
      let off = try run(
        try executable("wishlist"), ["sync", "status"], environment: directory.environment)
      #expect(off.status == 64)
      #expect(off.stderr.contains("Sync is off: give --sync <url>"))
    }
  }
#endif
