#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

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

      /// Whether the backend `processID` waits for a synchronous standby's acknowledgement of
      /// its commit within 30 s (asked of `observer`, once a second).
      func waitsForAStandby(_ processID: Int32, _ observer: PostgresConnection) throws -> Bool {
        for attempt in 0..<30 {
          if attempt > 0 { Thread.sleep(forTimeInterval: 1) }
          let waiting = try observer.queryFirst(
            "SELECT count(*) FROM pg_stat_activity WHERE pid = ? AND wait_event = 'SyncRep'",
            [.integer(Int64(processID))]
          ) { $0.int64(at: 0) }
          if waiting == 1 { return true }
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
        // it after the reload): a table's creation, which takes no notification lock.
        let probe = try PostgresConnection(url)
        let probed = PostgreSQLTests.background {
          Result { try probe.execute("CREATE TABLE probe ()") }
        }
        #expect(try waitsForAStandby(probe.processID, observer))

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
        let controlled = PostgreSQLTests.background {
          Result {
            try control.execute(
              "BEGIN; CREATE TABLE control (); SELECT pg_notify('kura', ''); COMMIT")
          }
        }
        #expect(try waitsForAStandby(control.processID, observer))

        try cluster.runAsSuperuser("ALTER SYSTEM RESET synchronous_standby_names")
        try cluster.runAsSuperuser("SELECT pg_reload_conf()")
        try probed.value().get()
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
