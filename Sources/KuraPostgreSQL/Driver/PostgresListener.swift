import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  internal import CLibPQ

  /// A notification received on a channel: sent by `NOTIFY` or
  /// ``PostgresConnection/notify(_:payload:)`` in any process, delivered when its transaction
  /// committed.
  ///
  /// For example:
  ///
  /// ```swift
  /// for notification in try listener.wait(timeout: .seconds(5)).notifications {
  ///   print(notification.channel, notification.payload)
  /// }
  /// ```
  package struct PostgresNotification: Sendable, Hashable {
    /// The channel it was sent on.
    package var channel: String
    /// The text it carries (empty when none was given).
    package var payload: String
    /// The process id of the server backend that sent it.
    package var senderProcessID: Int32

    /// Creates a notification from its parts.
    ///
    /// For example:
    ///
    /// ```swift
    /// let notification = PostgresNotification(channel: "kura", payload: "7", senderProcessID: 42)
    /// ```
    ///
    /// - Parameters:
    ///   - channel: The channel.
    ///   - payload: The text.
    ///   - senderProcessID: The sending backend's process id.
    package init(channel: String, payload: String, senderProcessID: Int32) {
      self.channel = channel
      self.payload = payload
      self.senderProcessID = senderProcessID
    }
  }

  /// Listens for notifications (`LISTEN`/`NOTIFY`) on a connection of its own, and connects
  /// again when that connection breaks.
  ///
  /// Notifications are only a wake-up: one sent while the listener was disconnected is lost.
  /// So ``wait(timeout:)`` says when it connected again, and the caller then catches up from
  /// its own record (such as the last change token it read) — after the listener is listening
  /// again, so nothing committed afterwards is missed.
  ///
  /// A listener is used by one thread at a time (typically one that loops on
  /// ``wait(timeout:)``); only ``wakeUp()`` may be called from any thread.
  ///
  /// For example:
  ///
  /// ```swift
  /// let listener = try PostgresListener(location: location)
  /// try listener.listen("kura_changes")
  /// while !stopped {
  ///   let event = try listener.wait(timeout: .seconds(30))
  ///   if event.reconnected || !event.notifications.isEmpty { catchUp() }
  /// }
  /// ```
  // Safety: everything but `wakeUp()` is used by one thread at a time, as documented; `wakeUp()`
  // only writes to the wake-up pipe, whose descriptors are constants.
  package final class PostgresListener: @unchecked Sendable {
    /// What one ``PostgresListener/wait(timeout:)`` brought.
    ///
    /// For example:
    ///
    /// ```swift
    /// let event = try listener.wait(timeout: .seconds(1))
    /// if event.reconnected { catchUp() }
    /// ```
    package struct Event: Sendable, Hashable {
      /// The notifications received, in the order they were sent (committed).
      package var notifications: [PostgresNotification]
      /// Whether the listener connected again (after its connection broke) and listens on its
      /// channels again: notifications sent in between are lost, so catch up.
      package var reconnected: Bool
      /// Whether ``PostgresListener/wakeUp()`` ended the wait.
      package var wasWokenUp: Bool
    }

    /// Where the listener connects.
    ///
    /// For example: `print(listener.location)`.
    package let location: PostgresLocation
    private var connection: PostgresConnection?
    private var channels: [String] = []
    /// How long the connection may stay silent before it is checked, and how long the check's
    /// answer may take before the connection counts as dead.
    package let heartbeat: Duration
    /// When the server was last heard from (or the connection opened).
    private var lastHeard = ContinuousClock.now
    /// When the check under way (a `LISTEN` again) was sent, if one is.
    private var checkSent: ContinuousClock.Instant?
    private let wakeUpReader: Int32
    private let wakeUpWriter: Int32

    /// Connects to the database at `location`, listening on no channel yet.
    ///
    /// For example: `let listener = try PostgresListener(location: location)`.
    ///
    /// - Parameters:
    ///   - location: The server, database and user.
    ///   - heartbeat: How long the connection may stay silent before ``wait(timeout:)`` checks
    ///     it (listening again on its first channel), and how long the answer may take before the connection counts
    ///     as dead and is opened again: a half-open connection (a vanished host, a black-holed
    ///     network path) is noticed within twice this; 5 seconds by default.
    /// - Throws: ``PostgresError`` when connecting fails.
    package convenience init(location: PostgresLocation, heartbeat: Duration = .seconds(5)) throws {
      try self.init(connectingLater: location, heartbeat: heartbeat)
      connection = try PostgresConnection(location: location)
    }

    /// A listener that connects on its first ``wait(timeout:)`` (which says it
    /// ``Event/reconnected``), with the same retries as after a broken connection.
    ///
    /// - Throws: ``PostgresError`` when the wake-up pipe can't be made.
    package init(connectingLater location: PostgresLocation, heartbeat: Duration) throws {
      self.location = location
      self.heartbeat = heartbeat
      var descriptors: [Int32] = [0, 0]
      guard pipe(&descriptors) == 0 else {
        throw PostgresError(
          code: .other,
          message: "can't create the listener's wake-up pipe: \(String(cString: strerror(errno)))",
          server: location.description)
      }
      wakeUpReader = descriptors[0]
      wakeUpWriter = descriptors[1]
      for descriptor in descriptors {
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
      }
    }

    deinit {
      connection = nil
      close(wakeUpReader)
      close(wakeUpWriter)
    }

    /// The process id of the server backend listening, or `nil` while disconnected.
    ///
    /// For example: `print(listener.processID ?? 0)`.
    package var processID: Int32? {
      guard let connection, connection.isConnected else { return nil }
      return connection.processID
    }

    /// Starts listening on `channel` (also after every reconnection).
    ///
    /// For example: `try listener.listen("kura_changes")`.
    ///
    /// - Parameter channel: The channel name (any text; it is quoted).
    /// - Throws: ``PostgresError`` when the server refuses or the connection broke (it is
    ///   remembered all the same, and listened to after reconnecting).
    package func listen(_ channel: String) throws {
      if !channels.contains(channel) { channels.append(channel) }
      finishCheck()
      guard let connection else { return }
      try connection.execute("LISTEN \(Self.quoted(channel))")
    }

    /// Stops listening on `channel`.
    ///
    /// For example: `try listener.unlisten("kura_changes")`.
    ///
    /// - Parameter channel: The channel name.
    /// - Throws: ``PostgresError`` when the connection broke.
    package func unlisten(_ channel: String) throws {
      channels.removeAll { $0 == channel }
      finishCheck()
      guard let connection, connection.isConnected else { return }
      try connection.execute("UNLISTEN \(Self.quoted(channel))")
    }

    /// A channel name as an SQL identifier.
    private static func quoted(_ channel: String) -> String {
      "\"" + channel.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Makes a current (or the next) ``wait(timeout:)`` return at once; callable from any
    /// thread, such as one that stops the listening loop.
    ///
    /// For example: `listener.wakeUp()`.
    package func wakeUp() {
      var byte: UInt8 = 1
      _ = write(wakeUpWriter, &byte, 1)
    }

    /// Waits until notifications arrive, the listener reconnected, ``wakeUp()`` is called, or
    /// `timeout` passes, and returns what came.
    ///
    /// When the connection broke, it connects again (retrying, at growing intervals, until the
    /// timeout), listens on its channels again, and returns with
    /// ``Event/reconnected`` set.
    ///
    /// For example:
    ///
    /// ```swift
    /// let event = try listener.wait(timeout: .seconds(30))
    /// for notification in event.notifications { print(notification.payload) }
    /// ```
    ///
    /// - Parameter timeout: The longest wait.
    /// - Returns: The notifications received (none on timeout) and whether it reconnected.
    /// - Throws: ``PostgresError`` when the connection broke and connecting again kept failing
    ///   until the timeout (the next wait tries again).
    package func wait(timeout: Duration) throws -> Event {
      let clock = ContinuousClock()
      let deadline = clock.now + timeout
      var event = Event(notifications: [], reconnected: false, wasWokenUp: false)
      var retryDelay = Duration.milliseconds(50)
      while true {
        guard let connection, connection.isConnected, let handle = connection.session.handle
        else {
          do {
            try connect()
            event.reconnected = true
            continue
          } catch {
            let remaining = clock.now.duration(to: deadline)
            if remaining <= .zero { throw error }
            if waitForWakeUp(min(retryDelay, remaining)) {
              event.wasWokenUp = true
              return event
            }
            retryDelay = min(retryDelay * 2, .seconds(1))
            continue
          }
        }
        // Read what arrived; a broken connection shows as a failed read.
        if PQconsumeInput(handle) == 0 || PQstatus(handle) != CONNECTION_OK {
          self.connection = nil
          continue
        }
        if checkSent != nil, PQisBusy(handle) == 0 {
          // The check's answer came: read its results.
          while let result = PQgetResult(handle) { PQclear(result) }
          checkSent = nil
          lastHeard = clock.now
        }
        while let notice = PQnotifies(handle) {
          event.notifications.append(
            PostgresNotification(
              channel: String(cString: notice.pointee.relname),
              payload: notice.pointee.extra.map { String(cString: $0) } ?? "",
              senderProcessID: notice.pointee.be_pid))
          PQfreemem(notice)
        }
        if !event.notifications.isEmpty { lastHeard = clock.now }
        if !event.notifications.isEmpty || event.reconnected { return event }
        // Silent too long: check the connection; no answer in time: it is dead.
        if let sent = checkSent {
          if sent.duration(to: clock.now) >= heartbeat {
            self.connection = nil
            checkSent = nil
            continue
          }
        } else if lastHeard.duration(to: clock.now) >= heartbeat {
          // Listening again is a no-op that keeps `pg_stat_activity` showing a listener.
          let check = channels.first.map { "LISTEN \(Self.quoted($0))" } ?? ""
          if PQsendQuery(handle, check) == 0 {
            self.connection = nil
            continue
          }
          checkSent = clock.now
        }
        let remaining = clock.now.duration(to: deadline)
        if remaining <= .zero { return event }
        let nextCheck = (checkSent ?? lastHeard) + heartbeat
        let pause = min(remaining, max(clock.now.duration(to: nextCheck), .milliseconds(1)))
        var descriptors = [
          pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0),
          pollfd(fd: wakeUpReader, events: Int16(POLLIN), revents: 0),
        ]
        let ready = poll(&descriptors, 2, PostgresSession.pollTimeout(pause))
        if ready < 0 && errno != EINTR {
          throw PostgresError(
            code: .other, message: "poll failed: \(String(cString: strerror(errno)))",
            server: connection.session.server)
        }
        if descriptors[1].revents != 0 {
          drainWakeUps()
          event.wasWokenUp = true
          return event
        }
      }
    }

    /// Connects and listens on every channel.
    private func connect() throws {
      connection = nil
      checkSent = nil
      let connection = try PostgresConnection(location: location)
      for channel in channels { try connection.execute("LISTEN \(Self.quoted(channel))") }
      self.connection = connection
      lastHeard = .now
    }

    /// Waits for the answer to a check under way (before another statement is sent), at most a
    /// heartbeat; a connection that gives none counts as dead.
    private func finishCheck() {
      guard checkSent != nil, let handle = connection?.session.handle else { return }
      checkSent = nil
      let deadline = ContinuousClock.now + heartbeat
      while PQisBusy(handle) != 0 {
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        let remaining = ContinuousClock.now.duration(to: deadline)
        if remaining <= .zero || poll(&descriptor, 1, PostgresSession.pollTimeout(remaining)) == 0
          || PQconsumeInput(handle) == 0
        {
          connection = nil
          return
        }
      }
      while let result = PQgetResult(handle) { PQclear(result) }
      lastHeard = .now
    }

    /// Waits `duration` for a wake-up; returns whether one came.
    package func waitForWakeUp(_ duration: Duration) -> Bool {
      var descriptor = pollfd(fd: wakeUpReader, events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptor, 1, PostgresSession.pollTimeout(duration))
      guard ready > 0 else { return false }
      drainWakeUps()
      return true
    }

    private func drainWakeUps() {
      var bytes = [UInt8](repeating: 0, count: 64)
      while read(wakeUpReader, &bytes, bytes.count) > 0 {}
    }
  }
#endif
