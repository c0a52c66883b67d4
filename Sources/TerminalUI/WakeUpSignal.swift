#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Wakes a ``Terminal`` waiting for input from any thread (the self-pipe trick): a change
/// observer calls ``wake()`` and the input loop returns ``TerminalEvent/wake``.
///
/// For example:
///
/// ```swift
/// let signal = terminal.wakeUpSignal
/// observation = book.observe { signal.wake() }
/// ```
package struct WakeUpSignal: Sendable {
  let descriptor: Int32

  /// Makes the terminal's next wait return ``TerminalEvent/wake``. Never blocks.
  package func wake() {
    var byte = UInt8(ascii: "C")
    _ = write(descriptor, &byte, 1)
  }
}
