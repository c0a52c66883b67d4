import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

/// A tmux server of its own (`tmux -L <unique>`) running one command in a detached session, so a
/// test can type keys into a full-screen program and read its screen (`send-keys`,
/// `capture-pane`).
final class TmuxSession {
  /// The tmux executable, or `nil` when tmux is not installed (run `scripts/setup`).
  static let executable: URL? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    let folders = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
    for folder in folders {
      let candidate = URL(fileURLWithPath: folder).appendingPathComponent("tmux")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
  }()

  let socket = "kura-tui-\(UUID().uuidString.prefix(8))"
  let environment: [String: String]
  private let tmux: URL

  /// Starts `command` (a shell command line) in a new detached session of the given size. The pane
  /// stays after the command ends (`remain-on-exit`), so its last screen can still be read.
  init(
    _ command: String, environment: [String: String], columns: Int = 80, rows: Int = 24
  ) throws {
    tmux = try #require(
      Self.executable, "tmux is not installed: run scripts/setup (apt-get install tmux)")
    var environment = environment
    environment["TMUX"] = nil
    environment["TMUX_PANE"] = nil
    environment["LANG"] = "C.UTF-8"
    environment["LC_ALL"] = "C.UTF-8"
    environment["TERM"] = "xterm-256color"
    environment["SHELL"] = "/bin/sh"
    self.environment = environment
    let status = try Self.spawnServer(
      tmux,
      [
        "-L", socket, "-u", "-f", "/dev/null", "new-session", "-d", "-x", String(columns), "-y",
        String(rows), "-s", "app", command, ";", "set-option", "-t", "app", "remain-on-exit",
        "on",
      ], environment: environment)
    try #require(status == 0, "tmux new-session exited with status \(status)")
  }

  /// Starts the tmux client that starts the server, and waits for the client.
  ///
  /// Not with Foundation's `Process`: the server outlives the client and would inherit the
  /// descriptor `Process` watches for the end of its child (and the test thread's blocked
  /// signals), so the wait would last as long as the server. `posix_spawn` here gives the child
  /// /dev/null for its standard streams, closes every other descriptor, unblocks every signal.
  private static func spawnServer(
    _ program: URL, _ arguments: [String], environment: [String: String]
  ) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for descriptor: Int32 in 0...2 {
      posix_spawn_file_actions_addopen(
        &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    // Every descriptor from 3 up, however high: a loop to 1,024 had left higher ones (a full
    // run held over a thousand) to the server, and a server holding another test's output pipe
    // made that test's read wait for its end until it timed out.
    typealias CloseFrom =
      @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
      _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    } else {
      let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
      for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
        posix_spawn_file_actions_addclose(&actions, descriptor)
      }
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = ([program.path] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      argv.forEach { free($0) }
      envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let error = launching { posix_spawn(&pid, program.path, &actions, &attributes, argv, envp) }
    try #require(error == 0, "can't start tmux: \(String(cString: strerror(error)))")
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    return (status >> 8) & 0xFF
  }

  deinit {
    let socketPath = try? tmuxCommand("display-message", "-p", "#{socket_path}")
      .trimmingCharacters(in: .whitespacesAndNewlines)
    _ = try? tmuxCommand("kill-server")
    // tmux leaves the socket file behind when its server is killed.
    if let socketPath, socketPath.hasSuffix("/" + socket) {
      try? FileManager.default.removeItem(atPath: socketPath)
    }
  }

  /// Runs one tmux command against this server and returns what it printed.
  @discardableResult
  func tmuxCommand(_ arguments: String...) throws -> String {
    let result = try run(tmux, ["-L", socket] + arguments, environment: environment)
    if result.status != 0 {
      Issue.record("tmux \(arguments.joined(separator: " ")) failed: \(result.stderr)")
    }
    return result.stdout
  }

  /// Presses named keys (`Tab`, `BTab`, `Enter`, `Left`, `C-c`, `BSpace`, `Escape`, …).
  func press(_ keys: String...) throws {
    for key in keys { try tmuxCommand("send-keys", "-t", "app", key) }
  }

  /// Types text literally (UTF-8, Japanese included).
  func type(_ text: String) throws {
    try tmuxCommand("send-keys", "-t", "app", "-l", text)
  }

  /// The screen as text, one line per row.
  func screen() throws -> String {
    try tmuxCommand("capture-pane", "-p", "-t", "app")
  }

  /// Everything the pane printed, scrolled-off lines included, wrapped lines joined.
  func transcript() throws -> String {
    try tmuxCommand("capture-pane", "-p", "-J", "-S", "-", "-t", "app")
  }

  /// The screen with its colors and attributes as escape sequences.
  func styledScreen() throws -> String {
    try tmuxCommand("capture-pane", "-p", "-e", "-t", "app")
  }

  /// Waits (polling the screen, up to `timeout`) until `condition` holds, and returns the screen;
  /// records an issue showing the last screen when it never does.
  @discardableResult
  func waitForScreen(
    _ description: String, timeout: Duration = .seconds(15),
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: (String) -> Bool
  ) throws -> String {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var last = ""
    while clock.now < deadline {
      last = try screen()
      if condition(last) { return last }
      usleep(20_000)  // polling interval of a bounded wait: there is no event to wait on
    }
    Issue.record(
      "Timed out waiting for \(description). Screen:\n\(last)", sourceLocation: sourceLocation)
    return last
  }

  /// Waits until the screen shows `text`.
  @discardableResult
  func waitFor(
    _ text: String, timeout: Duration = .seconds(15),
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    try waitForScreen("`\(text)`", timeout: timeout, sourceLocation: sourceLocation) {
      $0.contains(text)
    }
  }

  /// Changes the window size (as a terminal window being resized does).
  func resize(columns: Int, rows: Int) throws {
    try tmuxCommand("resize-window", "-t", "app", "-x", String(columns), "-y", String(rows))
  }

  /// The process id of the pane's command (`sh`).
  func panePID() throws -> Int32 {
    let text = try tmuxCommand("display-message", "-p", "-t", "app", "#{pane_pid}")
    return try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
  }

  /// Whether the pane shows the alternate screen (a full-screen program has it until it leaves).
  func alternateScreenIsOn() throws -> Bool {
    try tmuxCommand("display-message", "-p", "-t", "app", "#{alternate_on}")
      .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
  }

  /// Waits (polling, up to `timeout`) until `condition` holds; records an issue when it never
  /// does.
  static func waitUntil(
    _ description: String, timeout: Duration = .seconds(15),
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () throws -> Bool
  ) rethrows {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
      if try condition() { return }
      usleep(20_000)  // polling interval of a bounded wait: there is no event to wait on
    }
    Issue.record("Timed out waiting for \(description).", sourceLocation: sourceLocation)
  }

  /// Whether the pane's command has ended.
  func paneIsDead() throws -> Bool {
    try tmuxCommand("display-message", "-p", "-t", "app", "#{pane_dead}")
      .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
  }

  /// Kills the pane's command (SIGHUP, like closing a terminal window) and starts `command` again
  /// in the same pane, so `TMUX_PANE` — the terminal session — stays the same.
  func respawn(_ command: String) throws {
    try tmuxCommand("respawn-pane", "-k", "-t", "app", command)
  }
}

/// Quotes a path for `sh`.
func shellQuoted(_ text: String) -> String {
  "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
