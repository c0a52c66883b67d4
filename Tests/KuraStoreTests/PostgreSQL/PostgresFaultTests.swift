#if canImport(CLibPQ)
  import Foundation
  import Synchronization
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  import KuraStoreCLI

  /// A model for the fault tests.
  private struct FaultMemo: PersistentModel, Equatable {
    var id: Int
    var text: String
  }

  /// A counter a `write` increments (read, then written: applied twice shows as 2).
  private struct FaultCounter: PersistentModel, Equatable {
    var id: String
    var value: Int
  }

  /// A container of `store` reached through `proxy`, its configuration adjusted by `adjust`.
  private func proxiedContainer(
    _ store: TestStore, _ proxy: FaultProxy,
    _ adjust: (inout ModelConfiguration) -> Void = { _ in }
  ) throws -> ModelContainer {
    let url = try #require(URL(string: try proxy.url(replacingHostOf: store.argument)))
    var configuration = ModelConfiguration.postgres(url)
    adjust(&configuration)
    return try ModelContainer(
      for: FaultMemo.self, FaultCounter.self, configurations: configuration)
  }

  /// A container of `store` reached directly (what the server really holds).
  private func directContainer(_ store: TestStore) throws -> ModelContainer {
    try ModelContainer(for: FaultMemo.self, FaultCounter.self, configurations: store.configuration)
  }

  /// The memos the server holds, by id.
  private func storedMemos(_ container: ModelContainer) throws -> [FaultMemo] {
    try ModelContext(container).fetch(FetchDescriptor<FaultMemo>(sortBy: [SortDescriptor(\.id)]))
  }

  extension PostgreSQLTests {
    /// Faults between Kura and the server, made by a relay in front of the test cluster
    /// (`Tests/KuraTests/Support/FaultProxy.swift`): what reached the server is read on a
    /// direct connection.
    @Suite("PostgreSQL faults")
    struct PostgresFaultTests {
      // MARK: Commit outcomes

      /// The server commits, the answer never arrives: the save returns normally (the
      /// transaction's status says committed) and the row is stored once.
      @Test func aSaveWhoseCommitAnswerIsLostReturnsNormally() throws {
        let store = try freshStore(.postgres)
        let proxy = try FaultProxy(cluster: PostgresCluster.shared())
        defer { proxy.stop() }
        let container = try proxiedContainer(store, proxy)
        let context = ModelContext(container)
        proxy.dropAnswer(toQueryStartingWith: "COMMIT")
        try context.insert(FaultMemo(id: 1, text: "kept"))
        try context.save()
        #expect(proxy.answersDropped == 1)
        #expect(!context.hasChanges)
        let direct = try directContainer(store)
        #expect(try storedMemos(direct) == [FaultMemo(id: 1, text: "kept")])
        #expect(try direct.history(since: .start).count == 1)
        // The container goes on (its writer connected again).
        try context.insert(FaultMemo(id: 2, text: "next"))
        try context.save()
        #expect(try storedMemos(direct).map(\.id) == [1, 2])
      }

      /// A read-modify-write whose commit answer is lost is applied once: the outcome is
      /// known, so nothing retries it.
      @Test func aWriteWhoseCommitAnswerIsLostIsAppliedOnce() throws {
        let store = try freshStore(.postgres)
        let proxy = try FaultProxy(cluster: PostgresCluster.shared())
        defer { proxy.stop() }
        let container = try proxiedContainer(store, proxy)
        func increment() throws {
          try container.write { context in
            let counter =
              try context.fetch(FetchDescriptor<FaultCounter>()).first
              ?? FaultCounter(id: "visits", value: 0)
            try context.insert(FaultCounter(id: counter.id, value: counter.value + 1))
          }
        }
        try increment()
        proxy.dropAnswer(toQueryStartingWith: "COMMIT")
        try increment()
        #expect(proxy.answersDropped == 1)
        let counters = try ModelContext(try directContainer(store)).fetch(
          FetchDescriptor<FaultCounter>())
        #expect(counters == [FaultCounter(id: "visits", value: 2)])
      }

      /// The save's history row is trimmed by another container between the commit and the
      /// lookup: the outcome is still "committed" (its commit marker, which trimming never
      /// touches).
      @Test func aLostCommitAnswerIsCommittedEvenWhenItsHistoryWasTrimmedMeanwhile() throws {
        let store = try freshStore(.postgres)
        let proxy = try FaultProxy(cluster: PostgresCluster.shared())
        defer { proxy.stop() }
        let container = try proxiedContainer(store, proxy)
        let direct = try directContainer(store)
        let hookErrors = Mutex<[String]>([])
        let trimmed = Mutex<Bool>(false)
        proxy.dropAnswer(toQueryStartingWith: "COMMIT") {
          do {
            // Wait (bounded) until the commit is visible, save after it (the newest row is
            // always kept), then trim its row away.
            for _ in 0..<500 where try direct.history(since: .start).isEmpty { usleep(10_000) }
            let saved = try direct.currentHistoryToken()
            let other = ModelContext(direct)
            try other.insert(FaultMemo(id: 99, text: "later"))
            try other.save()
            try direct.trimHistory(through: saved)
            let gone = (try? direct.history(since: .start)) == nil
            trimmed.withLock { $0 = gone }
          } catch {
            hookErrors.withLock { $0.append("\(error)") }
          }
        }
        let context = ModelContext(container)
        try context.insert(FaultMemo(id: 1, text: "kept"))
        try context.save()
        #expect(hookErrors.withLock { $0 } == [])
        #expect(trimmed.withLock { $0 })
        #expect(proxy.answersDropped == 1)
        #expect(
          try storedMemos(direct) == [
            FaultMemo(id: 1, text: "kept"), FaultMemo(id: 99, text: "later"),
          ])
      }

      /// With history off there is no history row to look for: the outcome is still known.
      @Test func aLostCommitAnswerIsCommittedWithHistoryOff() throws {
        let store = try freshStore(.postgres)
        let proxy = try FaultProxy(cluster: PostgresCluster.shared())
        defer { proxy.stop() }
        let container = try proxiedContainer(store, proxy) { $0.historyRetention = .off }
        let context = ModelContext(container)
        proxy.dropAnswer(toQueryStartingWith: "INSERT INTO KURA_COMMITS")
        try context.insert(FaultMemo(id: 1, text: "kept"))
        try context.save()
        #expect(proxy.answersDropped == 1)
        #expect(try storedMemos(try directContainer(store)) == [FaultMemo(id: 1, text: "kept")])
      }

      /// The server can't be reached again after the answer was lost: the outcome is
      /// `.commitOutcomeUnknown` (here the save did commit), within `commitOutcomeWait`.
      @Test func aCommitWhoseOutcomeCantBeLearntIsCommitOutcomeUnknown() throws {
        let store = try freshStore(.postgres)
        let proxy = try FaultProxy(cluster: PostgresCluster.shared())
        defer { proxy.stop() }
        let container = try proxiedContainer(store, proxy) {
          $0.postgresSettings.commitOutcomeWait = .seconds(1)
        }
        let context = ModelContext(container)
        proxy.dropAnswer(toQueryStartingWith: "COMMIT") { [weak proxy] in
          proxy?.refuseNewConnections(true)
        }
        try context.insert(FaultMemo(id: 1, text: "maybe"))
        #expect {
          try context.save()
        } throws: { error in
          guard let error = error as? StoreError else { return false }
          return error.code == .commitOutcomeUnknown && error.message.contains("may or may not")
        }
        proxy.refuseNewConnections(false)
        #expect(try storedMemos(try directContainer(store)).map(\.id) == [1])
      }

      /// A store's first open (its tables made in one schema change) whose commit answer is
      /// lost opens normally: the change is known to have committed.
      @Test func aSchemaChangeWhoseCommitAnswerIsLostOpensTheStore() throws {
        let store = try freshStore(.postgres)
        let proxy = try FaultProxy(cluster: PostgresCluster.shared())
        defer { proxy.stop() }
        proxy.dropAnswer(toQueryStartingWith: "INSERT INTO KURA_COMMITS")
        let container = try proxiedContainer(store, proxy)
        #expect(proxy.answersDropped == 1)
        let context = ModelContext(container)
        try context.insert(FaultMemo(id: 1, text: "after"))
        try context.save()
        #expect(try storedMemos(try directContainer(store)).map(\.id) == [1])
      }

      // MARK: Reads and reconnecting

      /// A read whose connection is cut twice (the first try and the retry) is
      /// `.connectionLost`, never an unknown commit outcome; the next read works.
      @Test func aReadThatLosesItsConnectionTwiceIsConnectionLost() throws {
        let store = try freshStore(.postgres)
        let proxy = try FaultProxy(cluster: PostgresCluster.shared())
        defer { proxy.stop() }
        let container = try proxiedContainer(store, proxy)
        let context = ModelContext(container)
        try context.insert(FaultMemo(id: 1, text: "there"))
        try context.save()
        proxy.dropAnswer(toQueryStartingWith: "SELECT", times: 2)
        #expect {
          _ = try ModelContext(container).fetch(
            FetchDescriptor<FaultMemo>(predicate: #Predicate { $0.text == "there" }))
        } throws: { error in (error as? StoreError)?.code == .connectionLost }
        #expect(proxy.answersDropped == 2)
        #expect(try storedMemos(container).map(\.id) == [1])
      }

      /// Every connection of an idle container is ended by the server (as a restart does):
      /// the next fetch and save connect again by themselves.
      @Test func anIdleContainerWhoseConnectionsTheServerEndedReconnects() throws {
        let store = try freshStore(.postgres)
        let container = try directContainer(store)
        let context = ModelContext(container)
        try context.insert(FaultMemo(id: 1, text: "before"))
        try context.save()
        #expect(try storedMemos(container).map(\.id) == [1])
        let cluster = try PostgresCluster.shared()
        let database = try PostgresLocation(store.argument).database ?? ""
        let admin = try PostgresConnection(cluster.url(database: "postgres"))
        let backends = try admin.query(
          "SELECT pid FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()",
          [.text(database)]
        ) { Int32($0.int64(at: 0)) }
        #expect(!backends.isEmpty)
        for backend in backends { try cluster.terminateBackend(backend) }
        #expect(try storedMemos(container).map(\.id) == [1])
        try context.insert(FaultMemo(id: 2, text: "after"))
        try context.save()
        #expect(try storedMemos(container).map(\.id) == [1, 2])
      }

      /// The server restarts while a container is idle: its next fetch and save connect
      /// again by themselves (a cluster of its own, not the shared one).
      @Test func anIdleContainerReconnectsAfterAServerRestart() throws {
        let cluster = try PostgresCluster.start(fsync: false)
        try cluster.runAsSuperuser("CREATE DATABASE kura_restart")
        try savesAndFetchesAcrossARestart(of: cluster, at: cluster.url(database: "kura_restart"))
      }

      /// A container of `url` saves, `cluster` restarts while the container is idle, and the
      /// container's next fetch and save work without it being opened again.
      private func savesAndFetchesAcrossARestart(of cluster: PostgresCluster, at url: String)
        throws
      {
        let container = try ModelContainer(
          for: FaultMemo.self, FaultCounter.self,
          configurations: .postgres(try #require(URL(string: url))))
        let context = ModelContext(container)
        try context.insert(FaultMemo(id: 1, text: "before"))
        try context.save()
        #expect(try storedMemos(container).map(\.id) == [1])
        try cluster.restart()
        #expect(try storedMemos(container).map(\.id) == [1])
        try context.insert(FaultMemo(id: 2, text: "after"))
        try context.save()
        #expect(try storedMemos(container).map(\.id) == [1, 2])
      }

      /// The same over TCP (through the proxy on 127.0.0.1), where the server's goodbye (a
      /// `FATAL` 57P01) can arrive while libpq still reads the connection as open.
      @Test func anIdleContainerReconnectsAfterAServerRestartOverTCP() throws {
        let cluster = try PostgresCluster.start(fsync: false)
        try cluster.runAsSuperuser("CREATE DATABASE kura_restart_tcp")
        let proxy = try FaultProxy(cluster: cluster, tcp: true)
        defer { proxy.stop() }
        try savesAndFetchesAcrossARestart(of: cluster, at: proxy.url(database: "kura_restart_tcp"))
      }

      // MARK: Timeouts

      /// Every connection waits at most 30 s for a lock and takes backslashes literally,
      /// unless the URL's `options` (also `0`: no limit) or the database set their own
      /// `lock_timeout` (a database's `0` is the server's default, which Kura's replaces).
      @Test func connectionsGetKurasLockTimeoutUnlessTheURLOrTheDatabaseSetsOne() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.freshDatabaseURL()
        func setting(_ name: String, at url: String) throws -> String? {
          let connection = try PostgresConnection(url)
          return try connection.queryFirst("SELECT current_setting(?)", [.text(name)]) {
            $0.string(at: 0)
          } ?? nil
        }
        #expect(try setting("lock_timeout", at: url) == "30s")
        #expect(try setting("standard_conforming_strings", at: url) == "on")
        #expect(try setting("lock_timeout", at: url + "&options=-c%20lock_timeout%3D5s") == "5s")
        #expect(try setting("lock_timeout", at: url + "&options=-c%20lock_timeout%3D0") == "0")
        let database = try #require(try PostgresLocation(url).database)
        try cluster.runAsSuperuser("ALTER DATABASE \(database) SET lock_timeout = '7s'")
        #expect(try setting("lock_timeout", at: url) == "7s")
        try cluster.runAsSuperuser("ALTER DATABASE \(database) SET lock_timeout = 0")
        #expect(try setting("lock_timeout", at: url) == "30s")
      }

      // MARK: The listener

      /// A listener whose connection is black-holed (a half-open path: nothing arrives,
      /// nothing fails) notices within its heartbeat and connects again.
      @Test func aListenerOnABlackHoledConnectionConnectsAgain() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.freshDatabaseURL()
        let proxy = try FaultProxy(cluster: cluster)
        defer { proxy.stop() }
        let listener = try PostgresListener(
          location: PostgresLocation(try proxy.url(replacingHostOf: url)),
          heartbeat: .milliseconds(200))
        try listener.listen("kura_fault")
        proxy.blackHoleAll()
        let sender = try PostgresConnection(url)
        try sender.notify("kura_fault", payload: "lost")
        var reconnected = false
        for _ in 0..<100 where !reconnected {
          reconnected = try listener.wait(timeout: .seconds(1)).reconnected
        }
        #expect(reconnected)
        #expect(proxy.acceptedConnections == 2)
        try sender.notify("kura_fault", payload: "seen")
        var payloads: [String] = []
        for _ in 0..<100 where payloads.isEmpty {
          payloads = try listener.wait(timeout: .seconds(1)).notifications.map(\.payload)
        }
        #expect(payloads == ["seen"])
      }

      /// A container's change listener whose connection is black-holed notices within its
      /// heartbeat (`listenerHeartbeat`), connects again and catches up: the feed gets the save
      /// another container made meanwhile.
      @Test func aFeedWhoseListenerIsBlackHoledCatchesUp() async throws {
        let store = try freshStore(.postgres)
        let proxy = try FaultProxy(cluster: PostgresCluster.shared())
        defer { proxy.stop() }
        let container = try proxiedContainer(store, proxy) {
          $0.postgresSettings.listenerHeartbeat = .milliseconds(200)
        }
        let before = proxy.acceptedConnections
        let feed = Inbox(try container.changeSets())
        // The listener is the connection the first observer opened.
        #expect(proxy.acceptedConnections == before + 1)
        proxy.blackHoleLatest()
        let other = ModelContext(try directContainer(store))
        try other.insert(FaultMemo(id: 1, text: "while black-holed"))
        try other.save()
        let set = await feed.next(within: .seconds(60))
        #expect(set?.inserted(FaultMemo.self).count == 1)
        #expect(proxy.acceptedConnections > before + 1)
      }

      // MARK: The pool

      /// Every connection busy (the one reader waits on a table lock held elsewhere): the next
      /// read waits `connectionWait`, then fails with `.busy`, and works once one is free.
      @Test func aReadThatFindsEveryConnectionBusyFailsWithBusy() throws {
        let store = try freshStore(.postgres)
        let url = try #require(URL(string: store.argument))
        var configuration = ModelConfiguration.postgres(url)
        configuration.postgresSettings.maximumConnections = 2
        configuration.postgresSettings.connectionWait = .milliseconds(200)
        let container = try ModelContainer(
          for: FaultMemo.self, FaultCounter.self, configurations: configuration)
        let context = ModelContext(container)
        try context.insert(FaultMemo(id: 1, text: "one"))
        try context.save()
        let admin = try PostgresConnection(store.argument)
        let table = try #require(
          try admin.queryFirst(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
              + "WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname ILIKE "
              + "'%faultmemo%'"
          ) { $0.string(at: 0) })
        try admin.execute(
          "BEGIN; LOCK TABLE \"\(table)\" IN ACCESS EXCLUSIVE MODE")
        let blocked = Mutex<Int?>(nil)
        let reader = Thread {
          let count = try? ModelContext(container).fetchCount(FetchDescriptor<FaultMemo>())
          blocked.withLock { $0 = count ?? -1 }
        }
        reader.start()
        let watcher = try PostgresConnection(store.argument)
        var waiting = false
        for _ in 0..<3000 where !waiting {
          waiting =
            try watcher.queryFirst(
              "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                + "AND wait_event_type = 'Lock'"
            ) { $0.int64(at: 0) } == 1
          if !waiting { usleep(10_000) }
        }
        try #require(waiting)
        #expect {
          _ = try ModelContext(container).fetchCount(FetchDescriptor<FaultMemo>())
        } throws: { error in
          guard let error = error as? StoreError else { return false }
          return error.code == .busy && error.message.contains("maximumConnections")
        }
        try admin.execute("ROLLBACK")
        for _ in 0..<3000 where blocked.withLock({ $0 }) == nil { usleep(10_000) }
        #expect(blocked.withLock { $0 } == 1)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<FaultMemo>()) == 1)
      }

      /// Another thread's `write` holds the writer: a save waits `connectionWait`, then fails
      /// with `.busy` (nothing written), and works once the write ended.
      @Test func aSaveThatWaitsTooLongForTheWriterFailsWithBusy() throws {
        let store = try freshStore(.postgres)
        let url = try #require(URL(string: store.argument))
        var configuration = ModelConfiguration.postgres(url)
        configuration.postgresSettings.connectionWait = .milliseconds(200)
        let container = try ModelContainer(
          for: FaultMemo.self, FaultCounter.self, configurations: configuration)
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let writer = Thread {
          try? container.write { context in
            try context.insert(FaultMemo(id: 1, text: "held"))
            inside.signal()
            _ = release.wait(timeout: .now() + 60)
          }
          finished.signal()
        }
        writer.start()
        try #require(inside.wait(timeout: .now() + 60) == .success)
        let context = ModelContext(container)
        try context.insert(FaultMemo(id: 2, text: "waits"))
        #expect {
          try context.save()
        } throws: { error in
          guard let error = error as? StoreError else { return false }
          return error.code == .busy && error.message.contains("connectionWait")
        }
        release.signal()
        try #require(finished.wait(timeout: .now() + 60) == .success)
        try context.save()
        #expect(try storedMemos(container).map(\.id) == [1, 2])
      }

      /// Many threads reading at once never hold more than `maximumConnections` server
      /// connections (counted in `pg_stat_activity`), and every read succeeds.
      @Test func manyReadingThreadsStayWithinTheConnectionLimit() throws {
        let store = try freshStore(.postgres)
        let url = try #require(URL(string: store.argument))
        var configuration = ModelConfiguration.postgres(url)
        configuration.postgresSettings.maximumConnections = 3
        let container = try ModelContainer(
          for: FaultMemo.self, FaultCounter.self, configurations: configuration)
        let context = ModelContext(container)
        for id in 1...20 { try context.insert(FaultMemo(id: id, text: "memo \(id)")) }
        try context.save()
        let database = try PostgresLocation(store.argument).database ?? ""
        let counter = try PostgresConnection(
          try PostgresCluster.shared().url(database: "postgres"))
        func serverConnections() throws -> Int64 {
          try counter.queryFirst(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = ? AND backend_type = "
              + "'client backend'", [.text(database)]
          ) { $0.int64(at: 0) } ?? 0
        }
        let failures = Atomic<Int>(0)
        let done = Atomic<Bool>(false)
        let most = Mutex<Int64>(0)
        let watcher = Thread {
          guard let watching = try? PostgresConnection(store.argument) else { return }
          var rounds = 0
          while !done.load(ordering: .acquiring) && rounds < 100_000 {
            rounds += 1
            let count =
              (try? watching.queryFirst(
                "SELECT count(*) - 1 FROM pg_stat_activity WHERE datname = current_database() "
                  + "AND backend_type = 'client backend'"
              ) { $0.int64(at: 0) }) ?? 0
            most.withLock { $0 = max($0, count) }
          }
        }
        watcher.start()
        DispatchQueue.concurrentPerform(iterations: 24) { _ in
          let reader = ModelContext(container)
          for _ in 0..<20 {
            let count = (try? reader.fetchCount(FetchDescriptor<FaultMemo>())) ?? -1
            if count != 20 { failures.add(1, ordering: .relaxed) }
          }
        }
        done.store(true, ordering: .releasing)
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(try serverConnections() <= 3 + 1)  // the container's and the watcher's
        #expect(most.withLock { $0 } <= 3)
      }
    }
  }
#endif
