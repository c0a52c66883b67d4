#if canImport(CLibPQ)
  import Foundation
  import Synchronization
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraSync

  import KuraSyncCore

  import KuraSyncServer

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  /// A model of the rejection tests.
  private struct SyncNote: PersistentModel, Equatable {
    var id: UUID
    var text: String
  }

  /// Every local save ends acknowledged or listed as rejected with a reason: a save the server
  /// refuses for good is set aside and never blocks the saves after it; a transient failure
  /// keeps it in the outbox; the status never says "up to date" while the outbox holds one.
  @Suite("Sync rejections")
  struct SyncRejectionTests {
    private static func notes(_ container: ModelContainer) throws -> [SyncNote] {
      try ModelContext(container).fetch(FetchDescriptor<SyncNote>(sortBy: [SortDescriptor(\.text)]))
    }

    private static func save(_ note: SyncNote, in container: ModelContainer) throws {
      let context = ModelContext(container)
      try context.insert(note)
      try context.save()
    }

    /// Three saves, the middle one over the server's 4 MiB body limit: the first and the last
    /// reach the server and the other replica; the middle one is listed with the server's
    /// reason and stays in this store only.
    @Test func aSaveTheServerRefusesIsSetAsideAndTheSavesAfterItGoThrough() async throws {
      let world = try SyncRulesWorld([SyncNote.self])
      let a = try world.container("a")
      let first = SyncNote(id: UUID(), text: "first")
      let huge = SyncNote(
        id: UUID(), text: "huge " + String(repeating: "x", count: SyncService.maximumBodyBytes))
      let last = SyncNote(id: UUID(), text: "last")
      try Self.save(first, in: a)
      try Self.save(huge, in: a)
      try Self.save(last, in: a)
      let syncA = try SyncEngine(container: a)
      defer { syncA.stop() }
      try await syncA.syncNow()
      #expect(syncA.status.pending == 0)
      let rejections = try syncA.rejections()
      try #require(rejections.count == 1)
      #expect(rejections[0].sequence == 2)
      #expect(rejections[0].status == 413)
      #expect(rejections[0].models == ["SyncNote"])
      #expect(rejections[0].ids == [huge.id.uuidString])
      #expect(rejections[0].reason.contains("over \(SyncService.maximumBodyBytes) bytes"))
      // Saves 1 and 3 are logged; 2 took its number without a position.
      let logged = try world.serverQuery(
        "SELECT sequence FROM kura_sync_log ORDER BY position"
      ) { $0.int64(at: 0) }
      #expect(logged == [1, 3])
      let acknowledged = try world.serverQuery("SELECT acknowledged FROM kura_sync_replicas") {
        $0.int64(at: 0)
      }
      #expect(acknowledged == [3])
      #expect(try Self.notes(a) == [first, huge, last])
      let (b, syncB) = try world.replica("b")
      defer { syncB.stop() }
      try await syncB.syncNow()
      #expect(try Self.notes(b) == [first, last])
      // A later save goes through, and the list stays until cleared.
      let later = SyncNote(id: UUID(), text: "later")
      try Self.save(later, in: a)
      try await syncA.syncNow()
      try await syncB.syncNow()
      #expect(try Self.notes(b) == [first, last, later])
      #expect(try syncA.rejections().count == 1)
      try syncA.clearRejections()
      #expect(try syncA.rejections().isEmpty)
    }

    /// A push body over 1 MiB asks for the server's go-ahead before it is sent (`Expect:
    /// 100-continue`), so a refusal that comes at once is read whole, never cut off by a reset
    /// connection; a smaller body is sent with its head. Checked against a listener that
    /// records each request's head and refuses it (a large one without reading its body).
    @Test func aLargePushAsksBeforeSendingItsBody() async throws {
      let directory = TemporaryDirectory()
      let refuser = try HeadRecorder()
      defer { refuser.stop() }
      var configuration = ModelConfiguration.url(directory.file("replica.store"))
      let settings = SyncSettings(server: refuser.url, space: "family", token: "t")
      configuration.sync = settings
      let container = try ModelContainer(for: SyncNote.self, configurations: configuration)
      let transport = SyncTransport(container: container, settings: settings)
      for size in [100_000, SyncTransport.continueBodyBytes + 1, 8 << 20] {
        do {
          _ = try await transport.send("POST", path: "push", body: Data(count: size))
          Issue.record("a \(size)-byte push was not refused")
        } catch let error as SyncError {
          #expect(error.status == 413, "\(size) bytes: \(error)")
          #expect(error.message.contains("too large for the test"), "\(size) bytes: \(error)")
        }
      }
      let heads = refuser.heads.map { $0.lowercased() }
      try #require(heads.count == 3)
      #expect(!heads[0].contains("expect:"))
      #expect(heads[1].contains("expect: 100-continue"))
      #expect(heads[2].contains("expect: 100-continue"))
    }

    /// The server failing (its database unreachable: 503) is transient: the save stays in the
    /// outbox, the status says failing with it pending, and it is sent once the server is well.
    @Test func aServerFailureKeepsTheSaveInTheOutbox() async throws {
      let cluster = try PostgresCluster.shared()
      let database = try cluster.freshDatabaseURL(#function)
      let proxy = try FaultProxy(cluster: cluster)
      let directory = TemporaryDirectory("sync-rejections")
      let token = try makeToken(space: "family")
      let tokens = directory.file("tokens")
      try "\(token.line)\n".write(to: tokens, atomically: true, encoding: .utf8)
      let server = try SyncTestServer(
        store: try proxy.url(replacingHostOf: database), tokens: tokens, directory: directory)
      var configuration = ModelConfiguration.url(directory.file("a.store"))
      var settings = SyncSettings(server: server.url, space: "family", token: token.token)
      settings.pollInterval = .seconds(3600)
      settings.waitForChanges = nil
      configuration.sync = settings
      let a = try ModelContainer(for: SyncNote.self, configurations: configuration)
      let sync = try SyncEngine(container: a)
      defer { sync.stop() }
      proxy.refuseNewConnections(true)
      proxy.cutAll()
      try Self.save(SyncNote(id: UUID(), text: "kept"), in: a)
      do {
        try await sync.syncNow()
        Issue.record("synced while the server's database was unreachable")
      } catch let error as SyncError {
        #expect(error.code == .serverError)
        #expect(error.status == 503)
      }
      #expect(sync.status.pending == 1)
      guard case .failing = sync.status.phase else {
        Issue.record("status \(sync.status.phase)")
        return
      }
      #expect(try sync.rejections().isEmpty)
      proxy.refuseNewConnections(false)
      try await sync.syncNow()
      #expect(sync.status.pending == 0)
      let logged = try PostgresConnection(database).queryFirst(
        "SELECT count(*) FROM kura_sync_log"
      ) { $0.int64(at: 0) }
      #expect(logged == 1)
    }

    /// A save that returned is counted at once, before any exchange: the status is never idle
    /// with nothing pending while the outbox holds a save, in `status` or in `statusUpdates()`.
    @Test func theStatusCountsASaveBeforeItIsSent() async throws {
      let world = try SyncRulesWorld([SyncNote.self])
      let (a, sync) = try world.replica("a")
      defer { sync.stop() }
      try Self.save(SyncNote(id: UUID(), text: "one"), in: a)
      try await sync.syncNow()
      #expect(sync.status.pending == 0)
      world.server.process.send(SIGKILL)
      _ = world.server.process.waitForExit()
      try Self.save(SyncNote(id: UUID(), text: "two"), in: a)
      #expect(sync.status.pending == 1)
      var updates = sync.statusUpdates().makeAsyncIterator()
      let update = try #require(await updates.next())
      #expect(update.pending == 1)
      await #expect(throws: SyncError.self) { try await sync.syncNow() }
      #expect(sync.status.pending == 1)
      #expect(sync.status.phase == .offline)
    }
  }
  /// A listener on 127.0.0.1 that records the head of each request and answers it 413. A
  /// request asking for `100 Continue` is answered at once, its body unread; any other's body
  /// is read first.
  private final class HeadRecorder: Sendable {
    let url: URL
    private let listener: Int32
    private let recorded = Mutex<[String]>([])

    var heads: [String] { recorded.withLock { $0 } }

    init() throws {
      let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      self.listener = listener
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
      }
      try #require(bound == 0 && listen(listener, 8) == 0)
      let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          getsockname(listener, $0, &length)
        }
      }
      try #require(named == 0)
      url = try #require(URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"))
      let thread = Thread { [self] in serve() }
      thread.name = "HeadRecorder"
      thread.start()
    }

    func stop() {
      shutdown(listener, Int32(SHUT_RDWR))
      close(listener)
    }

    private func serve() {
      while true {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(
          client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var head: String?
        while true {
          let count = recv(client, &buffer, buffer.count, 0)
          if count <= 0 { break }
          received += buffer[0..<count]
          if head == nil, let end = String(decoding: received, as: UTF8.self).range(of: "\r\n\r\n")
          {
            head = String(String(decoding: received, as: UTF8.self)[..<end.lowerBound])
          }
          guard let head else { continue }
          let lines = head.lowercased().split(separator: "\r\n")
          if lines.contains("expect: 100-continue") { break }
          let length =
            lines.first { $0.hasPrefix("content-length:") }
            .flatMap {
              Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
            }
            ?? 0
          if received.count >= head.utf8.count + 4 + length { break }
        }
        if let head { recorded.withLock { $0.append(head) } }
        let body = #"{"error":"tooLarge","message":"too large for the test"}"#
        let answer = Array(
          ("HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body).utf8)
        _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        close(client)
      }
    }
  }
#endif
