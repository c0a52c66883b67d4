#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraSync

  import KuraSyncCore

  import KuraStoreCLI

  import KuraTestSupport

  import KuraEngineTestSupport

  /// `wishlist recent --watch` on a PostgreSQL store that becomes unreachable and comes back:
  /// it says so on standard error both times, and the listing goes on (issue 23).
  @Suite("wishlist recent --watch when the server goes away")
  struct WishlistWatchTests {
    @Test func watchingSaysWhenTheServerIsUnreachableAndWhenItIsBack() throws {
      let store = try wishlistStore(.postgres)
      let cluster = try PostgresCluster.shared()
      let proxy = try FaultProxy(cluster: cluster)
      defer { proxy.stop() }
      let proxied = try proxy.url(replacingHostOf: store.argument)
      var environment = store.environment
      environment["TZ"] = "Asia/Tokyo"
      let wishlist = try executable("wishlist")
      let added = try run(
        wishlist, ["--store", store.argument, "trip", "add", "Kyoto"],
        environment: environment)
      try #require(added.status == 0, "\(added.stderr)")

      let watch = try ChildProcess(
        wishlist, ["--store", proxied, "recent", "--watch"], environment: environment)
      defer { watch.send(SIGKILL) }
      try #require(watch.waitForLine { $0.hasPrefix("Watching for new trips") } != nil)
      #expect(watch.outputLines.contains { $0.hasPrefix("Kyoto ") })

      // The server can't be reached: every connection cut, new ones refused.
      proxy.refuseNewConnections(true)
      proxy.cutAll()
      let warning = watch.waitForLine(onStandardError: true, timeout: 60) {
        $0.hasPrefix("wishlist: warning: can't read the store")
      }
      #expect(warning?.contains("still watching") == true, "\(warning ?? "")")

      // Back: the watch says so, and a trip added meanwhile (directly) shows.
      let meanwhile = try run(
        wishlist, ["--store", store.argument, "trip", "add", "Nara"],
        environment: environment)
      try #require(meanwhile.status == 0, "\(meanwhile.stderr)")
      proxy.refuseNewConnections(false)
      watch.waitForLine(onStandardError: true, timeout: 60) {
        $0.hasSuffix("can be read again.")
      }
      watch.waitForLine(timeout: 60) { $0.hasPrefix("+ Nara ") }
    }
  }
#endif
