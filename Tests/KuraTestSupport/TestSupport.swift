import Foundation
import Testing

/// Makes a write to a pipe or socket whose reader is gone fail with `EPIPE` instead of ending
/// the whole test process with SIGPIPE (a killed child's stdin, a fault proxy's relay to a cut
/// connection: a full `swift test` died of it, signal 13). Touched by the support types that
/// start processes, relay sockets or make a test's folder.
package let brokenPipesAreErrors: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

/// A folder of its own for one test, removed when the value is released.
package final class TemporaryDirectory: Sendable {
  package let url: URL

  package init(_ name: String = #function) {
    _ = brokenPipesAreErrors
    let safe = name.filter { $0.isLetter || $0.isNumber }
    url = URL(fileURLWithPath: NSTemporaryDirectory())
      .appendingPathComponent("kura-tests-\(safe.prefix(40))-\(UUID().uuidString.prefix(8))")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  /// A path inside the folder.
  package func file(_ name: String) -> URL { url.appendingPathComponent(name) }

  /// Environment variables that root every Kura location in this folder (KURA_HOME) and point
  /// HOME and the XDG variables here too, so nothing touches the real home directory (and no
  /// `KURA_STORE_URL` of the shell running the tests points the example apps elsewhere).
  package var environment: [String: String] {
    var environment = ProcessInfo.processInfo.environment
    for key in [
      "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "KURA_APP_ID", "KURA_STORE_URL",
    ] {
      environment[key] = nil
    }
    environment["HOME"] = url.appendingPathComponent("home").path
    environment["KURA_HOME"] = url.appendingPathComponent("kura-home").path
    return environment
  }
}

/// What a finished child process printed and returned.
package struct ProcessResult: Sendable {
  package var status: Int32
  package var stdout: String
  package var stderr: String

  /// A value of each stored property.
  package init(status: Int32, stdout: String, stderr: String) {
    self.status = status
    self.stdout = stdout
    self.stderr = stderr
  }
}

/// The folder holding the package's built executables (next to the test bundle).
package func productsDirectory() -> URL {
  #if os(Linux)
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var directory = executable.deletingLastPathComponent()
    // The test binary may live inside `KuraPackageTests.xctest/…` on some layouts.
    while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("kura").path),
      directory.path != "/"
    {
      directory = directory.deletingLastPathComponent()
    }
    return directory
  #else
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
      return bundle.bundleURL.deletingLastPathComponent()
    }
    return Bundle.main.bundleURL
  #endif
}

/// A built executable of this package, such as `kura` or `warikan`.
package func executable(_ name: String) throws -> URL {
  let url = productsDirectory().appendingPathComponent(name)
  try #require(
    FileManager.default.isExecutableFile(atPath: url.path),
    "`\(name)` is not built at \(url.path); run `swift build` first")
  return url
}

/// A pipe for a child's standard input, output or error whose descriptors close on `exec`
/// (the child gets its end as 0, 1 or 2, which `dup2` makes without the flag). Foundation's
/// `Pipe()` leaves them inheritable: a process another test started at the same moment kept the
/// write end of a child's output, so the test waited for an end of file that never came (a
/// `kura sync serve` of another test held a `wishlist` command's output after it exited).
package func childPipe() -> Pipe {
  let pipe = Pipe()
  for descriptor in [
    pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor,
  ] {
    _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
  }
  return pipe
}

/// Runs an executable to completion and captures its output.
package func run(
  _ executableURL: URL, _ arguments: [String], environment: [String: String],
  input: String? = nil, timeout: Duration = .seconds(60)
) throws -> ProcessResult {
  let process = Process()
  process.executableURL = executableURL
  process.arguments = arguments
  process.environment = environment
  let output = childPipe()
  let errors = childPipe()
  let inputPipe = childPipe()
  process.standardOutput = output
  process.standardError = errors
  process.standardInput = inputPipe
  try launch(process)
  if let input { inputPipe.fileHandleForWriting.write(Data(input.utf8)) }
  try? inputPipe.fileHandleForWriting.close()
  // Read both pipes before waiting so a chatty child never blocks on a full pipe.
  let group = DispatchGroup()
  nonisolated(unsafe) var outData = Data()
  nonisolated(unsafe) var errData = Data()
  group.enter()
  DispatchQueue.global().async {
    outData = output.fileHandleForReading.readDataToEndOfFile()
    group.leave()
  }
  group.enter()
  DispatchQueue.global().async {
    errData = errors.fileHandleForReading.readDataToEndOfFile()
    group.leave()
  }
  var read = waitCountingRunningTime(group, timeout)
  if !read {
    // SIGKILL: a child started from the test process inherits its blocked signals, SIGTERM
    // among them, so `terminate()` would leave a hung child (and the test) waiting forever.
    let report = hungChildReport(
      processID: process.processIdentifier, output: output.fileHandleForReading,
      environment: environment)
    kill(process.processIdentifier, SIGKILL)
    Issue.record(
      "`\(executableURL.lastPathComponent) \(arguments.joined(separator: " "))` timed out\n\(report)"
    )
    read = group.wait(timeout: .now() + 10) == .success
  }
  // Closed here once both reads ended, not left to the pipes' deinit: Foundation on Linux keeps
  // some finished `Process` objects (and so their pipes) alive — 36 of 50 runs' descriptors
  // stayed open — and a full run then held over a thousand descriptors, the state in which
  // `Process.run()` itself can crash (see `launch(_:)`).
  if read {
    try? output.fileHandleForReading.close()
    try? errors.fileHandleForReading.close()
  }
  // Reaped here with waitpid: Foundation's `waitUntilExit()` on Linux once missed a child's exit
  // (a `tmux capture-pane` client left a zombie) and waited forever, stalling the whole run.
  let pid = process.processIdentifier
  var waitStatus: Int32 = 0
  var reaped: pid_t
  repeat { reaped = waitpid(pid, &waitStatus, 0) } while reaped == -1 && errno == EINTR
  let status: Int32
  if reaped == pid {
    // The exit status, or the signal that ended it (as Foundation's `terminationStatus`).
    status = waitStatus & 0x7f == 0 ? (waitStatus >> 8) & 0xff : waitStatus & 0x7f
  } else {
    process.waitUntilExit()  // Foundation reaped it first: it knows the status
    status = process.terminationStatus
  }
  return ProcessResult(
    status: status, stdout: String(decoding: outData, as: UTF8.self),
    stderr: String(decoding: errData, as: UTF8.self))
}

/// Waits for `group` up to `timeout` of time in which this machine ran: the wait is made in
/// one-second slices, and a slice that took over five seconds (the virtual machine was paused,
/// or the process stopped, and every clock jumped when it went on) counts as one second. A
/// fresh-clone CI run had nothing finish for 68 seconds, in every test alike, and two tests
/// then failed on time alone; a child that really hangs still times out.
package func waitCountingRunningTime(_ group: DispatchGroup, _ timeout: Duration) -> Bool {
  let clock = ContinuousClock()
  var counted = Duration.zero
  while counted < timeout {
    let start = clock.now
    if group.wait(timeout: .now() + 1) == .success { return true }
    let slice = start.duration(to: clock.now)
    counted += slice > .seconds(5) ? .seconds(1) : slice
  }
  return false
}

/// Serializes the tests' `Process.run()` calls.
private let processLaunches = NSLock()

/// Starts `process`, one launch at a time in this test process: a full run (tests in parallel,
/// many starting child processes) crashed twice inside Foundation's `Process.run()` on Linux (a
/// `memcpy` reading past a mapping, in a test whose own process had not started yet). The
/// likely cause: `Process.run()` lists `/proc/self/fd` and copies each entry's whole 256-byte
/// name field, which can read past the end of the directory buffer once the listing fills it
/// (over about 1,300 open descriptors; a full run had reached 1,839, 1,150 of them pipes the
/// tests left open). The tests now close their pipes themselves; serializing the launches
/// costs nothing and stays.
package func launch(_ process: Process) throws {
  try launching { try process.run() }
}

/// Runs `start` (a `Process.run()` or a `posix_spawn`) while no other test of this process
/// starts a child (see `launch(_:)`).
package func launching<T>(_ start: () throws -> T) rethrows -> T {
  processLaunches.lock()
  defer { processLaunches.unlock() }
  return try start()
}
