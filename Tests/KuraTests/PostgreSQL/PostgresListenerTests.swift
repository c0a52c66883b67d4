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
