import Foundation
import Synchronization
import Testing

/// A headless Chromium driven through chromedriver's WebDriver HTTP protocol (W3C), with
/// URLSession: the browser tests' real browser.
final class WebDriver: @unchecked Sendable {
  // Safety: set once in `start`, then only read; the processes are used through their
  // thread-safe methods.
  private let driver: ChildLine
  private let base: URL
  private let session: String
  private let profile: URL

  /// Whether this machine has Debian's `chromium` and `chromium-driver` (scripts/setup
  /// installs them).
  static var isAvailable: Bool {
    FileManager.default.isExecutableFile(atPath: chromium)
      && FileManager.default.isExecutableFile(atPath: chromedriver)
  }
  static let chromium = "/usr/bin/chromium"
  static let chromedriver = "/usr/bin/chromedriver"

  /// Starts chromedriver on a port of its choosing and a headless browser session.
  static func start(folder: URL, acceptInsecureCertificates: Bool = false) async throws
    -> WebDriver
  {
    let driver = try ChildLine(
      URL(fileURLWithPath: chromedriver), ["--port=0"],
      until: { $0.contains("was started successfully on port") })
    let line = try #require(driver.line)
    let port = try #require(
      line.split(separator: " ").last.map { $0.trimmingCharacters(in: .punctuationCharacters) })
    let base = try #require(URL(string: "http://127.0.0.1:\(port)"))
    let profile = folder.appendingPathComponent("chromium-profile")
    let capabilities: [String: Any] = [
      "capabilities": [
        "alwaysMatch": [
          "browserName": "chrome",
          "acceptInsecureCerts": acceptInsecureCertificates,
          "goog:chromeOptions": [
            "binary": chromium,
            "args": [
              "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1280,860", "--user-data-dir=\(profile.path)", "--lang=en-US",
              "--no-first-run", "--disable-extensions", "--hide-scrollbars",
            ],
          ],
        ]
      ]
    ]
    let answer = try await call(base, "POST", "/session", capabilities)
    let value = try #require(answer["value"] as? [String: Any])
    let session = try #require(value["sessionId"] as? String)
    let driverValue = WebDriver(driver: driver, base: base, session: session, profile: profile)
    _ = try await driverValue.command("POST", "timeouts", ["script": 30_000, "pageLoad": 30_000])
    return driverValue
  }

  private init(driver: ChildLine, base: URL, session: String, profile: URL) {
    self.driver = driver
    self.base = base
    self.session = session
    self.profile = profile
  }

  /// Ends the session (closing the browser) and stops chromedriver.
  func quit() async {
    _ = try? await Self.call(base, "DELETE", "/session/\(session)", nil)
    driver.stop()
  }

  private static func call(_ base: URL, _ method: String, _ path: String, _ body: Any?)
    async throws -> [String: Any]
  {
    let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) }
    let port = UInt16(base.port ?? 80)
    // Off the concurrency pool's threads: a WebDriver call can wait for the page for seconds.
    let data = try await withCheckedThrowingContinuation { continuation in
      Thread.detachNewThread {
        continuation.resume(
          with: Result { try HTTPExchange.send(method, path, body: payload, port: port) })
      }
    }
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    if let value = object["value"] as? [String: Any], let error = value["error"] as? String {
      throw WebDriverError(error: error, message: value["message"] as? String ?? "")
    }
    return object
  }

  @discardableResult
  private func command(_ method: String, _ path: String, _ body: Any? = [String: Any]())
    async throws -> Any?
  {
    try await Self.call(base, method, "/session/\(session)/\(path)", method == "GET" ? nil : body)[
      "value"]
  }

  /// Opens `url`.
  func open(_ url: String) async throws {
    try await command("POST", "url", ["url": url])
  }

  /// Runs `script` in the page and returns its result.
  @discardableResult
  func run(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
    try await command("POST", "execute/sync", ["script": script, "args": arguments])
  }

  /// Waits in the page (without polling from here) until the JavaScript expression `condition`
  /// is truthy, for at most 20 seconds; returns its value, or `nil` when it never was.
  @discardableResult
  func wait(for condition: String) async throws -> Any? {
    let script = """
      const done = arguments[arguments.length - 1];
      const deadline = Date.now() + 20000;
      const check = () => { try { return (\(condition)); } catch (error) { return null; } };
      const observer = new MutationObserver(() => {
        const value = check();
        if (value) { observer.disconnect(); clearTimeout(timer); done(value); }
      });
      const timer = setTimeout(() => { observer.disconnect(); done(null); }, deadline - Date.now());
      const first = check();
      if (first) { observer.disconnect(); clearTimeout(timer); done(first); }
      else observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
      """
    let value = try await command("POST", "execute/async", ["script": script, "args": []])
    return value is NSNull ? nil : value
  }

  /// Clicks the first element `selector` finds.
  func click(_ selector: String) async throws {
    let element = try await find(selector)
    try await command("POST", "element/\(element)/click")
  }

  /// Types `text` into the first element `selector` finds (after clearing it).
  func type(_ text: String, into selector: String) async throws {
    let element = try await find(selector)
    try await command("POST", "element/\(element)/clear")
    try await command("POST", "element/\(element)/value", ["text": text])
  }

  private func find(_ selector: String) async throws -> String {
    let value = try await command(
      "POST", "element", ["using": "css selector", "value": selector])
    let element = try #require(value as? [String: Any])
    return try #require(element.values.first as? String)
  }

  /// The text of the open alert dialog, or `nil` when there is none.
  func alertText() async throws -> String? {
    do {
      return try await command("GET", "alert/text") as? String
    } catch let error as WebDriverError where error.error == "no such alert" {
      return nil
    }
  }

  /// A PNG of the window.
  func screenshot() async throws -> Data {
    let value = try await command("GET", "screenshot")
    let text = try #require(value as? String)
    return try #require(Data(base64Encoded: text))
  }
}

/// A WebDriver error: its code (`no such element`) and message.
struct WebDriverError: Error, CustomStringConvertible {
  var error: String
  var message: String
  var description: String { "WebDriver: \(error): \(message)" }
}

/// A child process whose output is read until a line passes a test (bounded), then left to run.
final class ChildLine: @unchecked Sendable {
  // Safety: `reading` is set in init before the thread starts; its state is behind Mutexes.
  private let process = Process()
  private let ready = DispatchSemaphore(value: 0)
  private var reading = Reading()

  /// What the reading thread found.
  final class Reading: Sendable {
    let line = Mutex<String?>(nil)
    let output = Mutex<String>("")
  }

  /// The line that passed the test.
  var line: String? { reading.line.withLock { $0 } }

  init(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
    until test: @escaping @Sendable (String) -> Bool
  ) throws {
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let handle = pipe.fileHandleForReading
    // The reading thread holds the state, not `self` (or `self` would live as long as the
    // process, and its deinit, which stops the process, would never run).
    let reading = Reading()
    self.reading = reading
    let ready = self.ready
    Thread.detachNewThread {
      var pending = Data()
      var signalled = false
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        pending.append(chunk)
        while let newline = pending.firstIndex(of: 10) {
          let text = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
          pending.removeSubrange(pending.startIndex...newline)
          reading.output.withLock { $0 += text + "\n" }
          if !signalled && test(text) {
            reading.line.withLock { $0 = text }
            signalled = true
            ready.signal()
          }
        }
      }
      if !signalled { ready.signal() }
    }
    if ready.wait(timeout: .now() + 60) == .timedOut || line == nil {
      stop()
      throw WebDriverError(
        error: "did not start", message: "\(executable.lastPathComponent): \(printed)")
    }
  }

  /// Everything it printed so far.
  var printed: String { reading.output.withLock { $0 } }

  /// Stops the process, and the processes it started (chromedriver's browser), with SIGKILL.
  func stop() {
    guard process.isRunning else { return }
    let id = process.processIdentifier
    for child in Self.children(of: id) { kill(child, SIGKILL) }
    kill(id, SIGKILL)
    process.waitUntilExit()
  }

  /// The processes whose parent is `parent`, from /proc.
  static func children(of parent: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { Int32($0) }.filter { id in
      guard let stat = try? String(contentsOfFile: "/proc/\(id)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return false }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      return fields.count > 1 && Int32(fields[1]) == parent
    }
  }

  deinit { stop() }
}

/// One HTTP/1.1 exchange with a server on 127.0.0.1, over a socket. chromedriver writes its
/// header fields without a space after the colon (`Content-Length:252`), which Foundation's
/// URLSession on Linux can't read ("Failed writing header"), so the tests speak HTTP to it
/// themselves.
enum HTTPExchange {
  static func send(_ method: String, _ path: String, body: Data?, port: UInt16) throws -> Data {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw WebDriverError(error: "socket", message: "\(errno)") }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw WebDriverError(error: "connect", message: "\(errno)") }
    var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    if let body {
      request += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
    }
    var bytes = Array((request + "\r\n").utf8)
    if let body { bytes += body }
    var sent = 0
    while sent < bytes.count {
      let written = bytes[sent...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
      guard written > 0 else { throw WebDriverError(error: "write", message: "\(errno)") }
      sent += written
    }
    // Bounded: a read waits at most 60 s.
    var timeout = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var response = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var expected: Int?
    var bodyStart: Data.Index?
    while true {
      if let expected, let bodyStart, response.count - bodyStart >= expected { break }
      let count = read(socket, &buffer, buffer.count)
      if count <= 0 { break }
      response.append(contentsOf: buffer[0..<count])
      if bodyStart == nil, let end = response.firstRange(of: Data("\r\n\r\n".utf8)) {
        bodyStart = end.upperBound
        let head = String(decoding: response[..<end.lowerBound], as: UTF8.self).lowercased()
        for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
          expected = Int(
            line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        }
      }
    }
    guard let bodyStart else {
      throw WebDriverError(error: "response", message: String(decoding: response, as: UTF8.self))
    }
    return response[bodyStart...]
  }
}
