#if canImport(KuraSyncServer) && canImport(Glibc)
  import Foundation
  import Glibc
  import Synchronization

  /// A child process of `kura sync soak` (a server or a replica), spoken to by lines: its
  /// output lines are collected as they come, and waited for with a bound.
  final class SoakProcess: @unchecked Sendable {
    // Safety: `lines` and `open` are guarded by `condition`; `process` and the pipes are set in
    // init and only used through their own thread-safe calls afterwards.
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let condition = NSCondition()
    private var lines: [String] = []
    private var open = true
    private var consumed = 0

    /// Starts `executable` with `arguments`; its standard error goes to `log`.
    init(_ executable: URL, _ arguments: [String], log: URL) throws {
      process.executableURL = executable
      process.arguments = arguments
      process.standardInput = input
      process.standardOutput = output
      _ = FileManager.default.createFile(atPath: log.path, contents: nil)
      process.standardError = try FileHandle(forWritingTo: log)
      try process.run()
      let reading = output.fileHandleForReading
      Thread { [weak self] in
        var pending = Data()
        while true {
          let data = reading.availableData
          guard let self else { return }
          if data.isEmpty { break }
          pending.append(data)
          while let end = pending.firstIndex(of: 10) {
            let line = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
            pending.removeSubrange(pending.startIndex...end)
            self.condition.lock()
            self.lines.append(line)
            self.condition.broadcast()
            self.condition.unlock()
          }
        }
        self?.condition.lock()
        self?.open = false
        self?.condition.broadcast()
        self?.condition.unlock()
      }.start()
    }

    /// The next line not read yet that satisfies `predicate` (lines before it are skipped), or
    /// `nil` when the process ended or `timeout` seconds passed.
    func nextLine(timeout: TimeInterval = 60, where predicate: (String) -> Bool) -> String? {
      let deadline = Date(timeIntervalSinceNow: timeout)
      condition.lock()
      defer { condition.unlock() }
      while true {
        while consumed < lines.count {
          consumed += 1
          if predicate(lines[consumed - 1]) { return lines[consumed - 1] }
        }
        if !open || !condition.wait(until: deadline) { return nil }
      }
    }

    /// Writes a line to the process's standard input (nothing when it ended).
    func send(_ line: String) {
      try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Kills the process (SIGKILL) and waits for it to end.
    func kill() {
      Glibc.kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }

    deinit {
      if process.isRunning { kill() }
    }
  }

  /// A TCP relay on 127.0.0.1 between the replicas and the live servers: each connection goes
  /// to one of the servers (in turn), and ``cutAll()`` closes every connection under way —
  /// mid-request, as a network does.
  final class SoakRelay: @unchecked Sendable {
    // Safety: `state` guards the mutable parts; the listening socket is set in init.
    private struct State {
      var targets: [UInt16] = []
      var next = 0
      var sockets: Set<Int32> = []
    }
    private let state = NSLock()
    private var shared = State()
    private let listener: Int32
    /// The port the relay listens on.
    let port: UInt16

    init() throws {
      let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      self.listener = listener
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(listener, $0, length) == 0 && listen(listener, 128) == 0
            && getsockname(listener, $0, &length) == 0
        }
      }
      guard listener >= 0, bound else {
        throw SoakError("Can't listen on 127.0.0.1 for the soak's relay (errno \(errno)).")
      }
      port = UInt16(bigEndian: address.sin_port)
      startAccepting()
    }

    private func startAccepting() {
      Thread { [listener, weak self] in
        while true {
          let client = accept(listener, nil, nil)
          if client < 0 { return }
          guard let self else { return }
          self.relay(client)
        }
      }.start()
    }

    /// The servers' ports to relay to.
    func route(to targets: [UInt16]) {
      state.lock()
      shared.targets = targets
      state.unlock()
    }

    /// Closes every connection under way (both sides).
    func cutAll() {
      state.lock()
      let sockets = shared.sockets
      shared.sockets = []
      state.unlock()
      for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    private func relay(_ client: Int32) {
      state.lock()
      let target = shared.targets.isEmpty ? nil : shared.targets[shared.next % shared.targets.count]
      shared.next += 1
      state.unlock()
      let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = (target ?? 1).bigEndian
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
      }
      guard target != nil, connected else {
        close(server)
        close(client)
        return
      }
      state.lock()
      shared.sockets.formUnion([client, server])
      state.unlock()
      let ends = Mutex(0)
      for (from, to) in [(client, server), (server, client)] {
        Thread { [weak self] in
          var buffer = [UInt8](repeating: 0, count: 65_536)
          while true {
            let count = recv(from, &buffer, buffer.count, 0)
            if count <= 0 || send(to, buffer, count, Int32(MSG_NOSIGNAL)) != count { break }
          }
          shutdown(to, Int32(SHUT_RDWR))
          let last = ends.withLock { ends in
            ends += 1
            return ends == 2
          }
          guard last else { return }
          self?.state.lock()
          self?.shared.sockets.subtract([client, server])
          self?.state.unlock()
          close(client)
          close(server)
        }.start()
      }
    }

    deinit {
      shutdown(listener, Int32(SHUT_RDWR))
      close(listener)
    }
  }

  /// A soak that could not run or found a broken guarantee.
  struct SoakError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
#endif
