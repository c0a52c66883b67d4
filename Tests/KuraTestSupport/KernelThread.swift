import Foundation
import Testing

/// A thread of a process as Linux shows it in `/proc/<pid>/task/<tid>`: whether it is blocked in
/// `poll` and how often it blocked so far. It lets a test wait until another thread — of this
/// process or a child — is inside its wait, or has handled a wake-up, instead of sleeping.
package struct KernelThread {
  package let folder: String

  /// The calling thread.
  package static func current() throws -> KernelThread {
    // `/proc/thread-self` links to `<pid>/task/<tid>` of the thread reading it.
    let target = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")
    return KernelThread(folder: "/proc/\(target)")
  }

  private init(folder: String) {
    self.folder = folder
  }

  /// The one thread of process `pid` asleep in `poll` — in Kura's processes, the file watcher
  /// while nothing else polls (Linux keeps no name for it: `kura.file-change-monitor` is longer
  /// than the 15 bytes a thread name may have). Waits at most 20 s for there to be exactly one.
  package static func soleThreadWaitingInPoll(of pid: Int32) throws -> KernelThread {
    let tasks = "/proc/\(pid)/task"
    let deadline = Date(timeIntervalSinceNow: 20)
    var polling: [KernelThread] = []
    while Date() < deadline {
      polling = try FileManager.default.contentsOfDirectory(atPath: tasks)
        .map { KernelThread(folder: "\(tasks)/\($0)") }
        .filter { (try? $0.isWaitingInPoll()) == true }
      if polling.count == 1 { return polling[0] }
      usleep(1_000)  // polling /proc: there is no event to wait on
    }
    Issue.record("\(polling.count) threads of process \(pid) wait in poll, not one")
    throw CancellationError()
  }

  /// The number of times the thread blocked (gave up the processor waiting) so far.
  package func blockedCount() throws -> Int {
    let status = try String(contentsOfFile: "\(folder)/status", encoding: .utf8)
    let line = try #require(
      status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") })
    return try #require(Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)))
  }

  /// Whether the thread is asleep in `poll` (or `ppoll`) now. A thread in `epoll_wait`
  /// (`do_epoll_wait`, `ep_poll`: Dispatch's event thread, which comes and goes) is not.
  package func isWaitingInPoll() throws -> Bool {
    let channel = try String(contentsOfFile: "\(folder)/wchan", encoding: .utf8)
    return channel.contains("poll") && !channel.contains("epoll") && !channel.contains("ep_poll")
  }

  /// Waits (at most 20 s) until the thread sleeps in `poll` having blocked more than `count`
  /// times (`-1`: any time): it reached its wait, or went back to it after a wake-up.
  package func waitUntilWaitingInPoll(blockedMoreThan count: Int = -1) throws {
    let deadline = Date(timeIntervalSinceNow: 20)
    while Date() < deadline {
      if try blockedCount() > count, try isWaitingInPoll() { return }
      usleep(1_000)  // polling /proc: there is no event to wait on
    }
    Issue.record("\(folder) did not wait in poll within 20 s")
  }
}
