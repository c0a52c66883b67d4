#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  import KuraStoreCLI

  /// A model for the round-trip tests.
  private struct TripMemo: PersistentModel, Equatable {
    var id: Int
    var text: String
  }

  extension PostgreSQLTests {
    /// How many times a save waits for the server, counted by the fault proxy in front of the
    /// test cluster (the simple queries and `Sync` messages it relays), and what happens when
    /// the round trip that opens a save's transaction loses its connection.
    @Suite("PostgreSQL round trips")
    struct PostgresRoundTripTests {
      /// A fresh store reached through a fault proxy of its own, its first model (1, "first")
      /// saved twice, so the save's statements are prepared (the first save's history row also
      /// reads the oldest row for the trim, the next ones don't).
      private struct Proxied {
        let store: TestStore
        let proxy: FaultProxy
        let container: ModelContainer
        let context: ModelContext

        init() throws {
          store = try freshStore(.postgres)
          proxy = try FaultProxy(cluster: PostgresCluster.shared())
          let url = try #require(URL(string: try proxy.url(replacingHostOf: store.argument)))
          container = try ModelContainer(for: TripMemo.self, configurations: .postgres(url))
          context = ModelContext(container)
          for _ in 0..<2 {
            try context.insert(TripMemo(id: 1, text: "first"))
            try context.save()
          }
        }

        /// What the server holds, by id, read on a direct connection.
        func stored() throws -> [TripMemo] {
          let direct = try ModelContainer(for: TripMemo.self, configurations: store.configuration)
          return try ModelContext(direct).fetch(
            FetchDescriptor<TripMemo>(sortBy: [SortDescriptor(\.id)]))
        }
      }

      /// The exchanges with the server that `body` made through `proxy`.
      private func exchanges(_ proxy: FaultProxy, _ body: () throws -> Void) rethrows -> Int {
        let before = proxy.exchanges
        try body()
        return proxy.exchanges - before
      }

      /// A save of one model is three round trips once its statements are prepared: `BEGIN`,
      /// the store's lock and the upsert in one pipeline; the history row; `COMMIT` with the
      /// notification. An insert and an update alike.
      @Test func aSaveOfOneModelIsThreeRoundTrips() throws {
        let proxied = try Proxied()
        let (proxy, context) = (proxied.proxy, proxied.context)
        defer { proxy.stop() }
        let insert = try exchanges(proxy) {
          try context.insert(TripMemo(id: 2, text: "second"))
          try context.save()
        }
        #expect(insert == 3)
        let update = try exchanges(proxy) {
          try context.insert(TripMemo(id: 2, text: "changed"))
          try context.save()
        }
        #expect(update == 3)
        #expect(
          try proxied.stored() == [
            TripMemo(id: 1, text: "first"), TripMemo(id: 2, text: "changed"),
          ])
      }

      /// A lookup by id and a fetch are one round trip each, once their statements are prepared.
      @Test func aLookupByIDAndAFetchAreOneRoundTripEach() throws {
        let proxied = try Proxied()
        let proxy = proxied.proxy
        defer { proxy.stop() }
        let reader = ModelContext(proxied.container)
        _ = try reader.model(for: 1, as: TripMemo.self)
        _ = try reader.fetch(FetchDescriptor<TripMemo>())
        var found: TripMemo?
        let lookup = try exchanges(proxy) { found = try reader.model(for: 1, as: TripMemo.self) }
        #expect(found == TripMemo(id: 1, text: "first"))
        #expect(lookup == 1)
        var fetched: [TripMemo] = []
        let fetch = try exchanges(proxy) { fetched = try reader.fetch(FetchDescriptor<TripMemo>()) }
        #expect(fetched == [TripMemo(id: 1, text: "first")])
        #expect(fetch == 1)
      }

      /// The connection breaks while the pipeline opening a save's transaction is on its way
      /// (the proxy cuts it after relaying the `BEGIN`): nothing of the transaction ran, so the
      /// save connects again, runs once more and is stored once.
      @Test func aSaveWhoseOpeningPipelineLosesItsConnectionRunsOnceMore() throws {
        let proxied = try Proxied()
        let (proxy, context) = (proxied.proxy, proxied.context)
        defer { proxy.stop() }
        let accepted = proxy.acceptedConnections
        proxy.dropAnswer(toQueryStartingWith: "BEGIN")
        try context.insert(TripMemo(id: 2, text: "second"))
        try context.save()
        #expect(proxy.answersDropped == 1)
        #expect(proxy.acceptedConnections == accepted + 1)
        #expect(
          try proxied.stored() == [TripMemo(id: 1, text: "first"), TripMemo(id: 2, text: "second")])
      }

      /// A save whose statement fails inside the pipeline that opened its transaction (a
      /// `NOT NULL` column the model leaves out, made by another program) reports the
      /// statement's error, writes nothing, and leaves the connection ready for the next save.
      @Test func aStatementFailingInTheOpeningPipelineIsReportedAndRolledBack() throws {
        let store = try freshStore(.postgres)
        let container = try ModelContainer(for: TripMemo.self, configurations: store.configuration)
        let context = ModelContext(container)
        try context.insert(TripMemo(id: 1, text: "first"))
        try context.save()
        let admin = try PostgresConnection(store.argument)
        try admin.execute(
          "ALTER TABLE \"TripMemo\" ADD COLUMN required bigint NOT NULL DEFAULT 0; "
            + "ALTER TABLE \"TripMemo\" ALTER COLUMN required DROP DEFAULT")
        try context.insert(TripMemo(id: 2, text: "refused"))
        #expect {
          try context.save()
        } throws: { error in
          let underlying = (error as? StoreError)?.underlying as? PostgresError
          return underlying?.sqlState == "23502"
        }
        try admin.execute("ALTER TABLE \"TripMemo\" DROP COLUMN required")
        context.rollback()
        try context.insert(TripMemo(id: 3, text: "third"))
        try context.save()
        let stored = try ModelContext(container).fetch(
          FetchDescriptor<TripMemo>(sortBy: [SortDescriptor(\.id)]))
        #expect(stored.map(\.id) == [1, 3])
      }
    }
  }
#endif
