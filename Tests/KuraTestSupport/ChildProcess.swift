import Foundation
import Testing

/// A running child process whose output lines can be awaited one by one (for tests that talk to
/// a child while it runs: wait for `ready`, act, wait for the reaction, kill it).
package final class ChildProcess: @unchecked Sendable {
  // Safety: `output` and `errors` are only touched with `condition` locked; `process` is
  // configured before it starts and then only used through its thread-safe methods.
  private let process = Process()
  private let input = childPipe()
  private let condition = NSCondition()
  private var output: [String] = []
  private var errors: [String] = []
  private var openStreams = 2

  package init(_ executable: URL, _ arguments: [String], environment: [String: String]) throws {
    _ = brokenPipesAreErrors
    process.executableURL = executable
    process.arguments = arguments
    process.environment = environment
    let outputPipe = childPipe()
    let errorPipe = childPipe()
    process.standardOutput = outputPipe
    process.standardError = errorPipe
    process.standardInput = input
    try launch(process)
    collect(outputPipe.fileHandleForReading, isError: false)
    collect(errorPipe.fileHandleForReading, isError: true)
  }

  deinit {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    // Not left to the pipe's deinit: Foundation can keep the `Process`, and with it the pipe,
    // alive (see `launch(_:)`).
    try? input.fileHandleForWriting.close()
  }

  private func collect(_ handle: FileHandle, isError: Bool) {
    let thread = Thread { [self] in
      var pending = Data()
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        pending.append(chunk)
        while let newline = pending.firstIndex(of: 10) {
          let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
          pending.removeSubrange(pending.startIndex...newline)
          condition.lock()
          if isError { errors.append(line) } else { output.append(line) }
          condition.broadcast()
          condition.unlock()
        }
      }
      // Closed at the end of the output, not left to the pipe's deinit (see `launch(_:)`).
      try? handle.close()
      condition.lock()
      if !pending.isEmpty {
        let line = String(decoding: pending, as: UTF8.self)
        if isError { errors.append(line) } else { output.append(line) }
      }
      openStreams -= 1
      condition.broadcast()
      condition.unlock()
    }
    thread.start()
  }

  /// Waits (at most `timeout`) for a line of standard output (or error) that satisfies
  /// `predicate`; returns it, or `nil` (and records an issue) on timeout or end of output.
  @discardableResult
  package func waitForLine(
    onStandardError: Bool = false, timeout: TimeInterval = 30,
    where predicate: (String) -> Bool, sourceLocation: SourceLocation = #_sourceLocation
  ) -> String? {
    let deadline = Date(timeIntervalSinceNow: timeout)
    condition.lock()
    defer { condition.unlock() }
    while true {
      let lines = onStandardError ? errors : output
      if let line = lines.first(where: predicate) { return line }
      if openStreams == 0 || !condition.wait(until: deadline) {
        Issue.record(
          "no matching line; stdout: \(output), stderr: \(errors)", sourceLocation: sourceLocation)
        return nil
      }
    }
  }

  /// Every line printed on standard output so far.
  /// The child's process identifier.
  package var processIdentifier: Int32 { process.processIdentifier }

  package var outputLines: [String] {
    condition.lock()
    defer { condition.unlock() }
    return output
  }

  /// Writes a line to the process's standard input.
  package func send(line: String) {
    input.fileHandleForWriting.write(Data((line + "\n").utf8))
  }

  /// Sends a signal.
  package func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

  /// Waits for the process to end and returns its status.
  package func waitForExit() -> Int32 {
    process.waitUntilExit()
    let deadline = Date(timeIntervalSinceNow: 10)
    condition.lock()
    while openStreams > 0 { if !condition.wait(until: deadline) { break } }
    condition.unlock()
    return process.terminationStatus
  }

  /// How the process ended.
  package var terminationReason: Process.TerminationReason { process.terminationReason }
}
