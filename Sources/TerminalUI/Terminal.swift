import CTerminalSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A full-screen session on the process's terminal: raw mode, the alternate screen, a hidden
/// cursor, keys, resizes and wake-ups as ``TerminalEvent``s.
///
/// ``enter()`` saves the terminal's settings; ``leave()`` restores them, and so do `exit()`,
/// SIGINT, SIGTERM, SIGHUP, SIGQUIT and the crash signals (SIGSEGV, SIGABRT, SIGBUS, SIGILL,
/// SIGFPE, SIGTRAP) — the handlers restore the settings and then re-raise the signal with its
/// previous disposition, so the process still ends as it would have.
///
/// For example:
///
/// ```swift
/// let terminal = try Terminal()
/// try terminal.enter()
/// defer { terminal.leave() }
/// var renderer = ANSIRenderer()
/// terminal.write(renderer.render(screen))
/// let events = try terminal.nextEvents()
/// ```
package final class Terminal {
  private let input: Int32
  private let output: Int32
  private let wakeRead: Int32
  private let wakeWrite: Int32
  private var decoder = KeyDecoder()
  private var lastSize: TerminalSize

  /// How long a lone Escape waits for the rest of a sequence, in milliseconds.
  package var escapeDelay: Int32 = 40

  /// Opens the terminal on standard input and output.
  ///
  /// - Parameters:
  ///   - input: The descriptor to read keys from.
  ///   - output: The descriptor to draw on.
  /// - Throws: ``TerminalError`` when the wake-up pipe cannot be made.
  package init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) throws {
    self.input = input
    self.output = output
    var descriptors: [Int32] = [0, 0]
    guard pipe(&descriptors) == 0 else { throw Self.error("create a wake-up pipe") }
    wakeRead = descriptors[0]
    wakeWrite = descriptors[1]
    for descriptor in descriptors {
      _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
      _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }
    lastSize = TerminalSize(columns: 80, rows: 24)
    lastSize = currentSize()
  }

  deinit {
    leave()
    close(wakeRead)
    close(wakeWrite)
  }

  /// Whether both standard input and standard output are terminals.
  package static var isInteractive: Bool {
    isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
  }

  /// A handle other threads use to wake the input loop.
  package var wakeUpSignal: WakeUpSignal { WakeUpSignal(descriptor: wakeWrite) }

  /// The window size now (80×24 when the terminal does not say).
  package func currentSize() -> TerminalSize {
    var rows: Int32 = 0
    var columns: Int32 = 0
    if kura_terminal_size(output, &rows, &columns) == 0, rows > 0, columns > 0 {
      return TerminalSize(columns: Int(columns), rows: Int(rows))
    }
    return lastSize
  }

  /// Enters raw mode and the alternate screen, hides the cursor and starts watching resizes.
  ///
  /// - Throws: ``TerminalError`` when the input is not a terminal.
  package func enter() throws {
    let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J"
    let leaveSequence = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"
    let status = kura_terminal_enter(input, enterSequence, leaveSequence)
    guard status == 0 else {
      throw TerminalError(
        operation: "enter raw mode", code: status, reason: String(cString: strerror(status)))
    }
    _ = kura_terminal_watch_resize(wakeWrite)
  }

  /// Leaves the alternate screen and restores the saved settings. Calling it again does nothing.
  package func leave() {
    _ = kura_terminal_watch_resize(-1)
    kura_terminal_restore()
  }

  /// Writes text to the terminal, all of it.
  ///
  /// - Parameter text: What to write.
  package func write(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeMutableBytes { buffer in
        systemWrite(output, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
      }
      if written < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        return
      }
      offset += written
    }
  }

  /// Waits for input, a resize or a wake-up and returns what happened (at least one event).
  ///
  /// - Throws: ``TerminalError`` when the terminal is gone (end of input or a read error).
  /// - Returns: The events, in order; several keys may arrive at once.
  package func nextEvents() throws -> [TerminalEvent] {
    while true {
      var descriptors = [
        pollfd(fd: input, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
      ]
      let timeout: Int32 = decoder.hasIncompleteInput ? escapeDelay : -1
      let ready = poll(&descriptors, 2, timeout)
      if ready < 0 {
        if errno == EINTR { continue }
        throw Self.error("wait for input")
      }
      if ready == 0 {
        let keys = decoder.flush()
        if !keys.isEmpty { return keys.map { .key($0) } }
        continue
      }
      var events: [TerminalEvent] = []
      if descriptors[1].revents & Int16(POLLIN) != 0 {
        events += drainWakeUps()
      }
      if descriptors[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(input, &buffer, buffer.count)
        if count < 0 {
          if errno != EINTR && errno != EAGAIN { throw Self.error("read input") }
        } else if count == 0 {
          throw TerminalError(operation: "read input", code: 0, reason: "the input was closed")
        } else {
          events += decoder.decode(buffer[0..<count]).map { .key($0) }
        }
      }
      if !events.isEmpty { return events }
    }
  }

  private func drainWakeUps() -> [TerminalEvent] {
    var buffer = [UInt8](repeating: 0, count: 256)
    var resized = false
    var woken = false
    while true {
      let count = read(wakeRead, &buffer, buffer.count)
      guard count > 0 else { break }
      for byte in buffer[0..<count] {
        if byte == UInt8(ascii: "W") { resized = true } else { woken = true }
      }
    }
    var events: [TerminalEvent] = []
    if resized {
      let size = currentSize()
      lastSize = size
      events.append(.resize(size))
    }
    if woken { events.append(.wake) }
    return events
  }

  private static func error(_ operation: String) -> TerminalError {
    let code = errno
    return TerminalError(operation: operation, code: code, reason: String(cString: strerror(code)))
  }
}

/// `write(2)`, out of reach of the ``Terminal/write(_:)`` method's name.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int)
  -> Int
{
  write(descriptor, bytes, count)
}
