#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  import KuraStoreCLI

  extension PostgreSQLTests {
    @Suite("PostgreSQL listener")
    struct PostgresListenerTests {
      /// Waits (at most 60 s in all) until `count` notifications arrived.
      func notifications(
        _ listener: PostgresListener, count: Int
      ) throws -> [PostgresNotification] {
        var received: [PostgresNotification] = []
        for _ in 0..<60 where received.count < count {
          received += try listener.wait(timeout: .seconds(1)).notifications
        }
        return received
      }

      @Test func notificationsFromAnotherConnectionArrive() throws {
        let url = try PostgresCluster.freshDatabaseURL()
        let listener = try PostgresListener(location: PostgresLocation(url))
        try listener.listen("kura changes")
        try listener.listen("other")
        let sender = try PostgresConnection(url)
        try sender.notify("kura changes", payload: "1")
        try sender.transaction {
          try sender.notify("other")
          try sender.notify("kura changes", payload: "étape 2")
        }
        // Sent in a transaction that rolls back: never delivered.
        try? sender.transaction {
          try sender.notify("kura changes", payload: "rolled back")
          throw CancellationError()
        }
        try sender.notify("unheard", payload: "x")
        try sender.notify("kura changes", payload: "3")
        let received = try notifications(listener, count: 4)
        #expect(
          received == [
            PostgresNotification(
              channel: "kura changes", payload: "1", senderProcessID: sender.processID),
            PostgresNotification(channel: "other", payload: "", senderProcessID: sender.processID),
            PostgresNotification(
              channel: "kura changes", payload: "étape 2", senderProcessID: sender.processID),
            PostgresNotification(
              channel: "kura changes", payload: "3", senderProcessID: sender.processID),
          ])
        // Nothing else is waiting.
        let event = try listener.wait(timeout: .zero)
        #expect(event.notifications.isEmpty && !event.reconnected && !event.wasWokenUp)
      }

      @Test func aListenerWhoseBackendIsTerminatedReconnectsAndHearsAgain() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.freshDatabaseURL()
        let listener = try PostgresListener(location: PostgresLocation(url))
        try listener.listen("kura")
        let sender = try PostgresConnection(url)
        try sender.notify("kura", payload: "before")
        #expect(try notifications(listener, count: 1).map(\.payload) == ["before"])

        let firstBackend = try #require(listener.processID)
        try cluster.terminateBackend(firstBackend)
        // Sent while the listener is away: lost, which is why it says it reconnected.
        try sender.notify("kura", payload: "while away")
        let event = try listener.wait(timeout: .seconds(60))
        #expect(event.reconnected)
        let secondBackend = try #require(listener.processID)
        #expect(secondBackend != firstBackend)

        try sender.notify("kura", payload: "after")
        let after = try notifications(listener, count: 1).map(\.payload)
        #expect(after == ["after"])
      }

      /// Whether the backend `processID`, sent `statement`, waits for a synchronous standby's
      /// acknowledgement of its commit (`true`) or ends it without waiting (`false`), asked of
      /// `observer` every 0.1 s for 60 s at most.
      func waitsForAStandby(
        _ processID: Int32, running statement: String, _ observer: PostgresConnection
      ) throws -> Bool {
        for attempt in 0..<600 {
          if attempt > 0 { Thread.sleep(forTimeInterval: 0.1) }
          let seen = try observer.queryFirst(
            "SELECT coalesce(wait_event, ''), coalesce(state, ''), query FROM pg_stat_activity "
              + "WHERE pid = ?", [.integer(Int64(processID))]
          ) { ($0.string(at: 0), $0.string(at: 1), $0.string(at: 2)) }
          guard let (event, state, query) = seen else { return false }
          if event == "SyncRep" { return true }
          if state == "idle" && query == statement { return false }
        }
        return false
      }

      /// A save's notification commits in a transaction that waits for no flush (one that only
      /// notifies: see `PostgresStorePool.notifySQL`), so a notifying commit, which holds
      /// PostgreSQL's cluster-wide notification lock until it ends, is not one every writer's
      /// flush waits behind. Shown on a cluster whose every commit that must be flushed waits
      /// forever (for a synchronous standby that never connects): the notification is
      /// delivered, and the same notification sent in a transaction that wrote waits.
      @Test func aSavesNotificationCommitsWithoutWaitingForAFlush() throws {
        let cluster = try PostgresCluster.start(fsync: false)
        let url = try cluster.freshDatabaseURL()
        let observer = try PostgresConnection(url)
        let listener = try PostgresListener(location: PostgresLocation(url))
        try listener.listen("kura")
        try cluster.runAsSuperuser("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
        try cluster.runAsSuperuser("SELECT pg_reload_conf()")
        // Released (every waiting commit completes) when the setting is gone.
        defer {
          try? cluster.runAsSuperuser("ALTER SYSTEM RESET synchronous_standby_names")
          try? cluster.runAsSuperuser("SELECT pg_reload_conf()")
        }
        // The setting is in force once a commit waits for the standby (the checkpointer applies
        // it some time after the reload): tables are created, which takes no notification lock,
        // until one's commit waits.
        var probes: [PostgreSQLTests.BackgroundResult<Result<Void, any Error>>] = []
        var inForce = false
        for attempt in 0..<100 where !inForce {
          let probe = try PostgresConnection(url)
          let statement = "CREATE TABLE probe_\(attempt) ()"
          probes.append(PostgreSQLTests.background { Result { try probe.execute(statement) } })
          inForce = try waitsForAStandby(probe.processID, running: statement, observer)
          if !inForce { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(inForce)

        let notifier = try PostgresConnection(url)
        let notified = PostgreSQLTests.background {
          Result { try notifier.execute(PostgresStorePool.notifySQL(channel: "kura")) }
        }
        try notified.value().get()
        let received = try notifications(listener, count: 1)
        #expect(received.map(\.senderProcessID) == [notifier.processID])

        // The control: the same notification in a transaction that wrote (as a save's own)
        // waits for the standby.
        let control = try PostgresConnection(url)
        let controlStatement =
          "BEGIN; CREATE TABLE control (); SELECT pg_notify('kura', ''); COMMIT"
        let controlled = PostgreSQLTests.background {
          Result { try control.execute(controlStatement) }
        }
        #expect(try waitsForAStandby(control.processID, running: controlStatement, observer))

        try cluster.runAsSuperuser("ALTER SYSTEM RESET synchronous_standby_names")
        try cluster.runAsSuperuser("SELECT pg_reload_conf()")
        for probed in probes { try probed.value().get() }
        try controlled.value().get()
      }

      @Test func wakeUpEndsAWaitFromAnotherThread() async throws {
        let url = try PostgresCluster.freshDatabaseURL()
        let listener = try PostgresListener(location: PostgresLocation(url))
        try listener.listen("kura")
        let (threads, found) = AsyncStream<KernelThread?>.makeStream()
        let waited = PostgreSQLTests.background { () -> PostgresListener.Event? in
          found.yield(try? KernelThread.current())
          return try? listener.wait(timeout: .seconds(120))
        }
        // Woken only once the other thread is inside its wait (asleep in poll), so the wake-up
        // ends a wait rather than one not yet started.
        var iterator = threads.makeAsyncIterator()
        let waiter = try #require(await iterator.next() ?? nil)
        try waiter.waitUntilWaitingInPoll()
        listener.wakeUp()
        let event = try #require(try waited.value())
        #expect(event.wasWokenUp)
        #expect(event.notifications.isEmpty)
      }
    }
  }
#endif
